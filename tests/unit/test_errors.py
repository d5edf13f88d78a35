"""A refusal's place in the request body is data of the error; its message says the same place in the API's words."""

from datetime import UTC, datetime

import pytest

from signsvc.infra import errors
from signsvc.submissions import inputs

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def refused(body: dict) -> errors.Invalid:
    with pytest.raises(errors.Invalid) as failure:
        inputs.parse(body, NOW)
    return failure.value


def test_an_invalid_email_of_the_second_signer_has_its_location_as_parts_and_the_message_as_the_api_answers():
    invalid = refused({"template_id": 1, "submitters": [{"email": "ann@example.com"}, {"email": "bob@example"}]})
    assert invalid.location == ("submitters", 1, "email")
    assert (invalid.field, invalid.path) == ("email", "submitters[1].email")
    assert invalid.message == "email is invalid in `submitters[1]`."


def test_a_located_message_is_the_message_alone_at_the_top_of_the_body():
    invalid = errors.located("expire_at must be in the future", (), "expire_at")
    assert (invalid.message, invalid.location, invalid.field) == (
        "expire_at must be in the future",
        ("expire_at",),
        "expire_at",
    )


def test_a_refusal_about_a_whole_entry_has_the_entry_as_its_location_and_no_field():
    invalid = refused({"template_id": 1, "submitters": [{"email": "ann@example.com"}, {"role": "Second Party"}]})
    assert (invalid.location, invalid.field) == (("submitters", 1), "submitters")
    assert invalid.message == "email or phone or name is required in `submitters[1]`."


def test_a_refusal_named_by_its_path_first_writes_the_path_as_the_api_does():
    invalid = errors.at(("events", 2), "'x' is not an event type")
    assert (invalid.message, invalid.field, invalid.path) == (
        "events[2] 'x' is not an event type",
        "events",
        "events[2]",
    )


def test_a_refusal_of_no_one_value_has_an_empty_location():
    invalid = errors.Invalid("Template has been archived")
    assert (invalid.location, invalid.field, invalid.path) == ((), "", "")


@pytest.mark.parametrize(
    "expected,wording", [(str, "must be a String"), (list, "must be a Array"), (dict, "must be a Object")]
)
def test_types_are_named_as_the_reference_names_them(expected, wording):
    assert errors.must_be(expected) == wording
