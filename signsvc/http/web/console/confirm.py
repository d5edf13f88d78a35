"""The console's confirmation step before an action: one page (console/confirm.html) that says what happens, asks
for a ticked box where the action cannot be undone or stops keys, and posts back to its own address; a post
without the box ticked gets the page again."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web
from multidict import MultiDictProxy

from signsvc.http.web.console import shell

CONFIRMED = "yes"  # the box's value


@dataclass(frozen=True)
class Step:
    """What the page says, as catalogue keys: its title (with `values`), what happens, the button, and the link
    back to `back`; the box to tick (None: no box), a further warning, the record it acts on as text, and what it
    says instead of asking when there is nothing left to do."""

    title: str
    body: str
    submit: str
    back: str
    back_label: str
    values: Mapping[str, str] = field(default_factory=dict)
    check: str | None = None
    note: str | None = None
    subject: str = ""
    instead: str | None = None


def page(request: web.Request, console: shell.Console, step: Step, *, status: int = 200, **shown: Any) -> web.Response:
    """The step's page; `unticked=True` after a post without the box, `problem` with the domain's message."""
    return shell.render(
        request,
        "console/confirm.html",
        console.session,
        console=console,
        status=status,
        step=step,
        confirmed=CONFIRMED,
        **shown,
    )


def unticked(
    request: web.Request, console: shell.Console, step: Step, form: MultiDictProxy[Any]
) -> web.Response | None:
    """The page again (422, asking for the box) when the step has a box the posted form did not tick; else None."""
    if step.check is None or form.get("confirm") == CONFIRMED:
        return None
    return page(request, console, step, status=422, unticked=True)
