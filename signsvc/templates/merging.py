"""Several templates merged into a new one (`POST /templates/merge`): the request read, the sources found (the
caller's), the new template's roles, fields and documents made of the sources', each source re-keyed as a clone
is, and the new template written with copies of their files and its `template.created` event.

Roles collapse by name (any case): role i of every source is named `roles[i]` when `roles` is given, so the roles
at one index become one; without it, roles of the same name become one. The `variables_schema` is the union of the
sources' (`variables_schema.union`), and a dynamic document keeps a copy of its DOCX.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import storage.templates as stored
from signsvc.accounts import auth
from signsvc.infra import errors, json_fields, tokens
from signsvc.infra.files import NewFile
from signsvc.templates import patterns, rekeying, template_fields, variables_schema
from signsvc.templates.documents import Ingest
from signsvc.templates.page_images import PageImages
from signsvc.templates.template_writing import Writer
from storage import Connection
from storage.records import MAX_ID, Principal, Template, TemplateDocument
from storage.shapes import Condition, Field, Role

MAX_SOURCES = 50


@dataclass(frozen=True)
class MergeRequest:
    template_ids: list[int]
    roles: list[str] | None
    name: str | None
    folder_name: str | None
    external_id: str | None
    shared_link: bool


@dataclass(frozen=True)
class Source:
    template: Template
    documents: list[TemplateDocument]


@dataclass(frozen=True)
class MergedDocument:
    original: TemplateDocument
    uuid: str
    conditions: list[Condition]


@dataclass(frozen=True)
class Merged:
    roles: list[Role]
    fields: list[Field]
    documents: list[MergedDocument]
    variables_schema: dict[str, Any]


def parse(body: dict[str, Any]) -> MergeRequest:
    ids = body.get("template_ids")
    if not isinstance(ids, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in ids):
        raise errors.at(("template_ids",), "must be an array of template ids")
    if not 2 <= len(ids) <= MAX_SOURCES:
        raise errors.at(("template_ids",), f"must name at least 2 templates and at most {MAX_SOURCES}")
    roles = body.get("roles")
    if roles is not None and (not isinstance(roles, list) or not all(isinstance(n, str) and n.strip() for n in roles)):
        raise errors.at(("roles",), "must be an array of role names")
    name = json_fields.text(body, "name")
    if name is not None and not name.strip():
        raise errors.at(("name",), "must not be empty")
    return MergeRequest(
        template_ids=ids,
        roles=[n.strip() for n in roles] if roles is not None else None,
        name=name,
        folder_name=json_fields.text(body, "folder_name") or None,
        external_id=json_fields.text(body, "external_id"),
        shared_link=json_fields.flag(body, "shared_link", True),
    )


def may_exist(template_id: int) -> bool:
    """Beyond the ids' BIGINT no template is: asked of the database, such a number would be an error, not a miss."""
    return 1 <= template_id <= MAX_ID


def merged(sources: list[Source], role_names: list[str] | None) -> Merged:
    """The sources' documents in order, their fields after them in the same order, every uuid new; the union of
    their variables."""
    names = role_names or []
    roles: list[Role] = []
    for name in names:
        _role_uuid(roles, name)
    fields: list[Field] = []
    documents: list[MergedDocument] = []
    for source in sources:
        fresh = rekeying.fresh_uuids(source.template, source.documents)
        for index, role in enumerate(source.template.roles):
            fresh[role["uuid"]] = _role_uuid(roles, names[index] if index < len(names) else role["name"])
        fields += rekeying.renamed_fields(source.template.fields, fresh)
        documents += [
            MergedDocument(document, fresh[document.uuid], rekeying.renamed(document.conditions, fresh))
            for document in source.documents
        ]
    if len(fields) > template_fields.MAX_FIELDS:
        raise errors.at(
            ("template_ids",), f"have {len(fields)} fields in all: a template has at most {template_fields.MAX_FIELDS}"
        )
    return Merged(
        roles or [{"name": template_fields.DEFAULT_ROLE, "uuid": template_fields.new_uuid()}],
        fields,
        documents,
        variables_schema.union([source.template.variables_schema for source in sources]),
    )


