"""One-off submissions: documents sent for signing without a template (POST /submissions/pdf, /submissions/html,
/submissions/docx).

The documents are taken in as a template's are (`Ingest`, rendered from HTML as `html_documents` renders a
template's, or DOCX files filled with the request's `variables` first, `from_docx.filled`), and their fields read
by the rules of template creation; `template_ids` adds the documents of the caller's templates, with fresh uuids
and their roles joined to the documents' by name. What comes of it is a `Basis` with no template, which
`Submissions.create_one_off` checks and writes with every option of POST /submissions: the submission keeps its
own roles, fields and documents, and no template row exists for it.

Order of the documents: those given in `documents`, then those of each template of `template_ids` in turn;
a document given a `position` (0 for the first) is put at that place, the others keep their order around it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import storage.files as stored_files
import storage.templates as stored_templates
from signsvc.accounts import auth
from signsvc.infra import errors, json_fields, pdf_calls
from signsvc.infra.files import Files
from signsvc.submissions import dynamic_documents, email_verification
from signsvc.submissions.basis import Basis, Document
from signsvc.submissions.submissions import Submissions
from signsvc.templates import (
    document_tags,
    from_docx,
    html_documents,
    patterns,
    rekeying,
    template_fields,
    template_writing,
    templates,
    variables_schema,
)
from signsvc.templates.documents import MAX_MERGED, Ingest, IngestedDocument
from signsvc.templates.html_documents import HtmlRenderer
from signsvc.templates.page_images import PageImages
from signsvc.templates.template_fields import Roles
from storage import Database
from storage.records import MAX_ID, Principal, Submission, Submitter, Template, TemplateDocument
from storage.shapes import Area, Condition, Field

MAX_TEMPLATES = 10
# Each endpoint's keys of its documents; the rest of its request are the options of any submission.
_PDF_KEYS = {"documents", "template_ids", "merge_documents", "remove_tags"}  # `flatten` read by `_of_documents`
_DOCX_KEYS = {"documents", "template_ids", "merge_documents", "remove_tags"}  # `variables` kept with the submission
_HTML_KEYS = {"documents", "template_ids", "merge_documents", "html", "html_header", "html_footer", "size"}


@dataclass(frozen=True)
class Options:
    """What a one-off request says of its documents besides the documents themselves, checked before any is
    taken in."""

    positions: list[int | None]
    templates: list[tuple[Template, list[TemplateDocument]]]
    merge: bool


class OneOffs:
    def __init__(
        self, db: Database, files: Files, ingest: Ingest, submissions: Submissions, images: PageImages
    ) -> None:
        self.db, self.files, self.ingest, self.submissions, self.images = db, files, ingest, submissions, images
        self.html = HtmlRenderer(ingest.pool, ingest.downloader)

    async def from_pdf(self, principal: Principal, body: dict[str, Any]) -> tuple[Submission, list[Submitter]]:
        """POST /submissions/pdf: PDFs (or any document a template takes) with fields given or read from them."""
        raw_documents = _raw_documents(body)
        tags = pdf_calls.TagReading(remove=json_fields.flag(body, "remove_tags", True))
        options = await self.options(principal, body, raw_documents)
        documents = [
            await self.ingest.document(raw, ("documents", index), tags) for index, raw in enumerate(raw_documents)
        ]
        return await self._of_documents(principal, _without(body, _PDF_KEYS), options, raw_documents, documents)

    async def from_docx(self, principal: Principal, body: dict[str, Any]) -> tuple[Submission, list[Submitter]]:
        """POST /submissions/docx: DOCX files (or PDFs) with their `[[...]]` tags filled with `variables`, then
        taken in as /submissions/pdf takes its documents. The submission keeps `variables` as any does."""
        raw_documents = _raw_documents(body)
        variables = body.get("variables") or {}
        if not isinstance(variables, dict):
            raise errors.at(("variables",), "must be an object")
        tags = pdf_calls.TagReading(remove=json_fields.flag(body, "remove_tags", True))
        options = await self.options(principal, body, raw_documents)
        documents = [
            await from_docx.filled(self.ingest, raw, variables, ("documents", index), tags)
            for index, raw in enumerate(raw_documents)
        ]
        return await self._of_documents(principal, _without(body, _DOCX_KEYS), options, raw_documents, documents)

    async def _of_documents(
        self,
        principal: Principal,
        body: dict[str, Any],
        options: Options,
        raw_documents: list[Any],
        documents: list[IngestedDocument],
    ) -> tuple[Submission, list[Submitter]]:
        """The submission of documents taken in, their fields given in `raw_documents` or read from them."""
        if json_fields.flag(body, "flatten", False):  # their own form fields are not made fields (completion
            documents = [dataclasses.replace(document, form_fields=[]) for document in documents]  # flattens them)
        await patterns.prepare(
            patterns.found_in([raw_documents, [document.form_fields for document in documents]])
            + document_tags.patterns(documents)
        )
        roles, fields = templates.fields_of_documents(raw_documents, documents)
        conditions = templates.document_conditions(raw_documents, documents, fields)
        return await self.created(principal, _without(body, {"flatten"}), options, documents, roles, fields, conditions)

    async def from_html(self, principal: Principal, body: dict[str, Any]) -> tuple[Submission, list[Submitter]]:
        """POST /submissions/html: HTML documents (`documents[]` with an `html`, a header, a footer and a page size
        each, or one top-level `html`), their field tags the fields, rendered as for a template."""
        given = html_documents.sources(body)
        raw_documents = body["documents"] if body.get("html") is None else [{}]  # `sources` checked them
        options = await self.options(principal, body, raw_documents)
        rendered = await self.html.documents(given)
        await patterns.prepare(patterns.found_in([one.fields for one in rendered]))
        roles, fields = templates.fields_of_html(rendered)
        documents = [one.document for one in rendered]
        return await self.created(principal, _without(body, _HTML_KEYS), options, documents, roles, fields, {})

    async def options(self, principal: Principal, body: dict[str, Any], raw_documents: list[Any]) -> Options:
        """`documents[].position`, the templates of `template_ids` and `merge_documents`, checked."""
        return Options(
            positions=[_position(raw, ("documents", index)) for index, raw in enumerate(raw_documents)],
            templates=await self._templates(principal, body.get("template_ids")),
            merge=json_fields.flag(body, "merge_documents", False),
        )

    async def created(
        self,
        principal: Principal,
        body: dict[str, Any],
        options: Options,
        documents: list[IngestedDocument],
        roles: Roles,
        fields: list[Field],
        conditions: dict[str, list[Condition]],
    ) -> tuple[Submission, list[Submitter]]:
        """The one-off submission of documents taken in, with the roles, fields and conditions read from them, the
        documents of `template_ids`, and every option of POST /submissions in `body` (and `name`; the keys of the
        documents left out)."""
        added: list[Document] = []
        given = body.get("variables")
        variables = given if isinstance(given, dict) else {}  # not an object: refused with the other options
        for template, _ in options.templates:
            variables_schema.require(template.variables_schema, variables)
        for template, template_documents in options.templates:
            template_fields_, copies = rekeying.copied(template, template_documents, roles)
            conditions |= {copy.uuid: copy.conditions for copy in copies if copy.conditions}
            template_fields_, filled = await dynamic_documents.filled_documents(
                self.db, self.files, self.ingest, template_fields_, copies, variables
            )
            fields, added = fields + template_fields_, [*added, *filled]
        if not fields:
            raise errors.at(("documents",), "have no fields: give each document's fields, or use text tags")
        if len(fields) > template_fields.MAX_FIELDS:
            limit = template_fields.MAX_FIELDS
            raise errors.Invalid(f"documents have {len(fields)} fields: a submission has at most {limit}")
        ordered = _ordered(list(zip(options.positions, documents, strict=True)), added)
        if options.merge and len(ordered) > 1:
            if any(conditions.values()):
                raise errors.at(("merge_documents",), "cannot merge documents that apply only under conditions")
            merged, fields = await self._merged(principal, ordered, fields)
            ordered = [merged]
        await template_writing.check_defaults(self.files, self.db, principal.account_id, fields)
        name = json_fields.text(body, "name", limit=255) or documents[0].name
        email_2fa = any(email_verification.required_by(template) for template, _ in options.templates)
        applying = {k: v for k, v in conditions.items() if v}
        basis = Basis(None, name, roles.items, fields, ordered, applying, email_2fa=email_2fa)
        return await self.submissions.create_one_off(principal, body | {"name": name}, basis)

    async def _templates(self, principal: Principal, raw: Any) -> list[tuple[Template, list[TemplateDocument]]]:
        """The caller's templates `template_ids` names, each with its documents (an image of every page made now
        when pending)."""
        if raw is None:
            return []
        if not isinstance(raw, list) or len(raw) > MAX_TEMPLATES:
            raise errors.at(("template_ids",), f"must be an array of at most {MAX_TEMPLATES} template ids")
        found = []
        for index, template_id in enumerate(raw):
            where = ("template_ids", index)
            template_id = _whole(template_id)
            if template_id is None or not 0 < template_id <= MAX_ID:
                raise errors.at(where, "must be a template id")
            template = await stored_templates.get_template(self.db, template_id)
            if template is None:
                raise errors.NotFound(f"Template {template_id} not found")
            try:
                auth.check_owner(principal, template.account_id, "Template", template.id)
            except errors.NotAuthorized:
                raise errors.at(
                    where, f"names template {template_id}, which is not a template of this account"
                ) from None
            if template.archived_at:
                raise errors.at(where, f"names template {template_id}, which has been archived")
            found.append((template, await self.images.complete(template.id)))
        return found

    async def _merged(
        self, principal: Principal, documents: list[Document], fields: list[Field]
    ) -> tuple[IngestedDocument, list[Field]]:
        """`merge_documents`: the documents as one, each field's areas on its page of it."""
        if len(documents) > MAX_MERGED:
            raise errors.at(("merge_documents",), f"merges at most {MAX_MERGED} documents")
        contents = [await self._content(principal, document) for document in documents]
        combined = await self.ingest.merged(contents, documents[0].name, ("merge_documents",))
        offsets, first = {}, 0
        for document in documents:
            offsets[document.uuid], first = first, first + len(document.pages)
        return combined, [_moved(field, combined.uuid, offsets) for field in fields]

    async def _content(self, principal: Principal, document: Document) -> bytes:
        if isinstance(document, IngestedDocument):
            return document.pdf.data
        blob = await stored_files.get_blob(self.db, document.blob_id)
        if blob is None or blob.account_id != principal.account_id:
            raise errors.NotFound(f"The file of document {document.name} is gone")
        return await self.files.read(blob)


