"""Conditions as templates take them: the text-tag and HTML shorthand `condition=Field:value` read into the
structure the API stores, and the checks a template's conditions pass when it is saved."""

import pytest

from signsvc.infra import errors
from signsvc.submissions import conditions
from signsvc.templates import condition_rules

PLAN = {
    "uuid": "f-plan",
    "name": "Plan",
    "type": "radio",
    "options": [{"uuid": "o-1", "value": "Basic"}, {"uuid": "o-2", "value": "Pro"}],
}
AGREE = {"uuid": "f-agree", "name": "Agree", "type": "checkbox"}
EXTRAS = {"uuid": "f-extras", "name": "Extras", "type": "multiple", "options": [{"uuid": "o-3", "value": "Parking"}]}
AMOUNT = {"uuid": "f-amount", "name": "Amount", "type": "number"}
NAME = {"uuid": "f-name", "name": "Full Name", "type": "text"}
TIME = {"uuid": "f-time", "name": "Time: start", "type": "text"}
FIELDS = [PLAN, AGREE, EXTRAS, AMOUNT, NAME, TIME]


def parse(text: str):
    return condition_rules.parse_shorthand(text, FIELDS, ("condition",))


def refusal(text: str) -> str:
    with pytest.raises(errors.Invalid) as refused:
        parse(text)
    return str(refused.value)


def test_shorthand_field_alone_means_the_field_is_not_empty():
    assert parse("Agree") == [{"field_uuid": "f-agree", "action": "not_empty"}]
    assert parse(" Full Name ") == [{"field_uuid": "f-name", "action": "not_empty"}]


def test_shorthand_field_colon_option_means_equal_to_that_option_by_its_uuid():
    assert parse("Plan:Pro") == [{"field_uuid": "f-plan", "action": "equal", "value": "o-2"}]


def test_shorthand_on_a_multiple_field_means_contains():
    assert parse("Extras:Parking") == [{"field_uuid": "f-extras", "action": "contains", "value": "o-3"}]


def test_shorthand_on_a_checkbox_reads_true_and_false_as_checked_and_unchecked():
    assert parse("Agree:true") == [{"field_uuid": "f-agree", "action": "checked"}]
    assert parse("Agree:FALSE") == [{"field_uuid": "f-agree", "action": "unchecked"}]
    assert refusal("Agree:maybe") == "condition must be true or false for the checkbox Agree: maybe"


def test_shorthand_on_a_number_field_needs_a_number():
    assert parse("Amount:1000") == [{"field_uuid": "f-amount", "action": "equal", "value": "1000"}]
    assert refusal("Amount:lots") == "condition must be a number for equal on Amount: lots"


def test_shorthand_on_a_text_field_is_the_whole_text():
    assert parse("Full Name:Ann") == [{"field_uuid": "f-name", "action": "equal", "value": "Ann"}]


def test_shorthand_names_a_field_in_any_case_or_by_uuid():
    assert parse("plan:Pro") == parse("f-plan:Pro") == parse("Plan:Pro")


def test_shorthand_reads_a_name_that_holds_a_colon():
    assert parse("Time: start") == [{"field_uuid": "f-time", "action": "not_empty"}]
    assert parse("Time: start:9") == [{"field_uuid": "f-time", "action": "equal", "value": "9"}]


def test_shorthand_naming_no_field_or_no_option_is_refused_naming_it():
    assert refusal("Colour:Red") == "condition names no field of the template: Colour"
    assert refusal("Plan:Gold") == "condition names no option of Plan: Gold"
    assert refusal("  ") == "condition is empty: write Field, or Field:value"


def test_shorthand_parses_to_the_structure_the_rules_evaluate():
    company = {"uuid": "f-company", "name": "Company", "type": "text", "conditions": parse("Plan:Pro")}
    assert conditions.hidden_fields([PLAN, company], {"f-plan": "Pro"}) == set()
    assert conditions.hidden_fields([PLAN, company], {"f-plan": "Basic"}) == {"f-company"}


def test_a_field_that_depends_on_itself_directly_is_refused():
    own = {**NAME, "conditions": [{"field_uuid": "f-name", "action": "not_empty"}]}
    with pytest.raises(errors.Invalid) as refused:
        condition_rules.checked_fields([own], [("fields", 0)])
    assert str(refused.value) == "fields[0].conditions depend on the field itself: Full Name -> Full Name"


def test_an_and_operation_is_stored_as_none_and_an_empty_list_as_no_conditions():
    given = [
        {**NAME, "conditions": []},
        {**AMOUNT, "conditions": [{"field_uuid": "f-name", "action": "empty", "operation": "and"}]},
    ]
    checked = condition_rules.checked_fields(given, [("fields", 0), ("fields", 1)])
    assert "conditions" not in checked[0]
    assert checked[1]["conditions"] == [{"field_uuid": "f-name", "action": "empty"}]
