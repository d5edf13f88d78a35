"""A template's public link `/d/{slug}`: the page asking the visitor's name and email (or phone number), and
the post that starts their submission and sends them on to its signing form. A plain HTML form: it works
without script, every refusal is the page again with the message beside the input it is about."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass

from aiohttp import web

from signsvc.http.appkeys import TEMPLATE_LINKS
from signsvc.http.web import catalogue, form_tokens, public_forms, rendering
from signsvc.infra import errors
from signsvc.submissions import template_links
from signsvc.submissions.template_links import LENGTH_LIMIT, CannotStart, LinkPage, StaleForm, Visitor
from signsvc.submissions.visitors import INVALID, MISSING, TOO_LONG, Refused, Unavailable

ANSWERS = ("name", "email", "phone")
PROBLEMS = {
    ("email", MISSING): "public.problem.email.missing",
    ("email", INVALID): "public.problem.email.invalid",
    ("phone", MISSING): "link.problem.phone.missing",
    ("phone", INVALID): "link.problem.phone.invalid",
    ("name", INVALID): "public.problem.name.invalid",
}


@dataclass(frozen=True)
class Input:
    """One input of the page: its name, label (a catalogue key), type, autocomplete token, and hint."""

    key: str
    label: str
    type: str
    autocomplete: str
    required: bool
    hint: str | None = None


async def page(request: web.Request) -> web.Response:
    view = await request.app[TEMPLATE_LINKS].open(request.match_info["slug"])
    if view is None:
        return rendering.not_found(request)
    if closed := _closed(request, view):
        return closed
    if not await public_forms.viewed(request):
        return public_forms.refusal(request, public_forms.Unreadable(429))
    visitor = _visitor(view, request.query)  # prefilled as DocuSeal's link is: /d/{slug}?email=...&name=...
    too_long = {key: rule for key, rule in template_links.problems(view, visitor).items() if rule == TOO_LONG}
    return await _form(request, view, visitor, problems=too_long)


async def start(request: web.Request) -> web.Response:
    view = await request.app[TEMPLATE_LINKS].open(request.match_info["slug"])
    if view is None:
        return rendering.not_found(request)
    try:
        form = await public_forms.read(request, ANSWERS)
    except public_forms.Unreadable as unreadable:
        return public_forms.refusal(request, unreadable)
    visitor = _visitor(view, form, catalogue.language(request))
    token = await form_tokens.posted(request, form)
    if token is None:
        return _closed(request, view) or await _form(request, view, visitor, notice="link.expired_form", status=403)
    if capped := await public_forms.within_caps(request, consent=False, slug=view.template.slug):
        return capped
    return await _started(request, view, visitor, token)


async def _started(request: web.Request, view: LinkPage, visitor: Visitor, token: str) -> web.Response:
    """The visitor sent on to their signing form, or the page again saying why not."""
    try:
        signing_slug = await request.app[TEMPLATE_LINKS].start(view, visitor, token)
    except Refused as refused:
        return await _form(request, view, visitor, problems=refused.problems, status=422)
    except StaleForm:
        return await _form(request, view, visitor, notice="link.expired_form", status=403)
    except Unavailable:
        return _unavailable(request)
    except CannotStart:
        return _cannot_start(request)
    except errors.NotFound:
        return rendering.not_found(request)
    except errors.Invalid:
        return await _form(request, view, visitor, notice="link.not_started", status=422)
    raise web.HTTPSeeOther(f"/s/{signing_slug}")


def _visitor(view: LinkPage, values: Mapping[str, str], language: str | None = None) -> Visitor:
    answers = {key: str(values.get(key, "")).strip() for key in ANSWERS}
    return Visitor(**(answers if view.asks_phone else {**answers, "phone": ""}), language=language)


def _inputs(view: LinkPage) -> list[Input]:
    name = Input("name", "public.name", "text", "name", required=False)
    email = Input("email", "public.email", "email", "email", required=not view.asks_phone)
    if not view.asks_phone:
        return [name, email]
    return [name, Input("phone", "link.phone", "tel", "tel", required=True, hint="link.phone_hint"), email]


async def _form(
    request: web.Request,
    view: LinkPage,
    visitor: Visitor,
    *,
    problems: dict[str, str] | None = None,
    notice: str | None = None,
    status: int = 200,
) -> web.Response:
    messages = {
        key: "public.problem.too_long" if rule == TOO_LONG else PROBLEMS[(key, rule)]
        for key, rule in (problems or {}).items()
    }
    return await public_forms.render(
        request,
        "link.html",
        status=status,
        view=view,
        inputs=_inputs(view),
        answers=dataclasses.asdict(visitor),
        problems=messages,
        notice=notice,
        limit=LENGTH_LIMIT,
    )


def _closed(request: web.Request, view: LinkPage) -> web.Response | None:
    """The page of a link that starts nothing now: its template archived, or one a link can't start."""
    if view.archived:
        return _unavailable(request)
    if not view.startable:
        return _cannot_start(request)
    return None


def _unavailable(request: web.Request) -> web.Response:
    return public_forms.message(request, "link.unavailable.title", "link.unavailable.body", 410)


def _cannot_start(request: web.Request) -> web.Response:
    """Roles other than the visitor's have fields: a conflict with what the template is, not the answers."""
    return public_forms.message(request, "link.cannot_start.title", "link.cannot_start.body", 409)
