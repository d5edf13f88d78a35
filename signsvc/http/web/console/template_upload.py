"""Uploading a document as a new template: a plain multipart form (it works without script; the page's
script adds a progress bar and asks for JSON). The file's bytes go to `Templates.upload`, which takes them
as `POST /api/templates` takes the same file as base64 (recognised by content, converted, inspected and
rendered in the PDF pool) and refuses with the same messages, nothing saved.

Two kinds take another door: an HTML file (by its name or type) is `Templates.from_html`'s, as
`POST /api/templates/html` takes it (its field tags the fields, the page size chosen on the form); a DOCX with
"keep [[variables]]" ticked is a dynamic DOCX document as `POST /api/templates/docx` makes one."""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

from aiohttp import web

from signsvc.http.appkeys import SETTINGS, TEMPLATES
from signsvc.http.responses import json_response
from signsvc.http.web import catalogue
from signsvc.http.web.console import forms, shell
from signsvc.infra import errors
from signsvc.templates.html_documents import DEFAULT_SIZE, PAGE_SIZES
from storage.records import Principal, Template

NEW = "/console/templates/new"
# What the file input offers; the service recognises files by content, whatever they are called.
ACCEPTED = (
    ".pdf,.png,.jpg,.jpeg,.webp,.gif,.tif,.tiff,.docx,.doc,.odt,.rtf,.xlsx,.pptx,.html,.htm,application/pdf,image/*,"
    "text/html,application/vnd.openxmlformats-officedocument.wordprocessingml.document"
)
HTML_SUFFIXES = (".html", ".htm")


async def form(request: web.Request) -> web.Response:
    """GET /console/templates/new."""
    console = await shell.signed_in(request)
    return await _form(request, console)


async def upload(request: web.Request) -> web.Response:
    """POST /console/templates/new: the template made, then its editor; a refused file is the form again
    with the message (or, for the page's script, `{"error": message}`)."""
    console = await shell.signed_in(request)
    wants_json = "application/json" in request.headers.get("Accept", "")
    try:
        posted = await shell.posted(request, console.session)
    except shell.FormUnreadable as unreadable:
        if unreadable.status != 413:
            raise
        return await _refused(
            request, console, wants_json, {}, ("console.templates.upload.too_large", {"megabytes": _megabytes(request)})
        )
    values = {key: forms.text(posted, key) for key in ("name", "folder", "size", "dynamic")}
    file = posted.get("file")
    if not isinstance(file, web.FileField) or not (data := file.file.read()):
        return await _refused(request, console, wants_json, values, ("console.templates.upload.no_file", {}))
    try:
        template = await _made(request, console.principal, file, data, values)
    except errors.Invalid as refused:
        return await _refused(request, console, wants_json, values, refused.message)
    except UnicodeDecodeError:
        return await _refused(request, console, wants_json, values, ("console.templates.upload.html_not_utf8", {}))
    editor = f"/console/templates/{template.id}?done=template_uploaded"
    if wants_json:
        return json_response({"id": template.id, "location": editor}, status=201)
    raise web.HTTPSeeOther(editor)


async def _made(
    request: web.Request, principal: Principal, file: web.FileField, data: bytes, values: dict[str, str]
) -> Template:
    """The template of the uploaded file: an HTML template, a dynamic DOCX one, or one of any other document."""
    templates, filename = request.app[TEMPLATES], file.filename or "document"
    name, folder = values["name"] or None, values["folder"] or None
    if filename.lower().endswith(HTML_SUFFIXES) or file.content_type == "text/html":
        body = {
            "html": data.decode("utf-8-sig"),
            "name": name or PurePosixPath(filename).stem,
            "folder_name": folder,
            "size": values["size"] or None,
        }
        template, _ = await templates.from_html(principal, body)
        return template
    dynamic = values["dynamic"] == "on"
    return await templates.upload(principal, data, filename, name=name, folder_name=folder, dynamic=dynamic)


async def _form(
    request: web.Request,
    console: shell.Console,
    *,
    status: int = 200,
    values: dict[str, str] | None = None,
    problem: Any = None,
) -> web.Response:
    return shell.render(
        request,
        "console/templates_new.html",
        console.session,
        console=console,
        status=status,
        values=values or {},
        problem=problem,
        accepted=ACCEPTED,
        sizes=list(PAGE_SIZES),
        default_size=DEFAULT_SIZE,
        folders=await request.app[TEMPLATES].folder_names(console.principal),
    )


async def _refused(
    request: web.Request, console: shell.Console, wants_json: bool, values: dict[str, str], problem: Any
) -> web.Response:
    """The form again with the problem: a catalogue key and its values, or the API's own message."""
    if not wants_json:
        return await _form(request, console, status=422, values=values, problem=problem)
    message = problem if isinstance(problem, str) else None
    if message is None:
        message = catalogue.translator(catalogue.language(request))(problem[0], **problem[1])
    return json_response({"error": message}, status=422)


def _megabytes(request: web.Request) -> str:
    """The largest body the service reads, in MB: "64", or "0.0625" for a small limit."""
    return f"{request.app[SETTINGS].max_body_bytes / (1024 * 1024):.3g}"
