"""Formulas: the reader, the calculator and the field rules, on the cases shared with the signing form
(tests/files/formula_cases.json, also run in chromium by tests/browser/test_formulas.py), and the rules a
template's formulas must keep when saved."""

import pytest

from signsvc.infra import errors
from signsvc.templates import formula_calculator, formula_syntax, formulas
from signsvc.templates.formula_syntax import FormulaError
from tests.support.formula_cases import TABLE, documented_examples, expected


def answer(compute) -> dict:
    try:
        return {"value": compute()}
    except FormulaError as error:
        return {"error": error.message}


def case_fields(case: dict) -> list[dict]:
    result = {"uuid": "result", "name": "Result", "type": case["type"], "preferences": {"formula": case["formula"]}}
    return [*TABLE["fields"], *case.get("extra", []), result]


@pytest.mark.parametrize("case", TABLE["calculations"], ids=lambda case: case["rule"])
def test_the_calculator_answers_each_shared_case_as_the_table_says(case):
    assert answer(lambda: formulas.calculate(case["expression"])) == expected(case)


@pytest.mark.parametrize("case", TABLE["formulas"], ids=lambda case: case["rule"])
def test_a_formula_field_answers_each_shared_case_as_the_table_says(case):
    assert answer(lambda: formulas.compute(case_fields(case), case["values"], "result")) == expected(case)


def test_the_reader_makes_trees_with_the_precedence_of_the_grammar():
    assert formula_syntax.parse("1 + 2 * -3 ^ 2") == (
        "op",
        "+",
        ("num", 1.0),
        ("op", "*", ("num", 2.0), ("op", "^", ("neg", ("num", 3.0)), ("num", 2.0))),
    )
    assert formula_syntax.parse("TRUE && false || null") == (
        "op",
        "or",
        ("op", "and", ("bool", True), ("bool", False)),
        ("null",),
    )


def test_the_reader_finds_references_in_the_order_written():
    tree = formula_syntax.parse("sum({{b}}, {1, {{a}}}) + if({{c}} > 0, {{b}}, 0)")
    assert formula_syntax.references(tree) == ["b", "a", "c", "b"]


def test_a_pathological_formula_is_refused_quickly_and_never_overflows_the_stack():
    for text in ("-" * 1999 + "1", "2^" * 999 + "2", "(" * 999 + "1" + ")" * 999, " {" * 600 + "}" * 600):
        with pytest.raises(FormulaError, match="nests too deeply"):
            formula_syntax.parse(text)


def test_numbers_are_shown_plain_with_at_most_ten_decimals():
    assert [formula_calculator.plain(n) for n in (0.1 + 0.2, 1e15, -1e-11, 2 / 3, 0.00048828125, -0.0)] == [
        "0.3",
        "1000000000000000",
        "0",
        "0.6666666667",
        "0.0004882813",  # an exact half at the eleventh decimal goes away from zero, as JavaScript's toFixed
        "0",
    ]
    assert formula_calculator.stored(2.50) == 2.5 and isinstance(formula_calculator.stored(4.0), int)


@pytest.mark.parametrize(("formula", "shown"), documented_examples())
def test_every_example_of_the_documentation_gives_the_result_it_shows(formula, shown):
    assert answer(lambda: formulas.calculate(formula)) == shown


def test_the_documentation_shows_examples():
    assert len(documented_examples()) >= 15


# Saving: formulas.checked


def field(uuid: str, kind: str = "number", formula: str | None = None, **more) -> dict:
    return {
        "uuid": uuid,
        "name": more.pop("name", uuid.capitalize()),
        "type": kind,
        "required": True,
        "readonly": False,
        "preferences": {"formula": formula} if formula is not None else {},
        **more,
    }


def refusal(fields: list[dict]) -> str:
    with pytest.raises(errors.Invalid) as refused:
        formulas.checked(fields)
    return refused.value.message


