"""Template endpoints."""

from __future__ import annotations

from aiohttp import web

from signsvc.http.appkeys import DB, FILES, TEMPLATES
from signsvc.http.middleware import principal
from signsvc.http.pagination import Page, paginated
from signsvc.http.params import Query, read_json, record_id
from signsvc.http.responses import json_response
from signsvc.loaders import templates as loaders
from signsvc.wire import template_json
from storage.filters import TemplateFilters


async def index(request: web.Request) -> web.Response:
    query, templates, who = Query(request), request.app[TEMPLATES], principal(request)
    page = Page.from_query(query)
    found = await templates.page(
        who,
        TemplateFilters(
            archived=bool(query.boolean("archived")),
            q=query.string("q"),
            external_id=query.string("external_id") or query.string("application_key"),
            folder=query.string("folder"),
            limit=page.limit,
            after=page.after,
            before=page.before,
        ),
    )
    documents = await loaders.documents(request.app[DB], who.account_id, found)
    links = request.app[FILES].links
    return json_response(paginated(found, lambda t: template_json.template_json(links, t, documents[t.id])))


async def create(request: web.Request) -> web.Response:
    template = await request.app[TEMPLATES].create(principal(request), await read_json(request))
    return await _shown(request, template.id, status=201)


async def create_from_docx(request: web.Request) -> web.Response:
    template = await request.app[TEMPLATES].create_from_docx(principal(request), await read_json(request))
    return await _shown(request, template.id, status=201)


async def from_html(request: web.Request) -> web.Response:
    """201 with a new template; 200 with the template of the same `external_id`, updated."""
    template, created = await request.app[TEMPLATES].from_html(principal(request), await read_json(request))
    return await _shown(request, template.id, status=201 if created else 200)


async def show(request: web.Request) -> web.Response:
    return await _shown(request, record_id(request))


async def update(request: web.Request) -> web.Response:
    body = await read_json(request)
    template = await request.app[TEMPLATES].update(principal(request), record_id(request), body)
    return json_response({"id": template.id, "updated_at": template.updated_at})


async def destroy(request: web.Request) -> web.Response:
    templates, who = request.app[TEMPLATES], principal(request)
    if Query(request).boolean("permanently"):
        template = await templates.delete(who, record_id(request))
    else:
        template = await templates.archive(who, record_id(request))
    return json_response({"id": template.id, "archived_at": template.archived_at})


async def clone(request: web.Request) -> web.Response:
    body = await read_json(request)
    template = await request.app[TEMPLATES].clone(principal(request), record_id(request), body)
    return await _shown(request, template.id)


async def merge(request: web.Request) -> web.Response:
    template = await request.app[TEMPLATES].merge(principal(request), await read_json(request))
    return await _shown(request, template.id, status=201)


async def change_documents(request: web.Request) -> web.Response:
    body = await read_json(request)
    template = await request.app[TEMPLATES].change_documents(principal(request), record_id(request), body)
    return await _shown(request, template.id)


async def pdf(request: web.Request) -> web.Response:
    templates = request.app[TEMPLATES]
    template = await templates.find(principal(request), record_id(request))
    return json_response(
        template_json.pdf_json(request.app[FILES].links, template, await templates.documents_of(template))
    )


async def _shown(request: web.Request, template_id: int, status: int = 200) -> web.Response:
    templates = request.app[TEMPLATES]
    template = await templates.find(principal(request), template_id)
    documents = await loaders.documents(request.app[DB], template.account_id, [template])
    return json_response(
        template_json.template_json(request.app[FILES].links, template, documents[template.id]), status=status
    )
