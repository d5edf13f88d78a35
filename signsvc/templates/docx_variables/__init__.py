"""Dynamic content in DOCX documents: `[[...]]` tags filled with variables.

    render(docx, variables) -> docx     the document with its tags filled (tags.py says what they mean)
    variables_schema(docx) -> schema    the variables its tags read, JSON-schema-like (schema.py)

Both read the body, headers, footers, footnotes and endnotes. Every refusal is a `DocxProblem` (a 422) whose
message names the tag and what is wrong. Bytes in, bytes out: callers run them off the event loop.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import signsvc.templates.docx_variables.schema as schema
import signsvc.templates.docx_variables.tags as tags
import signsvc.templates.docx_variables.wordml as wordml
from signsvc.templates.docx_variables.package import Package
from signsvc.templates.docx_variables.problems import DocxProblem, TagProblem
from signsvc.templates.docx_variables.rendering import Budget, Scope
from signsvc.templates.docx_variables.rendering import render as _render
from signsvc.templates.docx_variables.tags import Tag

__all__ = ["DocxProblem", "TagProblem", "has_tags", "render", "variables_schema"]

MAX_TAGS = 5000

log = logging.getLogger(__name__)


@dataclass
class _Part:
    name: str
    root: Any
    found: list[wordml.FoundTag]
    tags: list[Tag]  # every tag of the part, by index
    top: list[Tag]  # the part's tags with blocks holding theirs


def render(docx: bytes, variables: dict[str, Any]) -> bytes:
    """The DOCX with its `[[...]]` tags filled with `variables`. A failure no rule foresaw is logged and refused
    as a DocxProblem (a 422), not left to become a 500."""
    try:
        return _filled(docx, variables)
    except DocxProblem:
        raise
    except Exception as error:
        log.exception("filling a DOCX failed unexpectedly")
        raise DocxProblem(f"the DOCX document could not be filled ({type(error).__name__})") from error


def _filled(docx: bytes, variables: dict[str, Any]) -> bytes:
    package = Package(docx)
    parts = _read(package)
    budget = Budget()
    for part in parts:
        _prepare(part)
        _render(part.root, part.tags, Scope(variables), budget)
        wordml.mend(part.root)
    return package.written({part.name: part.root for part in parts if part.tags})


def variables_schema(docx: bytes) -> dict[str, Any]:
    """The variables the document's tags read, as `{"name": {"type": "string"}, ...}`."""
    return schema.of_tags([tag for part in _read(Package(docx)) for tag in part.top])


def has_tags(docx: bytes) -> bool:
    return any(part.tags for part in _read(Package(docx)))


def _read(package: Package) -> list[_Part]:
    parts = []
    count = 0
    for name in package.text_parts:
        root = package.tree(name)
        found = wordml.find(root)
        count += len(found)
        if count > MAX_TAGS:
            raise DocxProblem(f"the DOCX document has more than {MAX_TAGS} [[...]] tags")
        read = [tags.read(index, tag.text, _content(tag.text)) for index, tag in enumerate(found)]
        parts.append(_Part(name, root, found, read, tags.blocks(read)))
    return parts


def _content(text: str) -> str:
    """What is between a tag's brackets: `[[x]]` and `[ [x] ]` hold `x`."""
    return text[1:-1].strip()[1:-1]


def _prepare(part: _Part) -> None:
    runs = wordml.isolate(part.found)
    wordml.place_blocks(part.top, dict(enumerate(runs)))
