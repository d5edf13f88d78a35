"""Sending a template to many signers from a CSV or XLSX file, from the template's send page: the file is read
(`bulk_table`), each column given a target (`bulk_mapping`, guessed from the headers, each a labelled select),
the first rows shown, and every row checked by the API's rules; only when no row is refused does "Send" make
one submission for each row (`bulk_rows`). The table travels with the mapping form (a hidden input of a
multipart form), so nothing is kept between the steps; it is read and written in a thread, as large as it may be.
"Send" posts once (`bulk_once`): a second post of the same form makes nothing. After sending, a page shows how
many invitations have gone out; its script (pages/static/bulk-progress.js) updates it while they go, and without
script a link does."""

from __future__ import annotations

import asyncio
from typing import Any

from aiohttp import web
from markupsafe import Markup, escape

from signsvc.http.appkeys import OUTBOX, SUBMISSIONS, TEMPLATES
from signsvc.http.params import record_id
from signsvc.http.responses import json_response
from signsvc.http.web.console import bulk_once, bulk_rows, bulk_table, shell
from signsvc.http.web.console import send as send_page
from signsvc.http.web.console.bulk_mapping import NOT_USED, Mapping, Problem, guessed, targets
from signsvc.http.web.console.bulk_table import Table, TableUnreadable
from signsvc.http.web.console.forms import text
from signsvc.http.web.console.paths import ID
from signsvc.infra import errors
from signsvc.submissions.submissions import PartlyMade
from storage.records import Template

PREVIEW_ROWS = 5
SHOWN_PROBLEMS = 50
# The table carried back by the mapping form, as JSON: a file's bytes with room for the escaping of quotes.
CARRIED_LIMIT = 2 * bulk_table.MAX_BYTES
_STALE = "console.bulk.send.stale"
_BUSY = "console.bulk.send.busy"
_PARTLY = "console.bulk.send.partly"


async def bulk(request: web.Request) -> web.Response:
    """POST /console/templates/{id}/bulk: a file (the mapping page with the guessed mapping), or the mapping page
    posted back (checked again, or, with `send` and nothing refused, the submissions made)."""
    console = await shell.signed_in(request)
    template = await request.app[TEMPLATES].find(console.principal, record_id(request))
    form = await shell.posted(request, console.session)
    sending = "send" in form
    if sending and (earlier := await bulk_once.earlier(request, text(form, bulk_once.FIELD))):
        raise web.HTTPSeeOther(await _earlier_path(request, console, template, earlier))
    try:
        mapping, table = await _read(form, template)
    except TableUnreadable as unreadable:
        problem = Problem(unreadable.key, unreadable.values)
        blank = send_page.SendForm.blank(template)
        return send_page.form_page(request, console, template, blank, status=422, bulk_problem=problem)
    problems = mapping.problems()
    submissions = request.app[SUBMISSIONS]
    try:
        checked = None if problems else await bulk_rows.check(submissions, console.principal, table, mapping)
    except errors.Invalid as refused:
        return await _page(request, console, template, table, mapping, status=422, refused=refused.message)
    if sending and checked and not checked.problems:
        return await _send(request, console, template, table, mapping, form, checked)
    status = 422 if sending or problems or (checked and checked.problems) else 200
    return await _page(request, console, template, table, mapping, status=status, problems=problems, checked=checked)


async def _send(
    request: web.Request,
    console: shell.Console,
    template: Template,
    table: Table,
    mapping: Mapping,
    form: Any,
    checked: bulk_rows.Checked,
) -> web.Response:
    """The submissions made, once for the form's token; the progress page of what its first post made."""
    token = text(form, bulk_once.FIELD)
    if not await bulk_once.valid(request, token):
        return await _page(request, console, template, table, mapping, status=422, notice=Problem(_STALE, {}))
    try:
        await bulk_once.claim(request, token)
    except bulk_once.Busy:
        return await _page(request, console, template, table, mapping, status=409, notice=Problem(_BUSY, {}))
    try:
        made = await bulk_rows.send(request.app[SUBMISSIONS], console.principal, checked.bodies)
    except PartlyMade as partly:
        await bulk_once.settle(request, token, partly.made)
        stopped = {"made": len(partly.made), "rest": len(checked.bodies) - len(partly.made)}
        notice = Problem(_PARTLY, {**stopped, "problem": partly.refused.message})
        status = partly.refused.status if partly.refused.status >= 500 else 422
        return await _page(request, console, template, table, mapping, status=status, notice=notice)
    await bulk_once.settle(request, token, made)
    raise web.HTTPSeeOther(_sent_path(template, made[0].id, made[-1].id, len(made)))


