"""The field editor (`/console/templates/{id}`): a template's pages as the signing form shows them, with its
fields drawn on them, and the script (`field-editor.js`) that places, moves, resizes and sets up fields
for the template's roles. Without script the page shows the pages and the fields, read only.

Saving posts the editor's `{fields, submitters}` as JSON to `/console/templates/{id}/fields`, which makes
the update behind `PUT /api/templates/{id}`: the rules (boxes inside their page, known roles, options,
the number of fields) and their messages are the API's, and a refused save changes nothing.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from signsvc.http.appkeys import FILES, SETTINGS, TEMPLATES
from signsvc.http.params import read_json, record_id
from signsvc.http.responses import json_response
from signsvc.http.web import catalogue
from signsvc.http.web.console import forms, shell
from signsvc.http.web.console.badges import Badge
from signsvc.http.web.console.session import CSRF_HEADER
from signsvc.infra import errors
from signsvc.infra.files import Files
from signsvc.submissions.signing_form import Page
from signsvc.templates.template_fields import FIELD_TYPES
from storage.records import Template, TemplateDocument
from storage.shapes import Area, Field

# What the editor sends; anything else of the template is changed elsewhere (its name and folder by a form).
SAVED_KEYS = ("fields", "submitters")
TYPE_NAMES = {
    "text": "console.templates.type.text",
    "signature": "console.templates.type.signature",
    "initials": "console.templates.type.initials",
    "date": "console.templates.type.date",
    "number": "console.templates.type.number",
    "checkbox": "console.templates.type.checkbox",
    "radio": "console.templates.type.radio",
    "select": "console.templates.type.select",
    "multiple": "console.templates.type.multiple",
    "image": "console.templates.type.image",
    "file": "console.templates.type.file",
    "phone": "console.templates.type.phone",
    "stamp": "console.templates.type.stamp",
    "cells": "console.templates.type.cells",
}
SCRIPT_PREFIX = "console.templates.editor."
ROLE_COLOURS = 8  # role-0 … role-7 in console-editor.css
ARCHIVED = Badge("console.templates.archived_badge", "wait")
# The inputs of the name and folder form, by the field the API's messages name.
INPUTS = {"name": "template-name", "folder_name": "template-folder"}


async def editor(request: web.Request) -> web.Response:
    """GET /console/templates/{id}."""
    console = await shell.signed_in(request)
    return await _editor(request, console, await request.app[TEMPLATES].find(console.principal, record_id(request)))


async def rename(request: web.Request) -> web.Response:
    """POST /console/templates/{id}: the template's name and folder (a plain form)."""
    console = await shell.signed_in(request)
    form = await shell.posted(request, console.session)
    templates = request.app[TEMPLATES]
    template = await templates.find(console.principal, record_id(request))
    name, folder = (forms.text(form, key) for key in ("name", "folder"))
    try:  # a folder cleared is the default folder, as for `PUT /api/templates/{id}` with an empty folder_name
        await templates.update(console.principal, template.id, {"name": name, "folder_name": folder})
    except errors.Invalid as refused:
        return await _editor(
            request,
            console,
            template,
            status=422,
            refused=forms.Refusal.of(refused, forms.by_key(INPUTS)),
            values={"name": name, "folder": folder},
        )
    raise shell.done(f"/console/templates/{template.id}", "template_renamed")


async def save_fields(request: web.Request) -> web.Response:
    """POST /console/templates/{id}/fields (JSON, X-CSRF-Token): the editor's fields and roles, saved as
    `PUT /api/templates/{id}` saves them (a body up to the service's limit, as there); answers them as
    stored, or `{"error": message}` (422, or 403 without the page's CSRF token)."""
    console = await shell.signed_in(request)
    if _is_json(request) and not console.session.accepts(request.headers.get(CSRF_HEADER)):
        message = catalogue.translator(catalogue.language(request))("console.templates.editor.expired")
        return json_response({"error": message}, status=403)
    shell.check_header(request, console.session)
    body = await read_json(request, max_bytes=request.app[SETTINGS].max_body_bytes or None)
    template = await request.app[TEMPLATES].update(
        console.principal, record_id(request), {key: body[key] for key in SAVED_KEYS if key in body}
    )
    return json_response(
        {"id": template.id, "updated_at": template.updated_at, "fields": template.fields, "submitters": template.roles}
    )


def _is_json(request: web.Request) -> bool:
    """A script's request, which reads any answer as JSON (a page without the token is for forms)."""
    return request.content_type == "application/json" or "application/json" in request.headers.get("Accept", "")


async def _editor(
    request: web.Request,
    console: shell.Console,
    template: Template,
    *,
    status: int = 200,
    refused: forms.Refusal | None = None,
    values: dict[str, str] | None = None,
) -> web.Response:
    templates = request.app[TEMPLATES]
    documents = await templates.shown_documents(template)
    language = catalogue.language(request)
    return shell.render(
        request,
        "console/templates_editor.html",
        console.session,
        console=console,
        status=status,
        record=template,
        archived=ARCHIVED,
        pages=pages(request.app[FILES], documents),
        refused=refused,
        values=values or {"name": template.name, "folder": template.folder_name},
        folders=await templates.folder_names(console.principal),
        types=TYPE_NAMES,
        role_index={role["uuid"]: index % ROLE_COLOURS for index, role in enumerate(template.roles)},
        role_names={role["uuid"]: role["name"] for role in template.roles},
        areas=_areas_by_page(template.fields),
        page_numbers=page_numbers,
        data=_script_data(console, template, documents, language),
    )


def pages(files: Files, documents: list[TemplateDocument]) -> list[Page]:
    """Each page of the documents with its picture (made when the template was created, or after: documents with
    every picture), as the signing form shows them."""
    found = []
    for document in documents:
        for index, size in enumerate(document.pages):
            preview = document.previews[index] if index < len(document.previews) else None
            image = files.links.path(preview["uuid"], preview["filename"]) if preview else None
            found.append(
                Page(document.uuid, document.name, index, image, size["width"], size["height"], size.get("text", ""))
            )
    return found


def page_numbers(field: Field) -> str:
    """The pages a field's boxes are on, counted from 1: "1, 3"."""
    return ", ".join(str(area["page"] + 1) for area in field.get("areas", []))


def _areas_by_page(fields: list[Field]) -> dict[tuple[str, int], list[tuple[Field, Area]]]:
    found: dict[tuple[str, int], list[tuple[Field, Area]]] = {}
    for field in fields:
        for area in field.get("areas", []):
            found.setdefault((area["attachment_uuid"], area["page"]), []).append((field, area))
    return found


def _script_data(
    console: shell.Console, template: Template, documents: list[TemplateDocument], language: str
) -> dict[str, Any]:
    """What the editor's script starts from: the stored roles and fields as they are (so whatever the
    editor does not show is saved back unchanged), the documents' pages, and its strings."""
    t, strings = catalogue.translator(language), catalogue.strings(language)
    return {
        "save": f"/console/templates/{template.id}/fields",
        "csrf": console.session.csrf,
        "roles": template.roles,
        "fields": template.fields,
        "documents": [{"uuid": d.uuid, "name": d.name, "pages": len(d.pages)} for d in documents],
        "types": {kind: t(TYPE_NAMES[kind]) for kind in FIELD_TYPES},
        "strings": {key: text for key, text in strings.items() if key.startswith(SCRIPT_PREFIX)},
    }
