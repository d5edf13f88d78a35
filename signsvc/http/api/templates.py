"""Template endpoints (SPEC section 4, Templates) and the template record (REFERENCE section 3.1)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from aiohttp import web

import storage.templates as stored
from signsvc.templates import templates
from signsvc.http.middleware import principal
from signsvc.http.pagination import Page, paginated
from signsvc.http.params import Query, read_json
from signsvc.http.responses import json_response
from signsvc.http.appkeys import INGEST, SERVICES
from signsvc.infra.files import Files
from storage.records import Template, TemplateDocument


def _id(request: web.Request) -> int:
    return int(request.match_info["id"])


async def index(request: web.Request) -> web.Response:
    query, services, who = Query(request), request.app[SERVICES], principal(request)
    page = Page.from_query(query)
    found = await stored.list_templates(
        services.db, who.account_id, archived=bool(query.boolean("archived")), q=query.string("q"),
        external_id=query.string("external_id") or query.string("application_key"), folder=query.string("folder"),
        limit=page.limit, after=page.after, before=page.before)
    documents = await stored.documents_of(services.db, who.account_id, found)
    return json_response(paginated(found, lambda t: template_json(services.files, t, documents[t.id])))


async def create(request: web.Request) -> web.Response:
    services = request.app[SERVICES]
    template_id = await templates.create(services, request.app[INGEST], principal(request), await read_json(request))
    return json_response(await _show(request, template_id), status=201)


async def show(request: web.Request) -> web.Response:
    return json_response(await _show(request, _id(request)))


async def update(request: web.Request) -> web.Response:
    body = await read_json(request)
    template = await templates.update(request.app[SERVICES], principal(request), _id(request), body)
    return json_response({"id": template.id, "updated_at": template.updated_at})


async def destroy(request: web.Request) -> web.Response:
    services, who = request.app[SERVICES], principal(request)
    if Query(request).boolean("permanently"):
        template = await templates.delete(services, who, _id(request))
    else:
        template = await templates.archive(services, who, _id(request))
    return json_response({"id": template.id, "archived_at": template.archived_at})


async def clone(request: web.Request) -> web.Response:
    body = await read_json(request)
    clone_id = await templates.clone(request.app[SERVICES], principal(request), _id(request), body)
    return json_response(await _show(request, clone_id))


async def pdf(request: web.Request) -> web.Response:
    services = request.app[SERVICES]
    template = await templates.find(services.db, principal(request), _id(request))
    documents = await templates.documents_of(services, template)
    if template.combined_uuid:
        filename, url = template.combined_filename, services.files.link(template.combined_uuid,
                                                                         template.combined_filename)
    else:
        filename, url = documents[0].filename, services.files.link(documents[0].blob_uuid, documents[0].filename)
    return json_response({"id": template.id, "name": template.name, "pdf_url": url, "filename": filename,
                          "documents": [_document_json(services.files, d) for d in documents]})


async def _show(request: web.Request, template_id: int) -> dict[str, Any]:
    services = request.app[SERVICES]
    template = await templates.find(services.db, principal(request), template_id)
    return template_json(services.files, template, await templates.documents_of(services, template))


def template_json(files: Files, template: Template, documents: list[TemplateDocument]) -> dict[str, Any]:
    return {
        "id": template.id,
        "slug": template.slug,
        "name": template.name,
        "preferences": template.preferences,
        "schema": [{"attachment_uuid": d.uuid, "name": d.name} for d in documents],
        "fields": _named_fields(template.fields),
        "submitters": template.roles,
        "author_id": template.author_id,
        "archived_at": template.archived_at,
        "created_at": template.created_at,
        "updated_at": template.updated_at,
        "source": template.source,
        "external_id": template.external_id,
        "application_key": template.external_id,
        "folder_id": template.folder_id,
        "folder_name": template.folder_name,
        "shared_link": template.shared_link,
        "author": {"id": template.author_id, "email": template.author_email,
                   "first_name": template.author_first_name, "last_name": template.author_last_name},
        "documents": [_document_json(files, d) for d in documents],
    }


def _document_json(files: Files, document: TemplateDocument) -> dict[str, Any]:
    preview = document.previews[0] if document.previews else None
    return {"id": document.id, "uuid": document.uuid, "url": files.link(document.blob_uuid, document.filename),
            "preview_image_url": files.link(preview["uuid"], preview["filename"]) if preview else None,
            "filename": document.filename}


def _named_fields(fields: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Unnamed fields are reported as "Text Field 1", "Signature Field 2" (counted per type)."""
    counts: Counter[str] = Counter()
    named = []
    for field in fields:
        counts[field["type"]] += 1
        if not field.get("name"):
            field = {**field, "name": f"{field['type'].capitalize()} Field {counts[field['type']]}"}
        named.append(field)
    return named
