"""Signer values given through the API: matched to fields by uuid or name, checked and stored per type."""

import pytest

from signsvc.infra import errors
from signsvc.submissions import field_values
from signsvc.submissions.field_values import FileId, Typed, Upload

WHERE = ("submitters", 0, "values")
PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="


def field(type="text", name="", uuid=None, **extra):
    result = {
        "uuid": uuid or f"{type}-{name or 'unnamed'}",
        "submitter_uuid": "role",
        "name": name,
        "type": type,
        "required": True,
        "readonly": False,
        "preferences": {},
        "areas": [],
    }
    if type in ("select", "radio", "multiple"):
        result["options"] = [
            {"uuid": f"o{i}", "value": value}
            for i, value in enumerate(extra.pop("options", ["Red", "Green", "Blue, light"]))
        ]
    return {**result, **extra}


def invalid(call, *args) -> str:
    with pytest.raises(errors.Invalid) as failure:
        call(*args)
    assert failure.value.status == 422
    return failure.value.message


def normalized(type, value, **extra):
    return field_values.normalize(field(type, "Answer", **extra), value, WHERE)


def refusal(type, value, **extra):
    return invalid(field_values.normalize, field(type, "Answer", **extra), value, WHERE)


# Matching keys to fields


@pytest.mark.parametrize("key", ["full-name-uuid", "Full Name", "full_name", "full name", "FULL NAME"])
def test_a_value_is_matched_by_uuid_exact_name_snake_case_name_or_name_in_any_case(key):
    fields = [field("text", "Full Name", uuid="full-name-uuid")]
    assert field_values.prefill(fields, {key: "Bob"}, WHERE) == {"full-name-uuid": "Bob"}


def test_snake_case_matching_follows_rails_parameterize():
    fields = [field("text", "Prénom & Nom (légal)", uuid="name")]
    assert field_values.prefill(fields, {"prenom_nom_legal": "Zoé"}, WHERE) == {"name": "Zoé"}


def test_an_unnamed_field_is_reached_by_its_display_name_counted_per_type():
    fields = [
        field("text", "Name", uuid="a"),
        field("text", uuid="b"),
        field("date", uuid="c"),
        field("text", uuid="d"),
    ]
    values = {"Text Field 2": "second", "Text Field 3": "third", "Date Field 1": "2024-05-01"}
    assert field_values.prefill(fields, values, WHERE) == {"b": "second", "d": "third", "c": "2024-05-01"}


def test_an_exact_name_wins_over_a_case_insensitive_match():
    fields = [field("text", "name", uuid="lower"), field("text", "Name", uuid="upper")]
    assert field_values.prefill(fields, {"Name": "x"}, WHERE) == {"upper": "x"}


def test_a_name_shared_by_several_fields_fills_each():
    fields = [field("text", "Initials here", uuid="a"), field("text", "Initials here", uuid="b")]
    assert field_values.prefill(fields, {"initials_here": "BS"}, WHERE) == {"a": "BS", "b": "BS"}


def test_an_unknown_key_is_422_naming_it():
    assert invalid(field_values.prefill, [field("text", "Name")], {"Foo": "x"}, WHERE) == (
        "Unknown field: Foo in `submitters[0].values`."
    )


def test_one_field_given_under_two_keys_is_422():
    fields = [field("text", "Full Name", uuid="u")]
    assert invalid(field_values.prefill, fields, {"u": "a", "full_name": "b"}, WHERE) == (
        "Full Name is given twice in `submitters[0].values`."
    )


@pytest.mark.parametrize("values", [[], "x", 3])
def test_values_that_are_not_an_object_are_422(values):
    assert invalid(field_values.prefill, [], values, ("submitters", 2, "values")) == (
        "values must be a Object in `submitters[2]`."
    )


def test_absent_values_prefill_nothing_and_null_means_no_value():
    assert field_values.prefill([field("text", "Name", uuid="u")], None, WHERE) == {}
    assert field_values.prefill([field("text", "Name", uuid="u")], {"Name": None}, WHERE) == {"u": None}


def test_a_refused_value_names_an_unnamed_field_by_its_display_name():
    fields = [field("number", uuid="a"), field("number", uuid="b")]
    assert invalid(field_values.prefill, fields, {"Number Field 2": "many"}, WHERE) == (
        "Number Field 2 must be a number in `submitters[0].values`."
    )


# Checkbox


@pytest.mark.parametrize("value", [True, 1, "1", "true", "TRUE", "True", "yes", "YES", "Yes"])
def test_checkbox_true_values(value):
    assert normalized("checkbox", value) is True