def test_references_by_name_are_stored_as_uuids_and_formula_fields_are_read_only():
    saved = formulas.checked([field("q", name="Quantity"), field("t", formula="{{ quantity }} * 2 + {{q}}")])
    assert saved[1]["preferences"]["formula"] == "{{q}} * 2 + {{q}}"
    assert saved[1]["readonly"] is True and saved[0]["readonly"] is False


def test_a_reference_to_no_field_is_refused_naming_the_field():
    assert refusal([field("t", formula="{{Qty}} * 2")]) == "T: preferences.formula refers to an unknown field: {{Qty}}"


def test_a_reference_to_a_name_two_fields_share_is_refused():
    fields = [field("a", name="Amount"), field("b", name="Amount"), field("t", formula="{{Amount}}")]
    assert refusal(fields) == "T: preferences.formula refers to {{Amount}}, the name of 2 fields: use a uuid"


def test_an_unreadable_formula_is_refused_with_the_readers_reason():
    assert refusal([field("t", formula="1 +* 2")]) == (
        "T: preferences.formula cannot be read: expected a value at 4, found '*'"
    )


def test_a_formula_that_is_not_text_is_refused():
    assert refusal([field("t", formula=None, preferences={"formula": 12})]) == "T: preferences.formula must be a String"


def test_a_formula_on_a_field_that_is_not_number_or_text_is_refused():
    assert refusal([field("d", "date", formula="1")]) == (
        "D: preferences.formula is for number and text fields, not a date field"
    )


def test_a_number_formula_may_refer_only_to_numbers_and_numeric_options():
    options = [{"uuid": "o1", "value": "1"}, {"uuid": "o2", "value": "Two"}]
    assert refusal([field("p", "radio", options=options), field("t", formula="{{p}}")]) == (
        "T: preferences.formula refers to P, a radio field: a number formula may refer to number fields, and to "
        "radio and select fields whose options are all numbers"
    )
    numeric = [{"uuid": "o1", "value": "1"}, {"uuid": "o2", "value": "2.5"}]
    assert formulas.checked([field("p", "select", options=numeric), field("t", formula="{{p}}")])


def test_a_text_formula_may_not_refer_to_a_signature():
    assert refusal([field("s", "signature"), field("t", "text", formula="Signed: {{s}}")]) == (
        "T: preferences.formula refers to S, a signature field: a text formula may refer to text, number, select, "
        "radio, cells and phone fields"
    )


def test_a_formula_referring_to_itself_is_refused():
    assert refusal([field("t", formula="{{t}} + 1")]) == "T: preferences.formula refers to itself: T → T"


def test_a_cycle_through_other_formulas_is_refused_naming_its_fields():
    fields = [field("a", formula="{{b}}"), field("b", formula="{{c}} * 2"), field("c", formula="{{a}} + 1")]
    assert refusal(fields) == "A: preferences.formula refers to itself: A → B → C → A"


def chain(length: int) -> list[dict]:
    """`length` formula fields, each referring to the next, the last to a number."""
    fields = [field(f"f{i}", formula=f"{{{{f{i + 1}}}}} + 1") for i in range(length - 1)]
    return [*fields, field(f"f{length - 1}", formula="{{n}}"), field("n")]


def test_formulas_nest_ten_deep_and_no_deeper():
    assert formulas.checked(chain(11))  # the first, and ten formulas inside it
    assert refusal(chain(12)) == "F0: preferences.formula nests formulas more than 10 deep"


def test_a_long_formula_is_refused():
    assert refusal([field("t", formula="1" + " " * 2000)]) == "T: preferences.formula is longer than 2000 characters"


def test_a_blank_formula_is_no_formula():
    saved = formulas.checked([field("t", formula="  ")])
    assert saved[0]["readonly"] is False and not formulas.is_formula(saved[0])


def test_a_copy_renames_the_uuids_its_formulas_name():
    copied = formulas.renamed([field("t", formula="{{a}} + {{ b }}")], {"a": "x", "b": "y"})
    assert copied[0]["preferences"]["formula"] == "{{x}} + {{y}}"
