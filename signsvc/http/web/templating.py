"""Pages through aiohttp-jinja2: `setup` registers the pages' and the emails' Jinja2 environments with the app,
each under its own key (PAGES, EMAILS), with the context processors every page gets; `render` renders a page
with `aiohttp_jinja2.render_template`, the processors' values beside the handler's own data, which may not
replace one of them (a TypeError: a programming error).

Jinja2 takes about 15 ms of CPU to import, and the service must reach its ready line fast, so both are put off
to the first page: aiohttp-jinja2's own `setup` would make the environment and add its processors' middleware
at once, and the app can take neither after it started. Instead each key holds, from the start, a stand-in that
makes its environment the first time aiohttp-jinja2 asks it for a template; and the processors run as the page
renders, so they see what its handler chose (the submitter's language, the console session it keeps, the form
token it issued) and an API request never runs them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, cast

from aiohttp import web

import pages

if TYPE_CHECKING:
    import jinja2

# aiohttp-jinja2's context processor, run as the page renders: the request in, template variables out.
ContextProcessor = Callable[[web.Request], Mapping[str, Any]]

PAGES: web.AppKey[jinja2.Environment] = web.AppKey("pages_environment")
EMAILS: web.AppKey[jinja2.Environment] = web.AppKey("emails_environment")
CONTEXT_PROCESSORS: web.AppKey[tuple[ContextProcessor, ...]] = web.AppKey("pages_context_processors")


def setup(app: web.Application, *, context_processors: Iterable[ContextProcessor]) -> None:
    """Registers the environments (pages/templates; pages/emails, the cached one the mailer composes with through
    `pages.email_templates()`, for a handler that renders an email), each made on first use, and the context
    processors of every page."""
    app[PAGES] = _made_on_first_use(pages.page_templates)
    app[EMAILS] = _made_on_first_use(pages.email_templates)
    app[CONTEXT_PROCESSORS] = tuple(context_processors)


def render(request: web.Request, template: str, context: Mapping[str, Any], *, status: int = 200) -> web.Response:
    """The page `template` (text/html, UTF-8) with the processors' values and the handler's `context`; a TypeError
    when the context names a value a processor gives (the CSRF token, the form token, the language and `t`), which
    it would silently replace."""
    import aiohttp_jinja2  # here, not above: Jinja2 loads with the first page, after the ready line

    processed: dict[str, Any] = {}
    for processor in request.app[CONTEXT_PROCESSORS]:
        processed.update(processor(request))
    if overlap := sorted(processed.keys() & context.keys()):
        raise TypeError(f"{template}: the handler's data replaces the context processors' {', '.join(overlap)}")
    return aiohttp_jinja2.render_template(template, request, {**processed, **context}, app_key=PAGES, status=status)


class _OnFirstUse:
    """Stands for an environment in the app: makes it (once per process, by `make`) when first asked for
    anything, `get_template` at the first render."""

    def __init__(self, make: Callable[[], jinja2.Environment]) -> None:
        self._make = make

    def __getattr__(self, name: str) -> Any:
        return getattr(self._make(), name)


def _made_on_first_use(make: Callable[[], jinja2.Environment]) -> jinja2.Environment:
    return cast("jinja2.Environment", _OnFirstUse(make))