@pytest.mark.parametrize("value", [False, 0, "0", "false", "FALSE", "False", "no", "NO", "No"])
def test_checkbox_false_values(value):
    assert normalized("checkbox", value) is False


@pytest.mark.parametrize("value", ["maybe", 2, "", 1.0, [], {}])
def test_checkbox_refuses_anything_else(value):
    assert refusal("checkbox", value) == "Answer must be true or false (or 1/0, yes/no) in `submitters[0].values`."


# Text, cells, phone


@pytest.mark.parametrize("type", ["text", "cells", "phone"])
@pytest.mark.parametrize("value, stored", [("12", "12"), (12, "12"), (12.5, "12.5")])
def test_text_cells_and_phone_store_strings_and_numbers_become_strings(type, value, stored):
    assert normalized(type, value) == stored


@pytest.mark.parametrize("type", ["text", "cells"])
@pytest.mark.parametrize("value", [True, ["a"], {"a": 1}])
def test_text_refuses_anything_but_strings_and_numbers(type, value):
    assert refusal(type, value) == "Answer must be a String in `submitters[0].values`."


@pytest.mark.parametrize("value", ["+49 151 2345678", "(555) 123-4567", " +1-202-555-0100 "])
def test_a_phone_number_may_hold_digits_spaces_plus_dashes_and_parentheses(value):
    assert normalized("phone", value) == value.strip()


@pytest.mark.parametrize("value", ["call me", "+49 151 ext. 5", "+"])
def test_a_phone_number_with_other_characters_is_422(value):
    assert refusal("phone", value) == (
        "Answer must be a phone number: digits, spaces, +, - and parentheses in `submitters[0].values`."
    )


# Number


@pytest.mark.parametrize(
    "value, stored",
    [
        (12, 12),
        (12.0, 12),
        (12.5, 12.5),
        ("12", 12),
        (" -3 ", -3),
        ("12.5", 12.5),
        ("12.0", 12),
        ("1e3", 1000),
        (".5", 0.5),
    ],
)
def test_a_number_is_an_int_when_integral_else_a_float(value, stored):
    result = normalized("number", value)
    assert result == stored and type(result) is type(stored)


@pytest.mark.parametrize("value", ["12 apples", "", "nan", "inf", "1_000", "١٢", True, [1], float("inf")])
def test_anything_but_a_number_or_numeric_string_is_422(value):
    assert refusal("number", value) == "Answer must be a number in `submitters[0].values`."


# Date


@pytest.mark.parametrize(
    "value",
    [
        "2024-05-03",
        "2024-05-03T10:00:00",
        "2024-05-03T10:00:00Z",
        "2024-05-02T23:30:00-02:00",
        "2024-05-04T01:00:00+02:00",
        1714736400,
    ],
)
def test_a_date_is_stored_as_yyyy_mm_dd_from_an_iso_date_timestamp_in_utc_or_unix_seconds(value):
    assert normalized("date", value) == "2024-05-03"


@pytest.mark.parametrize(
    "format, value",
    [
        ("DD/MM/YYYY", "03/05/2024"),
        ("MM/DD/YYYY", "05/03/2024"),
        ("DD.MM.YYYY", "3.5.2024"),
        ("YYYY-MM-DD", "2024-05-03"),
        ("D MMMM YYYY", "3 May 2024"),
        ("MMMM D, YYYY", "May 3, 2024"),
        ("DD-MM-YYYY", "03-05-2024"),
        ("MMM D, YYYY", "May 3, 2024"),
    ],
)
def test_a_date_may_be_given_in_the_fields_format(format, value):
    assert normalized("date", value, preferences={"format": format}) == "2024-05-03"


def test_without_a_format_a_date_is_read_as_dd_mm_yyyy():
    assert normalized("date", "03/05/2024") == "2024-05-03"


@pytest.mark.parametrize("value", ["3 May 2024", "May 3, 2024", "3 May 2024"])
def test_a_date_with_the_month_written_out_is_accepted_whatever_the_format(value):
    assert normalized("date", value, preferences={"format": "MM/DD/YYYY"}) == "2024-05-03"


def test_the_literal_date_placeholder_is_kept_for_completion():
    assert normalized("date", "{{date}}") == "{{date}}"


@pytest.mark.parametrize("value", ["31/02/2024", "tomorrow", "2024-13-01", "", True, 10**20, [2024]])
def test_an_invalid_date_is_422_naming_the_accepted_forms(value):
    assert refusal("date", value, preferences={"format": "DD/MM/YYYY"}) == (
        "Answer must be a date as YYYY-MM-DD or DD/MM/YYYY (or an ISO timestamp, or Unix seconds) "
        "in `submitters[0].values`."
    )


