"""The fields a document's `{{...}}` text tags give (a PDF's, or an office document's after its conversion): the
tags the ingest found (`Ingest.document(..., pdf_calls.TagReading())`) read by the field-tag grammar
(`field_tags`), as field inputs with areas, ready for `template_fields.fields` with `first_page=1`."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from signsvc.infra import errors
from signsvc.templates import field_tags
from signsvc.templates.documents import IngestedDocument


def fields(document: IngestedDocument, where: errors.Location, *, taken: Iterable[str] = ()) -> list[dict[str, Any]]:
    """The document's tag fields, but those named as one of `taken` (explicit fields win over tags of their
    name). `where` is the document in the request, named with the tag in a refusal."""
    placed = [
        field_tags.PlacedTag(tag.text, field_tags.attributes(tag.body, tag=tag.text, where=where), tag.box)
        for tag in document.tags
    ]
    return field_tags.without_named(field_tags.fields_of_tags(placed, where=where), taken)


def patterns(documents: Iterable[IngestedDocument]) -> list[str]:
    """The `pattern=` values of the documents' tags, to compile off the event loop before the tags are read
    (`patterns.prepare`); a tag that cannot be read gives none (reading it refuses it)."""
    found = []
    for document in documents:
        for tag in document.tags:
            try:
                attributes = field_tags.attributes(tag.body)
            except errors.Invalid:
                continue
            found += [value for key, value in attributes.items() if key == "pattern" and value]
    return found