async def _earlier_path(
    request: web.Request, console: shell.Console, template: Template, earlier: bulk_once.Made
) -> str:
    progress = await request.app[SUBMISSIONS].bulk_progress(console.principal, template.id, earlier.first, earlier.last)
    return _sent_path(template, earlier.first, earlier.last, progress.created)


async def _read(form: Any, template: Template) -> tuple[Mapping, Table]:
    """The uploaded file with the mapping its headers suggest, or the table and mapping posted back."""
    file = form.get("file")
    if isinstance(file, web.FileField):
        table = await bulk_table.read(await asyncio.to_thread(file.file.read))
        return guessed(table, template), table
    if not (carried := text(form, "table", strip=False)):
        raise TableUnreadable("console.bulk.file.none")
    if len(carried) > CARRIED_LIMIT:
        raise TableUnreadable("console.bulk.file.too_large", megabytes=bulk_table.MAX_BYTES // (1024 * 1024))
    table = await asyncio.to_thread(bulk_table.of_carried_json, carried)
    keys = tuple(text(form, f"column-{column}") or NOT_USED for column in range(len(table.headers)))
    return Mapping(template, table.headers, keys), table


async def sent(request: web.Request) -> web.Response:
    """GET /console/templates/{id}/bulk/sent?first=&last=&count=: how far the invitations of a bulk send have
    gone; JSON for the page's script."""
    console = await shell.signed_in(request)
    template = await request.app[TEMPLATES].find(console.principal, record_id(request))
    first, last, count = (_number(request, key) for key in ("first", "last", "count"))
    progress = await request.app[SUBMISSIONS].bulk_progress(console.principal, template.id, first, last)
    if "application/json" in request.headers.get("Accept", ""):
        return json_response({"created": progress.created, "invited": progress.invited, "sent": progress.sent})
    return shell.render(
        request,
        "console/bulk_sent.html",
        console.session,
        console=console,
        chosen=template,
        progress=progress,
        count=count,
        progress_url=request.path_qs,
        kept=request.app[OUTBOX].smtp_server is None,
    )


def _number(request: web.Request, key: str) -> int:
    value = request.query.get(key, "")
    if not (value.isascii() and value.isdigit() and len(value) <= 18):
        raise errors.NotFound()
    return int(value)


def _sent_path(template: Template, first: int, last: int, count: int) -> str:
    return f"/console/templates/{template.id}/bulk/sent?first={first}&last={last}&count={count}"


async def _page(
    request: web.Request,
    console: shell.Console,
    template: Template,
    table: Table,
    mapping: Mapping,
    *,
    status: int,
    problems: list[Problem] | None = None,
    checked: bulk_rows.Checked | None = None,
    refused: str | None = None,
    notice: Problem | None = None,
) -> web.Response:
    row_problems = checked.problems if checked else []
    carried = await asyncio.to_thread(_carried_field, table)
    return shell.render(
        request,
        "console/bulk_send.html",
        console.session,
        console=console,
        status=status,
        chosen=template,
        table=table,
        table_data=carried,
        send_token=await bulk_once.issue(request),
        notice=notice,
        preview=table.rows[:PREVIEW_ROWS],
        mapping=mapping,
        targets=targets(template),
        examples=[_example(table, column) for column in range(len(table.headers))],
        problems=problems or [],
        row_problems=row_problems[:SHOWN_PROBLEMS],
        more_problems=max(0, len(row_problems) - SHOWN_PROBLEMS),
        ready=len(checked.bodies) if checked and not checked.problems else 0,
        refused=refused,
    )


def _carried_field(table: Table) -> Markup:
    """The table as the mapping form's hidden input carries it, escaped for its value."""
    return escape(bulk_table.carried_json(table))


def _example(table: Table, column: int) -> str:
    """The column's first value, to show beside its select."""
    return next((cell for row in table.rows if (cell := row.cell(column))), "")


async def bulk_page(request: web.Request) -> web.Response:
    """GET /console/templates/{id}/bulk (the mapping page's address, opened again): the send page, whose form
    reads a file."""
    console = await shell.signed_in(request)
    template = await request.app[TEMPLATES].find(console.principal, record_id(request))
    raise web.HTTPSeeOther(f"/console/templates/{template.id}/send#bulk-title")


ROUTES = [
    web.get(f"/console/templates/{ID}/bulk", bulk_page),
    web.post(f"/console/templates/{ID}/bulk", bulk),
    web.get(f"/console/templates/{ID}/bulk/sent", sent),
]
