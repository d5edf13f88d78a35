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
from signsvc.http.params import record_id
from signsvc.http.web.console import field_editor, newest_first, shell, template_upload
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
        """The list's address with these filters and `more` (a page's `after`)."""
        values = {"q": self.q, "folder": self.folder, "view": "archived" if self.archived else "", **more}
        found = urlencode({key: value for key, value in values.items() if value not in ("", None)})
        return f"{LIST}?{found}" if found else LIST


async def index(request: web.Request) -> web.Response:
    """GET /console/templates: a page of the templates, newest first (`after`: the id the page is older than)."""
    console = await shell.signed_in(request)
    templates = request.app[TEMPLATES]
    filters, after = Filters.of(request), newest_first.after(request)
    found = await templates.page(console.principal, archived=filters.archived, q=filters.q or None, external_id=None,
                                 folder=filters.folder or None, limit=PAGE_SIZE + 1, after=after, before=None)
    listing = newest_first.listing(found, PAGE_SIZE, after)
    return shell.render(
        request, "console/templates.html", console.session, console=console, templates=listing.items,
        filters=filters, folders=await templates.folder_names(console.principal), when=when, author=author,
        newest=filters.link() if listing.after else None,
        older=filters.link(after=listing.older) if listing.older else None)


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
