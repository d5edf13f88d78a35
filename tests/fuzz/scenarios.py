"""What the stateful phase's scenarios need beyond the document's links (see hooks.py).

A scenario follows the links from what one answer made to the next request on it. For its valid cases, this
module adds what no link carries: a list page shows the latest record the scenarios made, the one the links
from it follow (filters, cursors and limits drawn at random, such as a `before` beyond every id or a limit of 0,
leave nearly every page empty); a signer completes with their required fields filled (their template decides
which, and what fits); and a request finds the state it needs that another scenario made or a job makes (the
test webhook is built from a signer of the account who completed; a submission's signed documents are made by a
job).
"""

from __future__ import annotations

import json
from typing import Any

from signsvc.app import OPENAPI_PATH
from tests.fuzz import submissions
from tests.fuzz.records import Records

_BEFORE = {  # operation: the state its valid cases need, which no link carries
    "sendTestWebhook": Records.completed_submission,  # the event shows the account's latest completed signer
    "getSubmissionPdf": Records.run_jobs,  # at once, not seconds after the signer completed
}


_LINKED_TEMPLATE_IDS = {
    "mergeTemplates": 2,
    "createSubmissionFromHtml": 1,
    "createSubmissionFromDocx": 1,
}  # how many ids the links give


def _lists_and_linked_query() -> tuple[set[str], dict[str, set[str]]]:
    """The operations that answer a page, and per operation the query parameters the document's links set."""
    document = json.loads(OPENAPI_PATH.read_text())
    schemas = document["components"]["schemas"]
    lists: set[str] = set()
    linked: dict[str, set[str]] = {}
    for item in document["paths"].values():
        for method, operation in item.items():
            if method == "parameters":
                continue
            answer = operation["responses"].get("200", {}).get("content", {}).get("application/json", {})
            page = schemas.get(answer.get("schema", {}).get("$ref", "").rpartition("/")[2], {})
            if "pagination" in page.get("properties", {}):
                lists.add(operation["operationId"])
            for response in operation["responses"].values():
                for link in response.get("links", {}).values():
                    linked.setdefault(link["operationId"], set()).update(
                        key.removeprefix("query.") for key in link.get("parameters", {}) if key.startswith("query.")
                    )
    return lists, linked


_LISTS, _LINKED_QUERY = _lists_and_linked_query()


def repair(operation: str, case: Any, records: Records) -> None:
    """Mends a valid case of the stateful phase where the scenario's state decides what valid is."""
    if operation in _LISTS and isinstance(case.query, dict):
        linked = _LINKED_QUERY.get(operation, set())
        case.query = {"limit": 1, **{key: value for key, value in case.query.items() if key in linked}}
    elif operation in _LINKED_TEMPLATE_IDS and isinstance(case.body, dict):
        # A link sets the first ids of `template_ids`; those drawn after them name no template of the scenario's.
        if isinstance(case.body.get("template_ids"), list):
            del case.body["template_ids"][_LINKED_TEMPLATE_IDS[operation] :]
    elif operation == "completeTestingSubmitter" and isinstance(case.body, dict):
        case.body["values"] = submissions.completing_values(records.signer_fields(case.path_parameters["id"]))


def prepare(operation: str, records: Records) -> None:
    """Makes, before a valid case of the stateful phase is sent, the state it needs that no link carries."""
    if operation in _BEFORE:
        _BEFORE[operation](records)
