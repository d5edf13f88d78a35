"""Schemathesis hooks of the fuzzing test (test_openapi_fuzzing.py).

The OpenAPI document says what JSON Schema can say. For cases generated as valid, these hooks add what it
cannot: a PDF's (or a DOCX's) content where a base64 PDF (or DOCX) is asked for (`contentMediaType` fills
nothing), the rules across values each domain module mends (templates.py, submissions.py, clickwraps.py), and real
records for the operations several steps away (records.py). Cases meant to break the schema are left as drawn. The
testing extension's long poll answers at once (`wait` 0). Every answer is recorded (operation, phase,
status, URL, the start of both bodies) in the file named by SIGNSVC_FUZZ_LOG, for the test to tell which
operations answered and to show why one did not.
"""

from __future__ import annotations

import json
import os
import threading
from typing import Any

import schemathesis
from schemathesis import GenerationMode
from schemathesis.specs.openapi.checks import ensure_resource_availability

from tests.fuzz import clickwraps, records, scenarios, submissions, templates
from tests.fuzz.records import DOCX as _DOCX
from tests.fuzz.records import PDF as _PDF

_PDF_INPUTS = {
    "createTemplate": "documents",
    "createTemplateFromPdf": "documents",
    "createSubmissionFromPdf": "documents",
    "mergePdfs": "files",
    "verifyPdf": "file",
}
_LOG_LOCK = threading.Lock()
_RECORDS = records.from_environment()
_ON_RECORDS = {  # operation: what names the record its valid cases act on
    "viewTestingSubmitter": lambda r: {"id": r.signer()["id"]},
    "startTestingSubmitter": lambda r: {"id": r.signer()["id"]},
    "completeTestingSubmitter": lambda r: {"id": r.signer()["id"]},
    "declineTestingSubmitter": lambda r: {"id": r.signer()["id"]},
    "updateSubmitter": lambda r: {"id": r.signer()["id"]},
    "issueSubmitterTwoFactorToken": lambda r: {"id": r.signer()["id"]},
    "updateSubmission": lambda r: {"id": r.signer()["submission_id"]},
    "archiveSubmission": lambda r: {"id": r.signer()["submission_id"]},
    "getSubmissionDocuments": lambda r: {"id": r.completed_submission()},
    "getSubmissionPdf": lambda r: {"id": r.completed_submission()},
    "sendTestWebhook": lambda r: {"id": r.endpoint(), "_": r.completed_submission()},
    "resendWebhookDelivery": lambda r: dict(zip(("id", "delivery_id"), r.delivery(), strict=True)),
    "publishClickwrap": lambda r: {"id": r.clickwrap()},
    "createConsent": lambda r: {"id": r.clickwrap()},
    "getConsent": lambda r: {"id": r.consent()},
    "getTestingEmail": lambda r: {"id": r.email()},
    "updateTemplateDocuments": lambda r: {"id": r.template_to_change()},
}
# Operations whose valid cases name a template in their body: one with fields, or every submission is refused.
_ON_TEMPLATE = ("createSubmission", "initSubmission")


def _operation_id(case: Any) -> str:
    return case.operation.definition.raw.get("operationId", "")


@schemathesis.hook
def map_case(context: Any, case: Any) -> Any:
    operation = _operation_id(case)
    if operation == "listTestingDeliveries" and isinstance(case.query, dict) and "wait" in case.query:
        case.query["wait"] = 0
    if case.meta is not None and case.meta.generation.mode == GenerationMode.POSITIVE:
        if operation in _PDF_INPUTS and isinstance(case.body, dict):
            _give_pdfs(case.body, _PDF_INPUTS[operation])
        if operation in ("createTemplateFromDocx", "createSubmissionFromDocx") and isinstance(case.body, dict):
            for document in case.body.get("documents") or []:
                if isinstance(document, dict):
                    document["file"] = _DOCX
        for domain in (templates, submissions, clickwraps):
            domain.repair(operation, case)
        if _RECORDS is not None and _in_scenario(case):
            scenarios.repair(operation, case, _RECORDS)
        elif operation in _ON_RECORDS and _RECORDS is not None:
            _name_records(case, _ON_RECORDS[operation])
        elif operation in _ON_TEMPLATE and _RECORDS is not None and isinstance(case.body, dict):
            case.body["template_id"] = _RECORDS.template()
        elif operation == "mergeTemplates" and _RECORDS is not None and isinstance(case.body, dict):
            case.body["template_ids"] = [_RECORDS.template(), _RECORDS.template()]
    return case


def _in_scenario(case: Any) -> bool:
    return case.meta.phase.name.value == "stateful"


def _name_records(case: Any, names: Any) -> None:
    """Path ids of real records (the stateful phase brings its own by the links)."""
    try:
        found = names(_RECORDS)
    except OSError:  # a record could not be made now (an account at its endpoint limit): the case stays as drawn
        return
    if isinstance(case.path_parameters, dict):
        case.path_parameters.update({key: value for key, value in found.items() if key in case.path_parameters})


def _give_pdfs(body: dict[str, Any], key: str) -> None:
    value = body.get(key)
    if key == "file":
        body[key] = _PDF
    elif key == "files" and isinstance(value, list):
        body[key] = [_PDF for _ in value]
    elif key == "documents" and isinstance(value, list):
        for document in value:
            if isinstance(document, dict):
                document["file"] = _PDF


@schemathesis.hook
def before_call(context: Any, case: Any, kwargs: Any) -> None:
    if (
        _RECORDS is not None
        and case.meta is not None
        and case.meta.generation.mode == GenerationMode.POSITIVE
        and _in_scenario(case)
    ):
        scenarios.prepare(_operation_id(case), _RECORDS)


@schemathesis.check
def created_resource_available_until_reset(ctx: Any, response: Any, case: Any) -> bool | None:
    """Schemathesis' ensure_resource_availability (a record a scenario made answers), up to the testing
    extension's reset: a reset forgets every record, so one made before it answers 404 after it, as a deleted one
    does (and the built-in check only knows of DELETE)."""
    parent = ctx.internals.find_parent(case_id=case.id)
    if parent is not None and _reset_between(ctx, parent.id, case.id):
        return None
    return ensure_resource_availability(ctx, response, case)


def _reset_between(ctx: Any, first: str, last: str) -> bool:
    """Whether a reset succeeded after step `first` of the scenario and before step `last`."""
    steps = list(ctx.internals.find_all_cases())  # in the order they ran
    ids = [step.id for step in steps]
    return any(
        _operation_id(step) == "resetTestingData" and _succeeded(ctx.internals.find_response(case_id=step.id))
        for step in steps[ids.index(first) + 1 : ids.index(last)]
    )


def _succeeded(response: Any) -> bool:
    return response is not None and 200 <= response.status_code < 300


@schemathesis.hook
def after_call(context: Any, case: Any, response: Any) -> None:
    path = os.environ.get("SIGNSVC_FUZZ_LOG")
    if not path:
        return
    phase = case.meta.phase.name.value if case.meta is not None else "explicit"
    line = json.dumps(
        {
            "operation": _operation_id(case),
            "phase": phase,
            "status": response.status_code,
            "url": str(response.request.url)[:200],
            "answer": response.content[:200].decode(errors="replace"),
            "request": response.request.body[:200].decode(errors="replace")
            if isinstance(response.request.body, bytes)
            else repr(response.request.body)[:200],
        }
    )
    with _LOG_LOCK, open(path, "a") as log:
        log.write(line + "\n")
