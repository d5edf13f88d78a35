"""Templates: create from documents (and HTML), change, clone, merge, change their documents, archive, delete.
A merge is `merging.Merger`'s, a change of documents `document_changes.DocumentChanges`'.

Every change commits with its `template.created` / `template.updated` event (the outbox). Files are
written before the transaction that records them and removed again when it fails, so a refused
request leaves neither a row nor a file behind.
"""

from __future__ import annotations

import logging
from pathlib import PurePosixPath
from typing import Any

import storage.templates as stored
from signsvc.accounts import auth
from signsvc.infra import errors, json_fields, pdf_calls, tokens
from signsvc.infra.clock import Clock
from signsvc.infra.files import Files, NewFile
from signsvc.templates import (
    condition_rules,
    document_tags,
    field_tags,
    formula_checks,
    from_docx,
    page_images,
    patterns,
    rekeying,
    template_fields,
    template_preferences,
    variables_schema,
)
from signsvc.templates.document_changes import DocumentChanges
from signsvc.templates.documents import Ingest, IngestedDocument
from signsvc.templates.html_documents import HtmlDocument, HtmlRenderer, sources
from signsvc.templates.merging import Merger
from signsvc.templates.page_images import PageImages
from signsvc.templates.template_fields import Page, Roles
from signsvc.templates.template_writing import Writer, blob_ids
from storage import Connection, Database
from storage.filters import TemplateFilters
from storage.records import Principal, Template, TemplateDocument
from storage.shapes import Condition, Field, Role

log = logging.getLogger(__name__)

DEFAULT_FOLDER = "Default"