def _role_uuid(roles: list[Role], name: str) -> str:
    """The uuid of the merged role of this name (any case), added when it is the first."""
    for role in roles:
        if role["name"].lower() == name.lower():
            return role["uuid"]
    roles.append({"name": name, "uuid": template_fields.new_uuid()})
    return roles[-1]["uuid"]


class Merger:
    def __init__(self, writer: Writer, ingest: Ingest, images: PageImages) -> None:
        self.writer, self.ingest, self.images = writer, ingest, images

    async def merge(self, principal: Principal, body: dict[str, Any]) -> Template:
        """A new template of several, in order: their documents, roles and fields with fresh uuids."""
        request = parse(body)
        sources = [await self._source(principal, i, template_id) for i, template_id in enumerate(request.template_ids)]
        combination = merged(sources, request.roles)
        await patterns.prepare(patterns.found_in(combination.fields))
        template_fields.refuse_stored_patterns(combination.fields, ("fields",))
        name = request.name or f"{sources[0].template.name} (Merged)"
        pdfs = [await self.writer.stored_pdf(document.original) for document in combination.documents]
        combined = await self.ingest.combined_pdfs(pdfs, name)
        await self.writer.files.write([combined] if combined else [])
        try:
            async with self.writer.db.transaction() as tx:
                template_id = await self._recorded(tx, principal, request, sources, combination, name, combined)
                await self.writer.event(tx, principal.account_id, "template.created", template_id)
                return await stored.required_template(tx, template_id)
        except BaseException:
            await self.writer.files.discard([combined] if combined else [])
            raise

    async def _source(self, principal: Principal, index: int, template_id: int) -> Source:
        """A template to merge, as POST /submissions finds the template to send: 404 when it does not exist (or is
        the linked live or test account's: the message names the key to use), 422 when another account's. Its
        documents have an image of every page (made now when pending)."""
        db = self.writer.db
        template = await stored.get_template(db, template_id) if may_exist(template_id) else None
        if template is None:
            raise errors.NotFound(f"Template {template_id} not found")
        try:
            auth.check_owner(principal, template.account_id, "Template", template.id)
        except errors.NotAuthorized:
            where: errors.Location = ("template_ids", index)
            problem = f"Template {template_id} is not a template of this account"
            raise errors.Invalid(f"{errors.written(where)}: {problem}", location=where) from None
        return Source(template, await self.images.complete(template.id))

    async def _recorded(
        self,
        tx: Connection,
        principal: Principal,
        request: MergeRequest,
        sources: list[Source],
        combination: Merged,
        name: str,
        combined: NewFile | None,
    ) -> int:
        """The merged template written, its documents' files copied; its id."""
        for source in sources:  # their files are copied by id: a source changed or deleted meanwhile is not
            if await stored.list_documents(tx, source.template.id) != source.documents:
                raise errors.Invalid(f"Template {source.template.id} changed while it was being merged: send again")
        await self.writer.check_defaults(tx, principal.account_id, combination.fields)
        now, first = self.writer.clock.now(), sources[0].template
        folder = request.folder_name
        folder_id = (await stored.folder(tx, principal.account_id, folder, now)).id if folder else first.folder_id
        combined_blob = await self.writer.files.record(tx, principal.account_id, combined) if combined else None
        template_id = await stored.insert_template(
            tx,
            account_id=principal.account_id,
            author_id=principal.user_id,
            folder_id=folder_id,
            slug=tokens.slug(),
            name=name,
            external_id=request.external_id,
            source="api",
            roles=combination.roles,
            fields=combination.fields,
            preferences=first.preferences,
            combined_blob_id=combined_blob.id if combined_blob else None,
            shared_link=request.shared_link,
            now=now,
            variables_schema=combination.variables_schema,
        )
        for position, document in enumerate(combination.documents):
            await self.writer.copy_document(
                tx, template_id, document.original, document.uuid, position, document.conditions
            )
        return template_id
