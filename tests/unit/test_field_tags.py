"""The field-tag grammar shared by PDF and DOCX text tags and HTML field tags: a tag body read into attributes,
attributes into a field input as `documents[].fields[]` items take it, and tags with their boxes into fields
with areas."""

import pytest

from signsvc.infra import errors
from signsvc.pdf.boxes import Box
from signsvc.templates import field_tags, template_fields
from signsvc.templates.field_tags import PlacedTag

LETTER = (612.0, 792.0)


def refusal(body: str) -> str:
    with pytest.raises(errors.Invalid) as refused:
        field_tags.field_input(field_tags.attributes(body), tag=f"{{{{{body}}}}}", where=("documents", 0))
    return str(refused.value)


def placed(body: str, page: int = 0, x: float = 0.1, y: float = 0.2) -> PlacedTag:
    return PlacedTag(f"{{{{{body}}}}}", field_tags.attributes(body), Box(page, x, y, 0.3, 0.02, *LETTER))


def test_body_first_segment_without_equals_is_the_name_and_a_trailing_semicolon_is_tolerated():
    assert field_tags.attributes("Full Name;type=signature;role=Client;") == {
        "name": "Full Name",
        "type": "signature",
        "role": "Client",
    }


def test_body_name_may_be_omitted_and_keys_are_read_in_any_case_with_hyphens_as_underscores():
    assert field_tags.attributes("type=checkbox; Font-Size = 12 ") == {"type": "checkbox", "font_size": "12"}


def test_body_value_may_hold_equals_signs():
    assert field_tags.attributes("X;pattern=a=b")["pattern"] == "a=b"


def test_body_segment_without_equals_after_the_first_is_refused_naming_the_tag():
    with pytest.raises(errors.Invalid) as refused:
        field_tags.attributes("Name;required", where=("documents", 1))
    assert str(refused.value) == "documents[1]: tag {{Name;required}}: required is not an attribute: write key=value"


def test_body_repeated_key_is_refused():
    with pytest.raises(errors.Invalid, match="type is given twice"):
        field_tags.attributes("A;type=text;TYPE=date")


def test_field_defaults_are_a_required_editable_text_field():
    assert field_tags.field_input({"name": "Full Name"}) == {
        "name": "Full Name",
        "type": "text",
        "required": True,
        "readonly": False,
        "preferences": {},
    }


def test_field_datenow_is_a_readonly_date_defaulting_to_the_day_of_signing():
    field = field_tags.field_input(field_tags.attributes("Date;type=datenow;role=Customer"))
    assert field["type"] == "date" and field["readonly"] is True and field["default_value"] == "{{date}}"
    assert field["role"] == "Customer"


def test_field_attributes_map_to_the_field_input_shape():
    field = field_tags.field_input(
        field_tags.attributes(
            "Amount;type=number;required=false;readonly=true;default=5;title=T;description=D;condition=Plan:Pro;"
            "min=1;max=10;font=Courier;font-size=12;font_type=bold;color=red;align=right;valign=top;format=usd"
        )
    )
    assert field == {
        "name": "Amount",
        "type": "number",
        "required": False,
        "readonly": True,
        "default_value": "5",
        "title": "T",
        "description": "D",
        "conditions": "Plan:Pro",
        "preferences": {
            "font": "Courier",
            "font_type": "bold",
            "color": "red",
            "align": "right",
            "valign": "top",
            "format": "usd",
            "font_size": 12,
        },
        "validation": {"min": "1", "max": "10"},
    }


def test_field_options_mask_pattern_payment_and_verification_preferences():
    select = field_tags.field_input(field_tags.attributes("Dept;type=select;options=Sales, HR,,Sales"))
    assert select["options"] == ["Sales", "HR"]
    text = field_tags.field_input(field_tags.attributes("SSN;mask=-4;pattern=[0-9]{9}"))
    assert text["preferences"] == {"mask": -4} and text["validation"] == {"pattern": "[0-9]{9}"}
    assert field_tags.field_input(field_tags.attributes("S;mask=true"))["preferences"] == {"mask": True}
    stamp = field_tags.field_input(field_tags.attributes("S;type=stamp;price=9.5;currency=EUR;method=QES"))
    assert stamp["preferences"] == {"currency": "EUR", "price": 9.5, "method": "qes"}


def test_field_unknown_attribute_is_refused_naming_the_tag_and_the_attribute():
    assert refusal("Sign;colour=red").startswith("documents[0]: tag {{Sign;colour=red}}: colour is not a tag attribute")