class Templates:
    def __init__(self, db: Database, clock: Clock, files: Files, ingest: Ingest, images: PageImages) -> None:
        self.db, self.clock, self.files, self.ingest, self.images = db, clock, files, ingest, images
        self.html = HtmlRenderer(ingest.pool, ingest.downloader)
        self.writer = Writer(db, clock, files)
        self._merger = Merger(self.writer, ingest, images)
        self._document_changes = DocumentChanges(self.writer, ingest, self.html, images)

    async def create(self, principal: Principal, body: dict[str, Any]) -> Template:
        """A template from the creation input."""
        settings = _creation_settings(body)
        tags = pdf_calls.TagReading(remove=json_fields.flag(body, "remove_tags", True))
        raw_documents = body.get("documents")
        if not isinstance(raw_documents, list) or not raw_documents:
            raise errors.at(("documents",), "must be a non-empty array")
        documents = [
            await self.ingest.document(raw, ("documents", index), tags) for index, raw in enumerate(raw_documents)
        ]
        return await self._created_from_input(principal, raw_documents, documents, settings)

    async def create_from_docx(self, principal: Principal, body: dict[str, Any]) -> Template:
        """A template from DOCX documents (from_docx.py): their variables in its `variables_schema`, the DOCX of
        each dynamic one kept with it."""
        settings = _creation_settings(body)
        taken = await from_docx.taken_in(self.ingest, body.get("documents"))
        return await self._created_from_input(
            principal,
            body["documents"],
            [one.document for one in taken],
            settings,
            docx_sources={one.document.uuid: one.source for one in taken if one.source},
            variables=from_docx.variables_of(taken),
        )

    async def _created_from_input(
        self,
        principal: Principal,
        raw_documents: list[Any],
        documents: list[IngestedDocument],
        settings: dict[str, Any],
        *,
        docx_sources: dict[str, NewFile] | None = None,
        variables: dict[str, Any] | None = None,
    ) -> Template:
        # Compiled off the event loop before the fields are read, which then finds each pattern compiled.
        await patterns.prepare(
            patterns.found_in([raw_documents, [document.form_fields for document in documents]])
            + document_tags.patterns(documents)
        )
        roles, fields = fields_of_documents(raw_documents, documents)
        return await self._created(
            principal,
            documents,
            roles,
            fields,
            document_conditions=document_conditions(raw_documents, documents, fields),
            docx_sources=docx_sources,
            variables=variables,
            **settings,
        )

    async def from_html(self, principal: Principal, body: dict[str, Any]) -> tuple[Template, bool]:
        """A template of HTML documents whose field tags are its fields (`html_documents`); True with it when it is
        new. The `external_id` of one of the account's templates (not archived) replaces that template's documents,
        fields, roles and variables_schema (HTML has none: {}) instead (keeping the uuids of roles of the same
        name), and `name`, `folder_name` and `shared_link` when given. Each document comes with the image of its first
        page; the others are made after the answer (`page_images`)."""
        name, external_id, folder_name = (json_fields.text(body, key) for key in ("name", "external_id", "folder_name"))
        shared_link = json_fields.flag(body, "shared_link", True)
        given = sources(body)
        existing = await self._by_external_id(principal, external_id)
        rendered = await self.html.documents(given, image_pages=page_images.IN_REQUEST)
        documents = [one.document for one in rendered]
        await patterns.prepare(patterns.found_in([one.fields for one in rendered]))
        roles, fields = fields_of_html(rendered, Roles(existing.roles) if existing else Roles())
        if existing is None:
            created = await self._created(
                principal,
                documents,
                roles,
                fields,
                name=name,
                external_id=external_id,
                folder_name=folder_name,
                shared_link=shared_link,
            )
            return created, True
        # HTML documents have no variables: a schema kept from replaced (DOCX) documents would refuse submissions
        changes: dict[str, Any] = {"roles": _used(roles, fields), "fields": fields, "variables_schema": {}}
        changes |= {"name": name} if name else {}
        changes |= {"shared_link": shared_link} if body.get("shared_link") is not None else {}
        return await self._replaced(principal, existing, documents, changes, folder_name), False

    async def _by_external_id(self, principal: Principal, external_id: str | None) -> Template | None:
        """The newest of the account's templates (not archived) with this external id."""
        if not external_id:
            return None
        found = await stored.list_templates(
            self.db, principal.account_id, TemplateFilters(external_id=external_id, limit=1)
        )
        return found[0] if found else None

    async def _replaced(
        self,
        principal: Principal,
        existing: Template,
        documents: list[IngestedDocument],
        changes: dict[str, Any],
        folder_name: str | None,
    ) -> Template:
        """The template with new documents (its earlier ones' files forgotten) and `changes`, recorded with its
        `template.updated` event."""
        combined = await self.ingest.combined(documents, changes.get("name") or existing.name)
        files = [file for document in documents for file in (document.pdf, *document.previews)] + (
            [combined] if combined else []
        )
        await self.files.write(files)
        try:
            async with self.db.transaction() as tx:
                await stored.lock_template(tx, existing.id)  # before its documents, which this replaces
                template = auth.owned(principal, await stored.get_template(tx, existing.id), "Template")
                await self.writer.check_defaults(tx, template.account_id, changes["fields"])
                now = self.clock.now()
                if folder_name:
                    changes["folder_id"] = (await stored.folder(tx, template.account_id, folder_name, now)).id
                earlier = await stored.list_documents(tx, template.id)
                await stored.delete_documents(tx, template.id)
                combined_blob = await self.files.record(tx, template.account_id, combined) if combined else None
                await stored.set_combined_blob(tx, template.id, combined_blob.id if combined_blob else None)
                await stored.update_template(tx, template, changes, now)
                for position, document in enumerate(documents):
                    await self.writer.record_document(tx, template.account_id, template.id, position, document, [])
                if any(page_images.pending(document) for document in documents):
                    await page_images.enqueue(tx, self.clock, template.id)
                forgotten = [blob_id for document in earlier for blob_id in blob_ids(document)]
                await self.files.delete(
                    tx, forgotten + ([template.combined_blob_id] if template.combined_blob_id else [])
                )
                await self.writer.event(tx, template.account_id, "template.updated", template.id)
                return await stored.required_template(tx, template.id)
        except BaseException:
            await self.files.discard(files)
            raise

    async def upload(
        self,
        principal: Principal,
        data: bytes,
        filename: str,
        *,
        name: str | None = None,
        folder_name: str | None = None,
        dynamic: bool = False,
    ) -> Template:
        """A template of one uploaded file, made as `create` makes one of
        `{"name": name, "folder_name": folder_name, "documents": [{"file": <data as base64>, "name": filename}]}`
        (the same rules and messages), without the file ever held as base64 text. `dynamic`: a DOCX made as
        `create_from_docx` makes it with `"dynamic": true`, its DOCX kept to be filled with a submission's
        variables."""
        if dynamic:
            return await self._uploaded_docx(principal, data, filename, name=name, folder_name=folder_name)
        document = await self.ingest.uploaded(data, filename, ("documents", 0), pdf_calls.TagReading())
        await patterns.prepare(patterns.found_in(document.form_fields) + document_tags.patterns([document]))
        roles, fields = fields_of_documents([{}], [document])
        return await self._created(
            principal, [document], roles, fields, name=name, external_id=None, folder_name=folder_name, shared_link=True
        )

    async def _uploaded_docx(
        self, principal: Principal, data: bytes, filename: str, *, name: str | None, folder_name: str | None
    ) -> Template:
        stem = PurePosixPath(filename).stem.strip() or None
        taken = await from_docx.document_of(self.ingest, data, stem, True, ("documents", 0))
        return await self._created_from_input(
            principal,
            [{}],
            [taken.document],
            {"name": name, "external_id": None, "folder_name": folder_name, "shared_link": True},
            docx_sources={taken.document.uuid: taken.source} if taken.source else None,
            variables=taken.variables_schema,
        )

    async def _created(
        self,
        principal: Principal,
        documents: list[IngestedDocument],
        roles: Roles,
        fields: list[Field],
        *,
        name: str | None,
        external_id: str | None,
        folder_name: str | None,
        shared_link: bool,
        document_conditions: dict[str, list[Condition]] | None = None,
        docx_sources: dict[str, NewFile] | None = None,
        variables: dict[str, Any] | None = None,
    ) -> Template:
        """The template of ingested documents, recorded with their files (and the sources of dynamic documents,
        by document uuid) and its `template.created` event."""
        name = name or documents[0].name
        docx_sources = docx_sources or {}
        combined = await self.ingest.combined(documents, name)
        files = [file for document in documents for file in (document.pdf, *document.previews)] + (
            [combined] if combined else []
        )
        files += list(docx_sources.values())
        await self.files.write(files)
        try:
            async with self.db.transaction() as tx:
                # In the transaction that stores the template: the files the defaults name are the account's then.
                await self.writer.check_defaults(tx, principal.account_id, fields)
                now = self.clock.now()
                folder = await stored.folder(tx, principal.account_id, folder_name or DEFAULT_FOLDER, now)
                combined_blob = await self.files.record(tx, principal.account_id, combined) if combined else None
                template_id = await stored.insert_template(
                    tx,
                    account_id=principal.account_id,
                    author_id=principal.user_id,
                    folder_id=folder.id,
                    slug=tokens.slug(),
                    name=name,
                    external_id=external_id,
                    source="api",
                    roles=roles.items,
                    fields=fields,
                    preferences={},
                    combined_blob_id=combined_blob.id if combined_blob else None,
                    shared_link=shared_link,
                    now=now,
                    variables_schema=variables,
                )
                for position, document in enumerate(documents):
                    conditions = (document_conditions or {}).get(document.uuid, [])
                    await self.writer.record_document(
                        tx,
                        principal.account_id,
                        template_id,
                        position,
                        document,
                        conditions,
                        docx_sources.get(document.uuid),
                    )
                if any(page_images.pending(document) for document in documents):
                    await page_images.enqueue(tx, self.clock, template_id)
                await self.writer.event(tx, principal.account_id, "template.created", template_id)
                return await stored.required_template(tx, template_id)
        except BaseException:
            await self.files.discard(files)
            raise

    async def find(self, principal: Principal, template_id: int) -> Template:
        """The principal's template: 404 when missing, 403 or 404 (naming the key) when not its own."""
        return auth.owned(principal, await stored.get_template(self.db, template_id), "Template")

    async def page(self, principal: Principal, filters: TemplateFilters) -> list[Template]:
        """A page of the account's templates, newest first."""
        return await stored.list_templates(self.db, principal.account_id, filters)

    async def folder_names(self, principal: Principal) -> list[str]:
        """The names of the account's folders that hold a template, in order."""
        return await stored.folder_names(self.db, principal.account_id)

    async def documents_of(self, template: Template) -> list[TemplateDocument]:
        return await stored.list_documents(self.db, template.id)

    async def shown_documents(self, template: Template) -> list[TemplateDocument]:
        """The template's documents with an image of every page, made now when pending (`page_images`): for showing
        every page."""
        return await self.images.shown(template.id)

    async def update(self, principal: Principal, template_id: int, body: dict[str, Any]) -> Template:
        """Renames, moves, edits roles and fields, archives or restores."""
        body = body["template"] if isinstance(body.get("template"), dict) else body
        await patterns.prepare(patterns.found_in(body.get("fields")))
        async with self.db.transaction() as tx:
            template = auth.owned(principal, await stored.get_template(tx, template_id), "Template")
            changes = await self._changes(tx, template, body)
            await stored.update_template(tx, template, changes, self.clock.now())
            for uuid, conditions in changes.get("document_conditions", {}).items():
                await stored.set_document_conditions(tx, template.id, uuid, conditions)
            await self.writer.event(tx, template.account_id, "template.updated", template.id)
            return await stored.required_template(tx, template.id)

    async def archive(self, principal: Principal, template_id: int) -> Template:
        async with self.db.transaction() as tx:
            template = auth.owned(principal, await stored.get_template(tx, template_id), "Template")
            if template.archived_at is None:
                await stored.update_template(tx, template, {"archived_at": self.clock.now()}, self.clock.now())
            return await stored.required_template(tx, template.id)

    async def delete(self, principal: Principal, template_id: int) -> Template:
        """Deletes the template and its files for good; answers it as it was."""
        async with self.db.transaction() as tx:
            await stored.lock_template(tx, template_id)  # before its documents, whose files this forgets
            template = auth.owned(principal, await stored.get_template(tx, template_id), "Template")
            documents = await stored.list_documents(tx, template.id)
            await stored.delete_template(tx, template.id)
            gone = [blob_id for document in documents for blob_id in blob_ids(document)]
            gone += [template.combined_blob_id] if template.combined_blob_id else []
            await self.files.delete(tx, gone)
        return template

    async def clone(self, principal: Principal, template_id: int, body: dict[str, Any]) -> Template:
        """A copy with fresh uuids for roles, fields, options and documents, and files of its own (every page image
        made first: `page_images`)."""
        name, external_id, folder_name = (json_fields.text(body, key) for key in ("name", "external_id", "folder_name"))
        await self.images.complete((await self.find(principal, template_id)).id)
        async with self.db.transaction() as tx:
            now = self.clock.now()
            source = auth.owned(principal, await stored.get_template(tx, template_id), "Template")
            await patterns.prepare(patterns.found_in(source.fields))
            template_fields.refuse_stored_patterns(source.fields, ("fields",))
            documents = await stored.list_documents(tx, source.id)
            if any(page_images.pending(document) for document in documents):  # replaced since they were completed
                raise errors.Invalid(f"Template {source.id} changed while it was being cloned: send again")
            await self.writer.check_defaults(tx, source.account_id, source.fields)
            fresh = rekeying.fresh_uuids(source, documents)
            folder_id = (
                (await stored.folder(tx, source.account_id, folder_name, now)).id if folder_name else source.folder_id
            )
            combined = await self.files.copy(tx, source.combined_blob_id) if source.combined_blob_id else None
            clone_id = await stored.insert_template(
                tx,
                account_id=source.account_id,
                author_id=principal.user_id,
                folder_id=folder_id,
                slug=tokens.slug(),
                name=name or f"{source.name} (Clone)",
                external_id=external_id,
                source="api",
                roles=rekeying.renamed(source.roles, fresh),
                fields=rekeying.renamed_fields(source.fields, fresh),
                preferences=source.preferences,
                combined_blob_id=combined.id if combined else None,
                shared_link=source.shared_link,
                now=now,
                variables_schema=source.variables_schema,
            )
            for document in documents:
                conditions = rekeying.renamed(document.conditions, fresh)
                await self.writer.copy_document(
                    tx, clone_id, document, fresh[document.uuid], document.position, conditions
                )
            await self.writer.event(tx, source.account_id, "template.created", clone_id)
            return await stored.required_template(tx, clone_id)

    async def merge(self, principal: Principal, body: dict[str, Any]) -> Template:
        """A new template of several, in order: their documents, roles and fields with fresh uuids
        (`signsvc.templates.merging`)."""
        return await self._merger.merge(principal, body)

    async def change_documents(self, principal: Principal, template_id: int, body: dict[str, Any]) -> Template:
        """Adds, replaces and removes documents, then merges them into one when asked
        (`signsvc.templates.document_changes`)."""
        return await self._document_changes.change(principal, template_id, body)

    async def _changes(self, tx: Connection, template: Template, body: dict[str, Any]) -> dict[str, Any]:
        changes: dict[str, Any] = {}
        now = self.clock.now()
        if (name := json_fields.text(body, "name")) is not None:
            if not name.strip():
                raise errors.at(("name",), "must not be empty")
            changes["name"] = name
        if "external_id" in body:
            changes["external_id"] = json_fields.text(body, "external_id")
        if (folder_name := json_fields.text(body, "folder_name")) is not None:
            # Empty, as on creation: the default folder (a folder without a name could not be chosen in a list).
            changes["folder_id"] = (await stored.folder(tx, template.account_id, folder_name or DEFAULT_FOLDER, now)).id
        if "shared_link" in body:
            changes["shared_link"] = json_fields.flag(body, "shared_link", template.shared_link)
        if "preferences" in body:
            changes["preferences"] = template_preferences.changed(template.preferences, body["preferences"])
        if "variables_schema" in body:
            changes["variables_schema"] = variables_schema.checked(body["variables_schema"])
        if "archived" in body:
            archived = json_fields.flag(body, "archived")
            changes["archived_at"] = (template.archived_at or now) if archived else None
        roles = _roles(template, body)
        if roles is not None:
            changes["roles"] = roles.items
        if "fields" in body:
            roles = roles or Roles(template.roles)
            pages = [Page(d.uuid, len(d.pages)) for d in await stored.list_documents(tx, template.id)]
            given = template_fields.fields(body["fields"], roles, pages, ("fields",), first_page=0)
            changes["fields"] = formula_checks.checked(
                condition_rules.checked_fields(given, [("fields", i) for i in range(len(given))])
            )
            await self.writer.check_defaults(tx, template.account_id, changes["fields"])
            changes["roles"] = roles.items
        if "schema" in body or "fields" in body:
            documents = await stored.list_documents(tx, template.id)
            fields = changes.get("fields", template.fields)
            changes["document_conditions"] = condition_rules.schema_conditions(body.get("schema"), documents, fields)
        return changes


