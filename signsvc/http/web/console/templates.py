"""The console's templates: the list of the current mode's templates (search, folder, archived ones in a
view of their own, pages of it), and what can be done to one from the list: archive (after a confirmation
page), restore, clone. Uploading is `template_upload`, placing fields `field_editor`.

Every change goes through `Templates`, the object behind `/api/templates`: one set of rules for both.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

from aiohttp import web

from signsvc.http.appkeys import TEMPLATES
from signsvc.http.params import record_id
from signsvc.http.web.console import confirm, field_editor, newest_first, shell, template_upload
from signsvc.http.web.console.paths import ID
from signsvc.http.web.console.people import display_name
from storage.filters import TemplateFilters
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
        """The filters as typed, without the NULs no database stores."""
        q, folder, view = (request.query.get(name, "").replace("\x00", "").strip() for name in ("q", "folder", "view"))
        return cls(q, folder, view == "archived")

    def link(self) -> str:
        """The address of the list's first page with these filters (the pager adds a page's `after`)."""
        values = {"q": self.q, "folder": self.folder, "view": "archived" if self.archived else ""}
        found = urlencode({key: value for key, value in values.items() if value})
        return f"{LIST}?{found}" if found else LIST


async def index(request: web.Request) -> web.Response:
    """GET /console/templates: a page of the templates, newest first (`after`: the id the page is older than)."""
    console = await shell.signed_in(request)
    templates = request.app[TEMPLATES]
    filters, after = Filters.of(request), newest_first.after(request)
    found = await templates.page(
        console.principal,
        TemplateFilters(
            archived=filters.archived,
            q=filters.q or None,
            folder=filters.folder or None,
            limit=PAGE_SIZE + 1,
            after=after,
        ),
    )
    return shell.render(
        request,
        "console/templates.html",
        console.session,
        console=console,
        listing=newest_first.listing(found, PAGE_SIZE, after),
        filters=filters,
        folders=await templates.folder_names(console.principal),
        author=author,
    )


async def archive_page(request: web.Request) -> web.Response:
    """GET /console/templates/{id}/archive: the confirmation step (no box: restoring undoes it)."""
    console = await shell.signed_in(request)
    template = await request.app[TEMPLATES].find(console.principal, record_id(request))
    return confirm.page(
        request,
        console,
        confirm.Step(
            title="console.templates.archive_title",
            body="console.templates.archive_explain",
            subject=template.name,
            submit="console.templates.archive_confirm",
            back=LIST,
            back_label="console.templates.archive_cancel",
        ),
    )


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


def author(template: Template) -> str:
    """Who made the template: their name, else their email address."""
    return display_name(template.author_first_name, template.author_last_name, template.author_email)


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
