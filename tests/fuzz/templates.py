"""Repairs of generated templates requests: rules JSON Schema cannot state (see hooks.py).

The document bounds each number of an area alone; that an area lies inside its page (x + w <= 1, y + h <= 1, or in
points when a value is above 1), that its page exists in the PDF (the hooks give a one-page PDF or DOCX) and that an
area names one of its field's options are rules across values or about content, mended here. An update's areas must
name the template's documents by uuid.
Conditions name other fields (and `schema` items the template's documents) by uuids the generator cannot know:
valid cases go without them; their rules are the API tests' (tests/api/test_conditions.py) and the negative
cases'. A formula is an expression of a grammar of its own that names fields by uuid: valid cases go without one too
(tests/api/test_formulas.py has its rules). A change of a template's documents is made an add at the end: a
replace or a remove names positions and names of documents the generator cannot know.
"""

from __future__ import annotations

from typing import Any

from tests.fuzz.records import PDF

_WITH_OPTIONS = {"select", "radio", "multiple"}
_PAGE = (595.28, 841.89)  # the hooks' PDF: one A4 page, in points (tests/support/documents.py)


_ONE_OFFS = ("createSubmissionFromPdf", "createSubmissionFromDocx")
_WITH_DOCUMENT_FIELDS = (
    "createTemplate",
    "createTemplateFromPdf",
    "createTemplateFromDocx",
    "createSubmissionFromPdf",
    "createSubmissionFromDocx",
)


def repair(operation: str, case: Any) -> None:
    """Mends a case generated as valid where the document cannot say what valid is."""
    body = case.body
    if not isinstance(body, dict):
        return
    if operation in _WITH_DOCUMENT_FIELDS:
        _signable(case, body)
        for document in body.get("documents") or []:
            if isinstance(document, dict):
                document.pop("conditions", None)
            if isinstance(document, dict) and isinstance(document.get("fields"), list):
                _fields(document["fields"])
    elif operation == "updateTemplate":
        changes = body["template"] if isinstance(body.get("template"), dict) else body
        changes.pop("schema", None)
        if isinstance(changes.get("fields"), list):
            # An area must name one of the template's documents, whose uuids the generator cannot know (and may
            # leave it out only when the template has one document): fields are sent without areas. Areas'
            # own rules are exercised by template creation (the same code) and by the negative cases here.
            for field in changes["fields"]:
                if isinstance(field, dict) and "areas" in field:
                    field["areas"] = []
                if isinstance(field, dict):
                    _without_references(field)
    elif operation == "updateTemplateDocuments":
        _document_changes(body)


def _document_changes(body: dict[str, Any]) -> None:
    """Each change an add at the end, of a PDF, and at least one: removing and replacing name positions and names of
    the template's documents, which the generator cannot know (their rules are tests/api/test_template_documents.py's,
    and the negative cases')."""
    changes = body.get("documents")
    if not isinstance(changes, list) or not changes:
        changes = body["documents"] = [{}]
    for change in changes:
        if isinstance(change, dict):
            for key in ("remove", "replace", "position", "html"):
                change.pop(key, None)
            change["file"] = PDF


def _signable(case: Any, body: dict[str, Any]) -> None:
    """In the stateful phase, a template someone can sign: one without fields is valid, but no submission of
    it is, and the scenarios that follow a template to its submissions would stop at it."""
    documents = [document for document in body.get("documents") or [] if isinstance(document, dict)]
    one_off = case.operation.definition.raw.get("operationId") in _ONE_OFFS  # signable, or refused
    if (
        (one_off or case.meta.phase.name.value == "stateful")
        and documents
        and not any(document.get("fields") for document in documents)
    ):
        documents[0]["fields"] = [{"name": "Name", "role": "First Party"}]


def _fields(fields: list[Any]) -> None:
    for field in fields:
        if isinstance(field, dict):
            _without_references(field)
        if not isinstance(field, dict) or not isinstance(field.get("areas"), list):
            continue
        options = field.get("options") if field.get("type") in _WITH_OPTIONS else None
        for area in field["areas"]:
            if isinstance(area, dict):
                _area(area, options)


def _without_references(field: dict[str, Any]) -> None:
    field.pop("conditions", None)
    if isinstance(field.get("preferences"), dict):
        field["preferences"].pop("formula", None)


def _area(area: dict[str, Any], options: Any) -> None:
    # Inside the page: the sum of two numbers no JSON Schema keyword bounds; in points when any value is above 1.
    in_points = any(area[key] > 1 for key in ("x", "y", "w", "h"))
    for (start, size), extent in zip((("x", "w"), ("y", "h")), _PAGE if in_points else (1, 1), strict=True):
        area[start] = min(area[start], extent)
        if area[start] + area[size] > extent:
            area[size] = max(0.0, extent - area[start])
    # The page must exist in the document: the PDF the hooks give has one page (pages are 1-based on creation).
    if "page" in area:
        area["page"] = 1
    # An option an area names must be one of its field's options (a reference to another value of the request).
    if options:
        first = options[0]
        value = str(first["value"] if isinstance(first, dict) else first)
        key = "option" if "option" in area else "option_uuid"
        if isinstance(area.get(key), str):
            area[key] = value