def _without(body: dict[str, Any], keys: set[str]) -> dict[str, Any]:
    return {key: value for key, value in body.items() if key not in keys}


def _raw_documents(body: dict[str, Any]) -> list[Any]:
    raw_documents = body.get("documents")
    if not isinstance(raw_documents, list) or not raw_documents:
        raise errors.at(("documents",), "must be a non-empty array")
    return raw_documents


def _position(raw: Any, where: errors.Location) -> int | None:
    value = raw.get("position") if isinstance(raw, dict) else None
    if value is None:
        return None
    position = _whole(value)
    if position is None or position < 0:
        raise errors.at((*where, "position"), "must be an integer, 0 or more")
    return position


def _whole(value: Any) -> int | None:
    """An integer, also as JSON's 7.0; None for anything else."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _ordered(given: list[tuple[int | None, IngestedDocument]], added: list[Document]) -> list[Document]:
    """The documents in order: each given one with a position at it, the rest in order in the places left."""
    placed = sorted(((p, i), d) for i, (p, d) in enumerate(given) if p is not None)
    ordered: list[Document] = [*(d for p, d in given if p is None), *added]
    for (position, _), document in placed:
        ordered.insert(min(position, len(ordered)), document)
    return ordered


def _moved(field: Field, document_uuid: str, offsets: dict[str, int]) -> Field:
    areas: list[Area] = []
    for area in field.get("areas", []):
        moved = area.copy()
        moved["attachment_uuid"], moved["page"] = document_uuid, area["page"] + offsets[area["attachment_uuid"]]
        areas.append(moved)
    return {**field, "areas": areas}
