"""Formulas: the reader, the calculator and the field rules, on the cases shared with the signing form
(tests/files/formula_cases.json, also run in chromium by tests/browser/test_formulas.py), and the rules a
template's formulas must keep when saved."""

import tracemalloc

import pytest

from signsvc.infra import errors
from signsvc.templates import formula_calculator, formula_checks, formula_syntax, formulas
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


def test_the_heights_of_formulas_inside_one_another_add_up_to_at_most_200_when_computed():
    # Eleven formulas nested, each 200 operations high, as a template saved before the bound could hold them: an
    # error, never the stack's overflow.
    fields = high_chain(11)
    with pytest.raises(FormulaError) as refused:
        formulas.compute(fields, {"n": 1}, "f0")
    assert refused.value.message == "the formula nests too deeply"


def test_a_texts_length_is_checked_as_each_reference_is_replaced():
    # 100 references to a value of a million characters: refused before a hundred million are put together.
    fields = [field("n", "text"), field("t", "text", formula="{{n}}" * 100)]
    tracemalloc.start()
    try:
        with pytest.raises(FormulaError, match="a text is longer than 10000 characters"):
            formulas.compute(fields, {"n": "x" * 1_000_000}, "t")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20_000_000


def test_a_change_of_case_that_lengthens_a_text_beyond_10000_characters_is_an_error():
    longest = ("call", "upcase", [("str", "ß" * 5001)])  # 10,002 characters once upper-cased
    with pytest.raises(FormulaError, match="a text is longer than 10000 characters"):
        formula_calculator.evaluate(longest, lambda uuid: 0.0)
    assert formula_calculator.evaluate(("call", "upcase", [("str", "ß" * 5000)]), lambda uuid: 0.0) == "SS" * 5000


def test_a_number_shown_in_a_text_formula_is_within_1e15():
    fields = [field("n"), field("t", "text", formula="n={{n}}")]
    for value in (10**20, 10**400, 1e20):
        with pytest.raises(FormulaError, match="number out of range"):
            formulas.compute(fields, {"n": value}, "t")


def test_a_formula_stored_naming_fields_by_name_is_computed_with_the_fields_it_names():
    # Templates saved before formulas were checked may hold names: they are found as saving finds them.
    fields = [field("q", name="Quantity"), field("t", formula="{{Quantity}} * {{ quantity }}")]
    assert formulas.compute(fields, {"q": 3}, "t") == 9
    fields = [field("q", name="Quantity"), field("t", formula="{{Cost}} * 2")]
    with pytest.raises(FormulaError, match="names no field"):
        formulas.compute(fields, {}, "t")


def test_a_computation_reads_each_formula_once():
    fields = [field("q"), field("s", formula="{{q}} * 2"), field("a", formula="{{s}} + 1"), field("b", formula="{{s}}")]
    computation = formulas.Computation(fields, {"q": 2})
    assert [computation.stored(uuid) for uuid in ("a", "b", "s")] == [5, 4, 4]
    assert sorted(computation.readings) == ["a", "b", "s"]


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


# Saving: formula_checks.checked


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
        formula_checks.checked(fields)
    return refused.value.message


def test_references_by_name_are_stored_as_uuids():
    saved = formula_checks.checked([field("q", name="Quantity"), field("t", formula="{{ quantity }} * 2 + {{q}}")])
    assert saved[1]["preferences"]["formula"] == "{{q}} * 2 + {{q}}"


def test_saving_a_formula_does_not_make_its_field_read_only():
    # Were it saved read-only, the field would stay so once its formula is removed.
    saved = formula_checks.checked([field("q", name="Quantity"), field("t", formula="{{Quantity}} * 2")])
    assert saved[1]["readonly"] is False
    removed = formula_checks.checked([saved[0], {**saved[1], "preferences": {}}])
    assert removed[1]["readonly"] is False and not formulas.is_formula(removed[1])


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