def fields_of_documents(
    raw_documents: list[Any], documents: list[IngestedDocument], roles: Roles | None = None
) -> tuple[Roles, list[Field]]:
    """The roles (`roles` and those the fields name) and fields the creation input gives each document, else the
    document's own form fields; and the fields of its text tags, but those an explicit or form field names."""
    roles = roles or Roles()
    found: list[Field] = []
    places: list[errors.Location] = []
    tagged: list[tuple[errors.Location, dict[str, Any]]] = []
    for index, (raw, document) in enumerate(zip(raw_documents, documents, strict=True)):
        before = len(found)
        sizes = tuple((page["width"], page["height"]) for page in document.pages)
        pages = [Page(document.uuid, len(document.pages), sizes)]
        if raw.get("fields") is not None:
            given = template_fields.fields(raw["fields"], roles, pages, ("documents", index, "fields"), first_page=1)
            places += [("documents", index, "fields", i) for i in range(len(given))]
            found += given
        else:
            given = template_fields.fields(
                _within_limit(document.form_fields, len(found), index),
                roles,
                pages,
                ("documents", index, "form_fields"),
                first_page=0,
            )
            places += [("documents", index, "form_fields", i) for i in range(len(given))]
            found += given
        tag_fields = document_tags.fields(document, ("documents", index), taken=[f["name"] for f in found[before:]])
        tagged += [(("documents", index, "tags", i), given) for i, given in enumerate(tag_fields)]
        with field_tags.naming_tags(tagged):
            found += template_fields.fields(tag_fields, roles, pages, ("documents", index, "tags"), first_page=1)
        places += [("documents", index, "tags", i) for i in range(len(tag_fields))]
    if len(found) > template_fields.MAX_FIELDS:
        raise errors.Invalid(f"documents have {len(found)} fields: a template has at most {template_fields.MAX_FIELDS}")
    roles.uuid_for(None)
    with field_tags.naming_tags(tagged):
        return roles, formula_checks.checked(condition_rules.checked_fields(found, places))


