"""Bounds of free-form JSON: depth found without recursion, size as JSON."""

import json

from signsvc.infra.json_fields import MAX_OBJECT_BYTES, free_object_problem, json_size, too_deep


def nested(levels: int) -> dict:
    value: dict = {}
    for _ in range(levels - 1):
        value = {"a": value}
    return value


def test_depth_counts_objects_and_arrays_and_names_the_first_one_too_deep():
    assert too_deep(nested(3), 3) is None
    assert too_deep({"x": 1, "list": [0, {"b": []}]}, 3) == "list[1].b"
    assert too_deep(nested(100_000), 64) == "a.a.a.a.a.a...", "far deeper than the stack allows"


def test_size_is_about_the_compact_json():
    value = {"name": "Ann é", "tags": ["a", "b"], "n": 12345, "ok": True, "none": None, "x": 1.5}
    assert abs(json_size(value) - len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())) <= 8


def test_a_free_form_object_says_what_is_wrong():
    assert free_object_problem({"a": [1, 2, {"b": "c"}]}) is None
    assert "more than 32 levels deep" in free_object_problem(nested(33))
    assert free_object_problem({"x": "y" * MAX_OBJECT_BYTES}) == "is too large: at most 64 KiB as JSON"
    assert free_object_problem({"x": "y" * MAX_OBJECT_BYTES}, sized=False) is None
