"""Matching values to fields takes one pass over the fields, however many values there are.

Each field's uuid, name and options are texts that count how often they are compared, and fail the test as
soon as the count passes a budget of a few comparisons per value: matching that compares every value
with every field fails at once, not after minutes.
"""

from typing import Any

import pytest

from signsvc.infra import errors
from signsvc.submissions import field_values
from signsvc.submissions.field_values import MAX_VALUES, FieldIndex

WHERE = ("values",)


def counted_texts(budget: int) -> type[str]:
    """A kind of text whose comparisons with `==` are counted, failing past `budget`."""

    class Counted(str):
        comparisons = 0

        def __eq__(self, other: object) -> bool:
            Counted.comparisons += 1
            assert Counted.comparisons <= budget, f"more than {budget} comparisons: each value met many fields"
            return str.__eq__(self, other)

        __hash__ = str.__hash__

    return Counted


def fields(count: int, text: type[str] = str, **extra: Any) -> list[dict[str, Any]]:
    return [
        {"uuid": text(f"uuid-{n}"), "submitter_uuid": "role", "name": text(f"Field {n}"), "type": "text", **extra}
        for n in range(count)
    ]


@pytest.mark.parametrize(
    "key", ["uuid-{n}", "Field {n}", "field_{n}", "FIELD {n}"], ids=["uuid", "name", "snake_case", "any case"]
)
def test_matching_10000_keys_compares_each_with_one_field_not_every_field(key):
    text = counted_texts(budget=2 * 10_000)
    index = FieldIndex(fields(10_000, text))
    matched = [index.matching(key.format(n=n)) for n in range(10_000)]
    assert [found[0]["uuid"] for found in matched] == [f"uuid-{n}" for n in range(10_000)]


def test_matching_ten_times_the_keys_compares_ten_times_as_often():
    def comparisons(count: int) -> int:
        text = counted_texts(budget=10 * count)
        index = FieldIndex(fields(count, text))
        for n in range(count):
            index.matching(f"Field {n}")
        return text.comparisons  # type: ignore[attr-defined]

    assert comparisons(10_000) <= 10 * comparisons(1_000) + 10


def test_prefilling_as_many_values_as_a_template_has_fields_compares_each_with_one_field():
    text = counted_texts(budget=2 * MAX_VALUES)
    values = {f"Field {n}": f"value {n}" for n in range(MAX_VALUES)}
    prefilled = field_values.prefill(fields(MAX_VALUES, text), values, WHERE)
    assert prefilled == {f"uuid-{n}": f"value {n}" for n in range(MAX_VALUES)}


def test_a_name_shared_by_several_fields_still_names_them_all():
    index = FieldIndex([*fields(3), {"uuid": "other", "submitter_uuid": "role", "name": "Field 1", "type": "text"}])
    assert [found["uuid"] for found in index.matching("Field 1")] == ["uuid-1", "other"]


def test_more_values_than_a_template_may_have_fields_are_refused_before_any_is_matched():
    text = counted_texts(budget=0)
    values = {f"Field {n}": "x" for n in range(10_000)}
    with pytest.raises(errors.Invalid) as refused:
        field_values.prefill(fields(10, text), values, WHERE)
    assert refused.value.message == (
        "Too many values: 10000, at most 1000 (a template has at most 1000 fields) in `values`."
    )


def test_choosing_1000_options_of_a_multiple_field_compares_each_with_one_option():
    text = counted_texts(budget=2 * 1000)
    field = {
        "uuid": "m",
        "name": "Choices",
        "type": "multiple",
        "options": [{"uuid": f"o{n}", "value": text(f"Option {n}")} for n in range(1000)],
    }
    chosen = field_values.normalize(field, [f"option {n}" for n in range(1000)], WHERE)
    assert chosen == [f"Option {n}" for n in range(1000)]


def test_a_file_field_takes_at_most_100_files():
    field = {"uuid": "f", "name": "Scans", "type": "file"}
    with pytest.raises(errors.Invalid) as refused:
        field_values.normalize(field, ["https://example.com/scan.png"] * 101, WHERE)
    assert refused.value.message == "Scans takes at most 100 files, not 101 in `values`."