def fields_of_html(rendered: list[HtmlDocument], roles: Roles | None = None) -> tuple[Roles, list[Field]]:
    """The roles (`roles` and those the tags name) and fields of HTML documents' field tags; a refusal about a
    field quotes its tag."""
    tagged: list[tuple[errors.Location, dict[str, Any]]] = [
        (("documents", i, "fields", j), tag) for i, one in enumerate(rendered) for j, tag in enumerate(one.fields)
    ]
    with field_tags.naming_tags(tagged):
        documents = [one.document for one in rendered]
        return fields_of_documents([{"fields": one.fields} for one in rendered], documents, roles)


def document_conditions(
    raw_documents: list[Any], documents: list[IngestedDocument], fields: list[Field]
) -> dict[str, list[Condition]]:
    """Each document's `conditions` from the creation input, checked against the template's fields."""
    found = {
        document.uuid: condition_rules.document_conditions(
            raw.get("conditions") if isinstance(raw, dict) else None, document.uuid, fields, ("documents", index)
        )
        for index, (raw, document) in enumerate(zip(raw_documents, documents, strict=True))
    }
    condition_rules.refuse_loops(fields, found)
    return found


def _used(roles: Roles, fields: list[Field]) -> list[Role]:
    """The roles that fields belong to, in order (the first role when none does)."""
    used = {field["submitter_uuid"] for field in fields}
    return [role for role in roles.items if role["uuid"] in used] or roles.items[:1]


