"""Conditions: when a field or a document applies. The cases are shared with the browser test
(tests/browser/test_conditions.py), which runs the signing form's own `Visibility` on them: what one answers,
the other must."""

import json

import pytest

from signsvc.submissions import conditions, field_values
from tests.support.paths import ROOT

TABLE = json.loads((ROOT / "tests" / "files" / "condition_cases.json").read_text())
CASES = TABLE["cases"]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case["rule"])
def test_the_service_answers_each_shared_condition_case_as_the_table_says(case):
    visibility = conditions.Visibility(case["fields"], case["values"], case.get("documents", []))
    assert visibility.hidden_fields() == case["hidden"]
    assert visibility.hidden_documents() == case.get("hidden_documents", [])


@pytest.mark.parametrize("case", [c for c in CASES if "shown" in c], ids=lambda case: case["rule"])
def test_the_service_reads_the_text_a_field_shows_as_the_cases_value(case):
    by_uuid = {f["uuid"]: f for f in case["fields"]}
    for uuid, text in case["shown"].items():
        assert field_values.normalize(by_uuid[uuid], text, ("values",)) == case["values"][uuid]
    visibility = conditions.Visibility(
        case["fields"], {**case["values"], **field_values.prefill(case["fields"], case["shown"], ("values",))}
    )
    assert visibility.hidden_fields() == case["hidden"]


def test_the_table_covers_every_action_and_the_or_operation():
    used = {c["action"] for case in CASES for f in case["fields"] for c in f.get("conditions", [])}
    assert set(conditions.ACTIONS) <= used
    assert any(c.get("operation") == "or" for case in CASES for f in case["fields"] for c in f.get("conditions", []))


def test_rule_names_are_unique_so_each_case_is_its_own_test():
    assert len({case["rule"] for case in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=lambda case: case["rule"])
def test_another_signers_stand_in_values_answer_every_shared_case_as_their_values_do(case):
    from signsvc.submissions import condition_form

    naming: dict[str, list] = {}
    for condition in [c for f in case["fields"] for c in f.get("conditions", [])] + [
        c for d in case.get("documents", []) for c in d.get("conditions", [])
    ]:
        naming.setdefault(condition["field_uuid"], []).append(condition)
    by_uuid = {f["uuid"]: f for f in case["fields"]}
    stand_ins = {
        uuid: condition_form.stand_in(by_uuid[uuid], value, naming.get(uuid, [])) if uuid in by_uuid else value
        for uuid, value in case["values"].items()
    }
    visibility = conditions.Visibility(case["fields"], stand_ins, case.get("documents", []))
    assert visibility.hidden_fields() == case["hidden"]