# Select, radio, multiple


@pytest.mark.parametrize("type", ["select", "radio"])
@pytest.mark.parametrize("value, stored", [("Green", "Green"), ("green", "Green"), ("GREEN", "Green")])
def test_a_choice_is_one_of_the_options_matched_in_any_case_giving_its_own_spelling(type, value, stored):
    assert normalized(type, value) == stored


def test_a_choice_prefers_the_option_spelled_exactly():
    assert normalized("select", "red", options=["Red", "red"]) == "red"


def test_a_numeric_choice_matches_a_numeric_option():
    assert normalized("radio", 2, options=["1", "2"]) == "2"


@pytest.mark.parametrize("type", ["select", "radio"])
@pytest.mark.parametrize("value", ["Purple", "", True, ["Red"]])
def test_a_choice_that_is_no_option_is_422_listing_the_options(type, value):
    assert refusal(type, value) == "Answer must be one of: Red, Green, Blue, light in `submitters[0].values`."


@pytest.mark.parametrize(
    "value, stored",
    [
        (["Red", "green"], ["Red", "Green"]),
        ("Red, Green", ["Red", "Green"]),
        ("Blue, light", ["Blue, light"]),
        ([], []),
        (["Red", "red"], ["Red"]),
    ],
)
def test_multiple_takes_an_array_or_a_comma_separated_string_of_options(value, stored):
    assert normalized("multiple", value) == stored


@pytest.mark.parametrize("value", [["Red", "Purple"], "Red, Purple", 3])
def test_multiple_refuses_values_that_are_no_option(value):
    assert "Answer must be" in refusal("multiple", value)


def test_multiple_that_is_neither_array_nor_string_is_422():
    assert refusal("multiple", {"Red": True}) == (
        "Answer must be an array of options or a comma-separated string in `submitters[0].values`."
    )


# Signature, initials, image, stamp, file


@pytest.mark.parametrize("type", ["signature", "initials", "image", "stamp"])
@pytest.mark.parametrize(
    "value", ["https://example.com/sign.png", PNG_BASE64, f"data:image/png;base64,{PNG_BASE64}", f"  {PNG_BASE64}\n"]
)
def test_an_image_value_is_an_upload_of_an_https_url_or_base64(type, value):
    assert normalized(type, value) == Upload(value.strip())


@pytest.mark.parametrize("type", ["signature", "initials"])
def test_a_short_plain_text_signature_is_typed(type):
    assert normalized(type, "  Bob   Smith ") == Typed("Bob Smith")


def test_a_typed_signature_is_shorter_than_60_characters():
    assert normalized("signature", "x" * 59) == Typed("x" * 59)
    assert refusal("signature", "Bob Smith " * 6 + "!") == (
        "Answer: Invalid value, url, base64 or text < 60 chars is expected: "
        "Bob Smith Bob Smith Bob Smith Bob Smith Bob Smith ... in `submitters[0].values`."
    )


@pytest.mark.parametrize("value", ["", "   ", 42, ["https://example.com/a.png"]])
def test_a_signature_that_is_no_url_base64_or_text_is_422(value):
    assert refusal("signature", value) == (
        f"Answer: Invalid value, url, base64 or text < 60 chars is expected: {value} in `submitters[0].values`."
    )


@pytest.mark.parametrize("type", ["image", "stamp", "file"])
def test_an_image_stamp_or_file_is_never_typed(type):
    assert refusal(type, "Bob Smith") == (
        "Answer: Invalid value, url or base64 is expected: Bob Smith in `submitters[0].values`."
    )


@pytest.mark.parametrize("type", ["signature", "image", "file"])
@pytest.mark.parametrize("url", ["http://example.com/a.png", "ftp://example.com/a.png"])
def test_only_https_urls_are_allowed(type, url):
    scheme = url.split(":")[0]
    assert refusal(type, url) == f"Answer: only https:// URLs are allowed, not {scheme}:// in `submitters[0].values`."


def test_a_file_is_one_upload_or_a_list_of_them():
    assert normalized("file", "https://example.com/a.pdf") == [Upload("https://example.com/a.pdf")]
    assert normalized("file", ["https://example.com/a.pdf", f"data:application/pdf;base64,{PNG_BASE64}"]) == [
        Upload("https://example.com/a.pdf"),
        Upload(f"data:application/pdf;base64,{PNG_BASE64}"),
    ]


FILE_ID = "0c792e72bacc4c3d9590ec33601b1d67"