def test_a_formula_on_a_field_that_is_not_number_or_text_is_kept_and_not_computed():
    [kept] = formula_checks.checked([field("d", "date", formula="1")])
    assert kept["preferences"]["formula"] == "1" and not formulas.is_formula(kept)


def test_a_number_formula_may_refer_only_to_numbers_and_numeric_options():
    options = [{"uuid": "o1", "value": "1"}, {"uuid": "o2", "value": "Two"}]
    assert refusal([field("p", "radio", options=options), field("t", formula="{{p}}")]) == (
        "T: preferences.formula refers to P, a radio field: a number formula may refer to number fields, and to "
        "radio and select fields whose options are all numbers"
    )
    numeric = [{"uuid": "o1", "value": "1"}, {"uuid": "o2", "value": "2.5"}]
    assert formula_checks.checked([field("p", "select", options=numeric), field("t", formula="{{p}}")])


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


def high_chain(length: int) -> list[dict]:
    """`length` formula fields, each 200 operations high, each referring to the next, the last to a number."""
    ones = " + 1" * 198
    fields = [field(f"f{i}", formula=f"{{{{f{i + 1}}}}}{ones}") for i in range(length - 1)]
    return [*fields, field(f"f{length - 1}", formula=f"{{{{n}}}}{ones}"), field("n")]


def test_formulas_inside_one_another_more_than_200_operations_high_in_all_are_refused():
    assert refusal(high_chain(2)) == (
        "F0: preferences.formula is more than 200 operations high with the formulas inside it"
    )
    assert formula_checks.checked([field("a", formula="1" + " + 1" * 99), field("b", formula="{{a}}" + " + 1" * 99)])


def chain(length: int) -> list[dict]:
    """`length` formula fields, each referring to the next, the last to a number."""
    fields = [field(f"f{i}", formula=f"{{{{f{i + 1}}}}} + 1") for i in range(length - 1)]
    return [*fields, field(f"f{length - 1}", formula="{{n}}"), field("n")]


def test_formulas_nest_ten_deep_and_no_deeper():
    assert formula_checks.checked(chain(11))  # the first, and ten formulas inside it
    assert refusal(chain(12)) == "F0: preferences.formula nests formulas more than 10 deep"


def test_a_long_formula_is_refused():
    assert refusal([field("t", formula="1" + " " * 2000)]) == "T: preferences.formula is longer than 2000 characters"


def test_the_length_of_a_formula_does_not_count_what_its_references_name():
    # Stored, a reference by name becomes a uuid: the formula must still pass when saved again as it is stored.
    quantity = field("3f0c8e2a-6b1d-4c5e-9f7a-2d4b6c8e0a1f", name="Q")
    saved = formula_checks.checked([quantity, field("t", formula="{{Q}}" + " " * 1995)])
    assert len(saved[1]["preferences"]["formula"]) == 2035
    assert formula_checks.checked(saved) == saved


def test_a_templates_formulas_have_at_most_20000_characters_in_all():
    fields = [field("n"), *(field(f"f{i}", formula="{{n}}" + " + 1" * 100) for i in range(50))]
    assert formula_checks.checked(fields[:-1])
    with pytest.raises(errors.Invalid) as refused:
        formula_checks.checked(fields)
    assert refused.value.message == (
        "the fields' formulas have 20200 characters in all: a template's have at most 20000 (not counting the "
        "names and uuids inside {{ }})"
    )


def test_a_blank_formula_is_no_formula():
    saved = formula_checks.checked([field("t", formula="  ")])
    assert saved[0]["readonly"] is False and not formulas.is_formula(saved[0])


def test_a_copy_renames_the_uuids_its_formulas_name():
    copied = formula_checks.renamed([field("t", formula="{{a}} + {{ b }}")], {"a": "x", "b": "y"})
    assert copied[0]["preferences"]["formula"] == "{{x}} + {{y}}"
