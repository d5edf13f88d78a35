"""The clickwrap's public page `/c/{slug}`: the active version with its checkboxes and button, and the
consent posted from it. A plain HTML form: it works without script, every refusal is the page again
with the message beside the input it is about."""

from __future__ import annotations

import re

from aiohttp import web

from signsvc.clickwraps.clickwraps import CONSENT_LENGTHS
from signsvc.clickwraps.consent_page import Agreement, Changed, ConsentPage, Unsignable
from signsvc.http.appkeys import CONSENT_PAGES
from signsvc.http.middleware import client_address
from signsvc.http.web import catalogue, form_tokens, public_forms, rendering
from signsvc.infra import errors, mail
from signsvc.submissions.submitters import Browser
from signsvc.submissions.visitors import TOO_LONG, Refused, Unavailable
from storage import form_posts

USER_AGENT_LIMIT = CONSENT_LENGTHS["user_agent"]
_VERSION = re.compile(r"[0-9]{1,9}")
PREFILLED = ("name", "email", "external_id")
# The message beside an input for the rule it breaks.
PROBLEMS = {
    ("name", "missing"): "clickwrap.problem.name.missing",
    ("name", "too_long"): "public.problem.too_long",
    ("name", "invalid"): "public.problem.name.invalid",
    ("email", "missing"): "public.problem.email.missing",
    ("email", "invalid"): "public.problem.email.invalid",
    ("email", "too_long"): "public.problem.too_long",
    ("external_id", "too_long"): "clickwrap.problem.external_id",
    ("external_id", "invalid"): "clickwrap.problem.external_id",
    ("checkbox", "missing"): "clickwrap.problem.checkbox.missing",
}


async def page(request: web.Request) -> web.Response:
    view = await request.app[CONSENT_PAGES].open(request.match_info["slug"])
    if view is None:
        return rendering.not_found(request)
    if closed := _closed(request, view):
        return closed
    if not await public_forms.viewed(request):
        return public_forms.refusal(request, public_forms.Unreadable(429))
    answers = {key: request.query.get(key, "") for key in PREFILLED}
    too_long = {key: TOO_LONG for key, value in answers.items() if len(value) > CONSENT_LENGTHS[key]}
    return await _form(request, view, answers, problems=too_long)


async def agree(request: web.Request) -> web.Response:
    slug = request.match_info["slug"]
    view = await request.app[CONSENT_PAGES].open(slug)
    if view is None:
        return rendering.not_found(request)
    if closed := _closed(request, view):
        return closed
    boxes = [f"checkbox-{index}" for index in range(len(view.settings.get("checkboxes") or []))]
    try:
        form = await public_forms.read(request, (*PREFILLED, "version", *boxes))
    except public_forms.Unreadable as unreadable:
        return public_forms.refusal(request, unreadable)
    answers = {key: form[key].strip() for key in PREFILLED}
    token = await form_tokens.posted(request, form)
    if token is None:
        return await _form(request, view, answers, notice="clickwrap.expired_form", status=403)
    if capped := await public_forms.within_caps(request, consent=True, slug=slug):
        return capped
    checked = [bool(form[box]) for box in boxes]
    version = int(form["version"]) if _VERSION.fullmatch(form["version"]) else 0
    browser = Browser(
        client_address(request),
        request.headers.get("User-Agent", "")[:USER_AGENT_LIMIT] or None,
        catalogue.language(request),
    )
    try:
        agreed = await request.app[CONSENT_PAGES].agree(
            view, Agreement(version, checked=checked, **answers), browser, token
        )
    except Refused as refused:
        return await _form(request, view, answers, checked=checked, problems=refused.problems, status=422)
    except Changed:
        return await _changed(request, slug, answers)
    except form_posts.Taken:
        return await _form(request, view, answers, notice="clickwrap.expired_form", status=403)
    except Unavailable:
        return _unavailable(request)
    except Unsignable:
        return _unsignable(request)
    except errors.NotFound:
        return rendering.not_found(request)
    if agreed.signing_slug:
        raise web.HTTPSeeOther(f"/s/{agreed.signing_slug}")
    consent = agreed.consent
    return rendering.render(
        request,
        "clickwrap/agreed.html",
        view=view,
        consent=consent,
        agreed_on=mail.format_time(consent.agreed_at),
    )


async def _changed(request: web.Request, slug: str, answers: dict[str, str]) -> web.Response:
    """The version published since the page was opened, to read before agreeing."""
    view = await request.app[CONSENT_PAGES].open(slug)
    if view is None:
        return rendering.not_found(request)
    return _closed(request, view) or await _form(request, view, answers, notice="clickwrap.changed", status=409)


async def _form(
    request: web.Request,
    view: ConsentPage,
    answers: dict[str, str],
    *,
    checked: list[bool] | None = None,
    problems: dict[str, str] | None = None,
    notice: str | None = None,
    status: int = 200,
) -> web.Response:
    t = catalogue.translator(catalogue.language(request))
    messages = {
        where: t(PROBLEMS[where.partition("-")[0], rule], limit=CONSENT_LENGTHS["name"])
        for where, rule in (problems or {}).items()
    }
    return await public_forms.render(
        request,
        "clickwrap/page.html",
        status=status,
        view=view,
        answers=answers,
        checked=checked or [],
        problems=messages,
        notice=notice,
        limits=CONSENT_LENGTHS,
    )


def _closed(request: web.Request, view: ConsentPage) -> web.Response | None:
    """The page of a clickwrap that takes no consent now."""
    if not view.available:
        return _unavailable(request)
    if not view.signable:
        return _unsignable(request)
    return None


def _unsignable(request: web.Request) -> web.Response:
    return public_forms.message(request, "clickwrap.cannot_sign.title", "clickwrap.cannot_sign.body", 409)


def _unavailable(request: web.Request) -> web.Response:
    return public_forms.message(request, "clickwrap.unavailable.title", "clickwrap.unavailable.body", 410)