@pytest.mark.parametrize("type", ["signature", "initials", "image", "stamp"])
def test_a_stored_files_id_is_a_file_id_whose_owner_is_checked_when_stored(type):
    assert normalized(type, f" {FILE_ID} ") == FileId(FILE_ID)


def test_a_file_field_takes_file_ids_among_its_uploads():
    assert normalized("file", [FILE_ID, "https://example.com/a.pdf"]) == [
        FileId(FILE_ID),
        Upload("https://example.com/a.pdf"),
    ]


@pytest.mark.parametrize("text", [FILE_ID.upper(), FILE_ID[:31], FILE_ID + "0"])
def test_only_32_lowercase_hex_characters_are_a_file_id(text):
    assert normalized("signature", text) == Typed(text)


def test_named_files_are_what_a_file_fields_value_or_default_holds():
    assert field_values.named_files(field("image"), FILE_ID) == [FILE_ID]
    assert field_values.named_files(field("file"), [FILE_ID, "x"]) == [FILE_ID, "x"]
    assert field_values.named_files(field("file"), "") == []
    assert field_values.named_files(field("text"), FILE_ID) == []


def test_an_upload_knows_whether_it_is_a_url():
    assert Upload("HTTPS://example.com/a.png").is_url and not Upload(PNG_BASE64).is_url


# Display


def link(uuid):
    return f"https://signsvc.test/file/{uuid}"


@pytest.mark.parametrize("type", ["signature", "initials", "image", "stamp"])
def test_an_image_value_is_shown_as_its_file_link(type):
    assert field_values.display(field(type), "blob-1", link) == "https://signsvc.test/file/blob-1"


def test_a_file_value_is_shown_as_a_list_of_links():
    assert field_values.display(field("file"), ["b1", "b2"], link) == [link("b1"), link("b2")]


def test_a_file_the_link_function_will_not_link_is_shown_as_nothing():
    only_b1 = {"b1": link("b1")}.get
    assert field_values.display(field("image"), "b2", only_b1) is None
    assert field_values.display(field("file"), ["b1", "b2"], only_b1) == [link("b1")]


@pytest.mark.parametrize(
    "type, stored",
    [
        ("checkbox", True),
        ("number", 12.5),
        ("multiple", ["Red"]),
        ("date", "2024-05-03"),
        ("text", "Bob"),
        ("signature", None),
    ],
)
def test_other_values_are_shown_as_stored(type, stored):
    assert field_values.display(field(type), stored, link) == stored


def test_named_gives_unnamed_fields_type_field_n_counted_per_type():
    fields = [field("text", "Name", uuid="a"), field("text", uuid="b"), field("signature", uuid="c")]
    assert [each["name"] for each in field_values.named(fields)] == ["Name", "Text Field 2", "Signature Field 1"]


def test_named_copies_fields_giving_unnamed_ones_their_display_name():
    fields = [field("text", uuid="b")]
    assert field_values.named(fields)[0]["name"] == "Text Field 1" and fields[0]["name"] == ""


# Required fields


def test_the_first_required_editable_field_without_a_value_is_missing():
    fields = [field("text", "A", uuid="a"), field("text", "B", uuid="b"), field("text", "C", uuid="c")]
    assert field_values.missing_required(fields, {"a": "x"})["uuid"] == "b"


@pytest.mark.parametrize("value", [None, "", "  ", [], False])
def test_empty_values_and_an_unticked_checkbox_do_not_fill_a_required_field(value):
    assert field_values.missing_required([field("checkbox", "Agree", uuid="a")], {"a": value})["uuid"] == "a"


@pytest.mark.parametrize("value", [0, True, "x", ["Red"]])
def test_a_value_fills_a_required_field(value):
    assert field_values.missing_required([field("text", "A", uuid="a")], {"a": value}) is None


@pytest.mark.parametrize("extra", [{"required": False}, {"readonly": True}, {"default_value": "preset"}])
def test_optional_readonly_and_prefilled_fields_are_never_missing(extra):
    assert field_values.missing_required([field("text", "A", uuid="a", **extra)], {}) is None


def test_a_stamp_is_never_missing_as_it_is_made_at_completion():
    assert field_values.missing_required([field("stamp", "Stamp", uuid="s")], {}) is None


def test_the_form_gets_no_pattern_the_service_refuses_as_it_treats_it_as_no_pattern():
    old = field("text", "Old", validation={"pattern": "(?i)abc", "message": "ABC"})
    kept = field("text", "Kept", validation={"pattern": "[a-c]+", "message": "abc"})
    shown = field_values.form_rules([old, kept])
    assert shown[0]["validation"] == {"message": "ABC"} and old["validation"]["pattern"] == "(?i)abc"
    assert shown[1] is kept