def _within_limit(form_fields: list[dict[str, Any]], before: int, index: int) -> list[dict[str, Any]]:
    """A PDF's own form fields, those beyond a template's limit left out (and logged): a PDF's form never
    makes it unacceptable."""
    room = max(template_fields.MAX_FIELDS - before, 0)
    if len(form_fields) > room:
        log.warning(
            "documents[%d]: %d of its %d form fields are left out: a template has at most %d fields",
            index,
            len(form_fields) - room,
            len(form_fields),
            template_fields.MAX_FIELDS,
        )
    return form_fields[:room]


def _roles(template: Template, body: dict[str, Any]) -> Roles | None:
    """`submitters` replaces the roles; `roles` (names) renames them by position and appends new ones."""
    if isinstance(body.get("submitters"), list):
        items = body["submitters"]
        if not all(isinstance(r, dict) and isinstance(r.get("name"), str) for r in items):
            raise errors.at(("submitters",), "must be an array of objects with a name")
        return Roles(
            [
                {"name": r["name"], "uuid": r["uuid"] if isinstance(r.get("uuid"), str) else template_fields.new_uuid()}
                for r in items
            ]
        )
    if "roles" not in body:
        return None
    names = body["roles"]
    if not isinstance(names, list) or not all(isinstance(n, str) and n.strip() for n in names):
        raise errors.at(("roles",), "must be an array of role names")
    roles = [role.copy() for role in template.roles]
    for index, name in enumerate(names):
        if index < len(roles):
            roles[index]["name"] = name
        else:
            roles.append({"name": name, "uuid": template_fields.new_uuid()})
    return Roles(roles)


def _creation_settings(body: dict[str, Any]) -> dict[str, Any]:
    """What the creation input says of the template itself: its name, external id, folder and shared link."""
    name, external_id, folder_name = (json_fields.text(body, key) for key in ("name", "external_id", "folder_name"))
    return {
        "name": name,
        "external_id": external_id,
        "folder_name": folder_name,
        "shared_link": json_fields.flag(body, "shared_link", True),
    }