def test_field_bad_values_are_refused_naming_the_tag_and_the_attribute():
    assert refusal("S;type=seal").startswith("documents[0]: tag {{S;type=seal}}: type must be one of: text,")
    assert (
        refusal("S;required=yes") == "documents[0]: tag {{S;required=yes}}: required must be true or false, not 'yes'"
    )
    assert refusal("S;font_size=big") == "documents[0]: tag {{S;font_size=big}}: font_size must be a number, not 'big'"
    assert refusal("S;method=x") == "documents[0]: tag {{S;method=x}}: method must be one of: aes, qes"
    assert refusal("S;type=radio") == (
        "documents[0]: tag {{S;type=radio}}: options is required for a radio tag: options=A,B or option=A"
    )


def test_field_values_are_checked_by_the_explicit_fields_rules():
    assert (
        refusal("S;font=Arial") == "documents[0]: tag {{S;font=Arial}}: font must be one of: Times, Helvetica, Courier"
    )
    assert refusal("S;type=signature;format=ink").startswith(
        "documents[0]: tag {{S;type=signature;format=ink}}: format must be one of: drawn,"
    )
    assert refusal("D;type=date;format=YYYY").startswith(
        "documents[0]: tag {{D;type=date;format=YYYY}}: format must name"
    )
    assert refusal("N;pattern=[a-").startswith("documents[0]: tag {{N;pattern=[a-}}: pattern is invalid")
    assert refusal("N;min=soon").startswith("documents[0]: tag {{N;min=soon}}: min must be a number")


def test_tags_become_fields_with_areas_at_their_boxes_on_1_based_pages():
    fields = field_tags.fields_of_tags([placed("Name", page=0, x=0.1, y=0.2), placed("Sig;type=signature", page=2)])
    assert [field["name"] for field in fields] == ["Name", "Sig"]
    assert fields[0]["areas"] == [{"x": 0.1, "y": 0.2, "w": 0.3, "h": 0.02, "page": 1}]
    assert fields[0]["tag"] == "{{Name}}"
    assert fields[1]["areas"][0]["page"] == 3


def test_tags_of_the_same_name_and_role_are_one_field_whose_first_tag_type_wins():
    fields = field_tags.fields_of_tags(
        [placed("Full Name;type=text", y=0.1), placed("full name;type=signature", y=0.5), placed("Full Name;role=B")]
    )
    assert len(fields) == 2
    assert fields[0]["type"] == "text" and [area["y"] for area in fields[0]["areas"]] == [0.1, 0.5]
    assert fields[1]["role"] == "B"


def test_nameless_tags_are_each_a_field():
    assert len(field_tags.fields_of_tags([placed("type=checkbox"), placed("type=checkbox")])) == 2


def test_radio_option_tags_become_the_options_each_area_naming_its_option():
    (field,) = field_tags.fields_of_tags(
        [placed("Plan;type=radio;option=Basic", y=0.1), placed("Plan;type=radio;option=Pro", y=0.2)]
    )
    assert field["options"] == ["Basic", "Pro"]
    assert [(area["y"], area["option"]) for area in field["areas"]] == [(0.1, "Basic"), (0.2, "Pro")]


def test_width_and_height_are_points_and_areas_stay_inside_the_page():
    (field,) = field_tags.fields_of_tags([placed("Sig;width=306;height=79.2", x=0.9)])
    area = field["areas"][0]
    assert area["x"] == 0.9 and area["w"] == pytest.approx(0.1) and area["h"] == pytest.approx(0.1)
    with pytest.raises(errors.Invalid, match="width must be a number of points above 0"):
        field_tags.fields_of_tags([placed("Sig;width=wide")])


def test_hidden_tag_gives_a_field_without_areas():
    (field,) = field_tags.fields_of_tags([placed("Ref;hidden=true"), placed("Ref")])
    assert field["areas"] == []


def test_explicit_fields_win_over_tags_of_the_same_name():
    tags = field_tags.fields_of_tags([placed("Name"), placed("Other"), placed("type=checkbox")])
    assert [field["name"] for field in field_tags.without_named(tags, ["name"])] == ["Other", ""]


def test_tag_fields_are_taken_by_the_explicit_fields_reader():
    tags = field_tags.fields_of_tags(
        [placed("Plan;type=radio;role=Client;option=Basic"), placed("Plan;type=radio;role=Client;option=Pro", y=0.5)]
    )
    roles = template_fields.Roles()
    (field,) = template_fields.fields(tags, roles, [template_fields.Page("doc", 1)], ("tags",), first_page=1)
    assert [role["name"] for role in roles.items] == ["Client"]
    assert [area["option_uuid"] for area in field["areas"]] == [option["uuid"] for option in field["options"]]
    assert field["areas"][0]["page"] == 0
