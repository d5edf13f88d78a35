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


# Scale and loops across conditions, formulas and documents


def chain(count: int) -> list[dict]:
    """`count` text fields, each shown only while the one after it has a value (dependents first)."""
    return [
        {
            "uuid": f"f-{i}",
            "name": f"Field {i}",
            "type": "text",
            **({"conditions": [{"field_uuid": f"f-{i + 1}", "action": "not_empty"}]} if i + 1 < count else {}),
        }
        for i in range(count)
    ]


def test_a_chain_of_a_thousand_conditions_is_decided_without_recursion():
    fields = chain(1000)
    everything = {f"f-{i}": "x" for i in range(1000)}
    assert conditions.hidden_fields(fields, everything) == set()
    assert conditions.hidden_fields(fields, {**everything, "f-999": ""}) == {f"f-{i}" for i in range(999)}


def test_the_loop_check_on_save_is_linear_a_thousand_field_chain_and_a_dense_template_are_quick():
    import time

    started = time.perf_counter()
    condition_rules.checked_fields(chain(1000), [("fields", i) for i in range(1000)])
    dense = [
        {
            "uuid": f"f-{i}",
            "name": f"Field {i}",
            "type": "text",
            "conditions": [{"field_uuid": f"f-{j}", "action": "not_empty"} for j in range(i + 1, min(i + 6, 300))],
        }
        for i in range(300)
    ]
    condition_rules.checked_fields(dense, [("fields", i) for i in range(300)])
    assert time.perf_counter() - started < 1.0


def test_a_long_loop_is_refused_naming_its_fields_in_order():
    fields = chain(500)
    fields[-1] = {**fields[-1], "conditions": [{"field_uuid": "f-0", "action": "not_empty"}]}
    with pytest.raises(errors.Invalid) as refused:
        condition_rules.checked_fields(fields, [("fields", i) for i in range(500)])
    assert str(refused.value).startswith("fields[0].conditions depend on the field itself: Field 0 -> Field 1 -> ")
    assert str(refused.value).endswith(" -> Field 499 -> Field 0")


def test_more_than_five_thousand_conditions_on_a_template_are_refused():
    fields = [
        {"uuid": f"f-{i}", "name": f"F{i}", "type": "text", "conditions": [{"field_uuid": "g", "action": "not_empty"}]}
        for i in range(5001)
    ]
    with pytest.raises(errors.Invalid) as refused:
        condition_rules.refuse_loops([*fields, {"uuid": "g", "name": "G", "type": "text"}], {})
    assert str(refused.value) == "the template has 5001 conditions: at most 5000"


def test_a_loop_through_a_document_is_refused():
    a = {"uuid": "a", "name": "A", "type": "text", "areas": [{"attachment_uuid": "doc-d"}]}
    b = {"uuid": "b", "name": "B", "type": "text", "conditions": [{"field_uuid": "a", "action": "not_empty"}]}
    with pytest.raises(errors.Invalid) as refused:
        condition_rules.refuse_loops([a, b], {"doc-d": [{"field_uuid": "b", "action": "not_empty"}]})
    assert str(refused.value) == "conditions and formulas depend on each other in a loop: A -> document doc-d -> B -> A"


def test_a_loop_between_a_condition_and_a_formula_is_refused():
    total = {"uuid": "t", "name": "Total", "type": "number", "preferences": {"formula": "{{q}} * 2"}}
    qty = {"uuid": "q", "name": "Qty", "type": "number", "conditions": [{"field_uuid": "t", "action": "not_empty"}]}
    with pytest.raises(errors.Invalid) as refused:
        condition_rules.refuse_loops([total, qty], {})
    assert str(refused.value) == "conditions and formulas depend on each other in a loop: Total -> Qty -> Total"
