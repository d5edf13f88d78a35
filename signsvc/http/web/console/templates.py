"""The console's templates: the list of the current mode's templates (search, folder, archived ones in a
view of their own, pages of it), and what can be done to one from the list: archive (after a confirmation
page), restore, clone. Uploading is `template_upload`, placing fields `field_editor`.

Every change goes through `Templates`, the object behind `/api/templates`: one set of rules for both.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlencode

from aiohttp import web

from signsvc.http.appkeys import TEMPLATES
from signsvc.http.params import Query, record_id
from signsvc.http.web.console import field_editor, shell, template_upload
from signsvc.infra import errors
from storage.records import Template

LIST = "/console/templates"
PAGE_SIZE = 20


@dataclass(frozen=True)
class Filters:
    """What the list shows: a search by name, a folder, active or archived templates."""

    q: str
    folder: str
    archived: bool

    @classmethod
    def of(cls, request: web.Request) -> Filters:
        return cls(_text(request, "q"), _text(request, "folder"), _text(request, "view") == "archived")

    def link(self, **more: Any) -> str:
        """The list's address with these filters and `more` (a page's `after` or `before`)."""
        values = {"q": self.q, "folder": self.folder, "view": "archived" if self.archived else "", **more}
        found = urlencode({key: value for key, value in values.items() if value not in ("", None)})
        return f"{LIST}?{found}" if found else LIST


async def index(request: web.Request) -> web.Response:
    """GET /console/templates: a page of the templates, newest first."""
    console = await shell.signed_in(request)
    templates = request.app[TEMPLATES]
    filters, after, before = Filters.of(request), _page_id(request, "after"), _page_id(request, "before")
    upwards = before is not None and after is None
    found = await templates.page(console.principal, archived=filters.archived, q=filters.q or None, external_id=None,
                                 folder=filters.folder or None, limit=PAGE_SIZE + 1, after=after, before=before,
                                 oldest_first=upwards)
    shown, more_newer, more_older = _window(found, upwards=upwards, came_from_newer=after is not None)
    return shell.render(
        request, "console/templates.html", console.session, console=console, templates=shown, filters=filters,
        folders=await templates.folder_names(console.principal), when=when, author=author,
        older=filters.link(after=shown[-1].id) if shown and more_older else None,
        newer=filters.link(before=shown[0].id) if shown and more_newer else None,
        first=filters.link() if more_newer else None)


def _window(found: list[Template], *, upwards: bool, came_from_newer: bool) -> tuple[list[Template], bool, bool]:
    """The page to show, newest first, of up to one more than a page read either way, and whether there are
    newer and older templates beyond it."""
    if upwards:
        newest_first = found[::-1]  # read upwards from `before`: the nearest ones last
        return newest_first[-PAGE_SIZE:], len(found) > PAGE_SIZE, True
    return found[:PAGE_SIZE], came_from_newer, len(found) > PAGE_SIZE


async def archive_page(request: web.Request) -> web.Response:
    """GET /console/templates/{id}/archive: are you sure? (A plain form: it works without script.)"""
    console = await shell.signed_in(request)
    template = await request.app[TEMPLATES].find(console.principal, record_id(request))
    return shell.render(request, "console/templates_archive.html", console.session, console=console,
                        record=template)


async def archive(request: web.Request) -> web.Response:
    console = await shell.signed_in(request)
    await shell.posted(request, console.session)
    await request.app[TEMPLATES].archive(console.principal, record_id(request))
    raise shell.done(LIST, "template_archived")


async def restore(request: web.Request) -> web.Response:
    console = await shell.signed_in(request)
    await shell.posted(request, console.session)
    await request.app[TEMPLATES].update(console.principal, record_id(request), {"archived": False})
    raise shell.done(f"{LIST}?view=archived", "template_restored")


async def clone(request: web.Request) -> web.Response:
    """A copy of the template (named "… (Clone)", in its folder), opened in the editor."""
    console = await shell.signed_in(request)
    await shell.posted(request, console.session)
    copy = await request.app[TEMPLATES].clone(console.principal, record_id(request), {})
    raise shell.done(f"{LIST}/{copy.id}", "template_cloned")


def _text(request: web.Request, name: str) -> str:
    """A query value as typed, without the NULs no database stores."""
    return request.query.get(name, "").replace("\x00", "").strip()


def _page_id(request: web.Request, name: str) -> int | None:
    """A page link's id; anything else (a link cut short or typed) reads as the first page."""
    try:
        return Query(request).integer(name)
    except errors.Invalid:
        return None


def when(moment: datetime) -> str:
    """A time as the lists show it, in UTC: "2026-01-01 12:00"."""
    return f"{moment:%Y-%m-%d %H:%M}"


def author(template: Template) -> str:
    return " ".join(filter(None, (template.author_first_name, template.author_last_name))) or template.author_email


ID = r"{id:\d{1,18}}"
ROUTES: list[web.RouteDef] = [
    web.get(LIST, index),
    web.get(f"{LIST}/new", template_upload.form),
    web.post(f"{LIST}/new", template_upload.upload),
    web.get(f"{LIST}/{ID}", field_editor.editor),
    web.post(f"{LIST}/{ID}", field_editor.rename),
    web.post(f"{LIST}/{ID}/fields", field_editor.save_fields),
    web.get(f"{LIST}/{ID}/archive", archive_page),
    web.post(f"{LIST}/{ID}/archive", archive),
    web.post(f"{LIST}/{ID}/restore", restore),
    web.post(f"{LIST}/{ID}/clone", clone),
]
