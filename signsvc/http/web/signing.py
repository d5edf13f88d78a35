"""The signing form (`/s/{slug}`, and `/apiemb/{slug}` to embed in another site's page; first the page that
verifies the signer's email address, when they must), and a submission's documents page (`/e/{token}`, a signed
link from webhooks and the events feed)."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from signsvc.http.appkeys import DB, RESULTS, SETTINGS, SIGNING_FORMS
from signsvc.http.web import catalogue, email_verification, field_display, rendering, submitter_actions
from signsvc.infra import errors, mail
from signsvc.pdf import value_text
from signsvc.submissions import (
    condition_form,
    field_options,
    field_values,
    formula_values,
    invitations,
    signature_modes,
)
from signsvc.submissions.signing_form import EXPIRED, FORM, FormView
from storage.shapes import Area, Field

# Strings the form's script shows, sent with the page in the chosen language.
SCRIPT_STRINGS = (
    "form.progress",
    "form.missing",
    "form.pattern",
    "form.minimum",
    "form.maximum",
    "form.saving",
    "form.saved",
    "form.not_saved",
    "form.failed",
    "form.offline",
    "form.completing",
    "form.too_large",
    "form.date_format",
    "form.date_after",
    "form.date_before",
    "decline.missing",
    "completed.title",
    "completed.body",
    "completed.preparing",
    "declined.title",
    "declined.body",
    "formulas.cannot_compute",
    "signature_modes.reason_reload",
    *condition_form.SCRIPT_STRINGS,
)
BODY_OVERHEAD = 4096  # the JSON around a file's base64 in a request
TICK = "\u2713"


async def form(request: web.Request) -> web.Response:
    return await _form(request, embedded=False)


async def embedded(request: web.Request) -> web.Response:
    return await _form(request, embedded=True)


async def documents(request: web.Request) -> web.Response:
    try:
        page = await request.app[RESULTS].page(request.match_info["token"])
    except errors.NotAuthorized:
        return rendering.render(
            request,
            "message.html",
            status=403,
            title_key="link_expired.title",
            body_key="link_expired.body",
        )
    except errors.NotFound:
        return rendering.not_found(request)
    return rendering.render(request, "documents.html", page=page)


async def _form(request: web.Request, *, embedded: bool) -> web.Response:
    view = await request.app[SIGNING_FORMS].open(request.match_info["slug"])
    if view is None:
        return rendering.not_found(request, framable=embedded)
    if verification := await email_verification.gate(request, view, embedded=embedded):
        return verification
    language = catalogue.choose(request, invitations.stated_languages(view.submission, view.submitter))
    template = "signing/form.html" if view.state == FORM else "signing/state.html"
    expire_at = view.submission.expire_at
    response = rendering.render(
        request,
        template,
        framable=embedded,
        view=view,
        embedded=embedded,
        expired_on=mail.format_time(expire_at) if view.state == EXPIRED and expire_at else "",
        box_content=box_content,
        option_value=option_value,
        display=field_display,
        formula_uuids=formula_values.uuids(view.fields),
        data=_script_data(request, view, language, embedded),
        signature_options=await signature_modes.form_options(
            request.app[DB], view.submission.account_id, view.fields, view.submitter.field_values
        )
        if view.state == FORM
        else {},
    )
    email_verification.keep(request, response, view)
    return response


def box_content(field: Field, area: Area, value: Any) -> tuple[str | None, str]:
    """What a field's box on the page shows for a value: a picture's path, or a short text (a tick for a
    ticked checkbox, a chosen option's own box, a file; a date or a number in the field's format)."""
    if value is None or value == "" or value is False or value == [] or value == field_values.TODAY:
        return None, ""  # today's date is filled in by the form's script, in the signer's time zone
    if field["type"] in ("signature", "initials", "image", "stamp"):
        return value, ""
    if area.get("option_uuid"):
        chosen = value if isinstance(value, list) else [value]
        return None, TICK if option_value(field, area) in chosen else ""
    if field["type"] in ("checkbox", "file"):
        return None, TICK
    if field["type"] in ("date", "number"):
        return None, value_text.text_of(field["type"], value, field.get("preferences") or {})
    text = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
    return None, field_options.shown_to_others(field, text) if field_options.maskable(field) else text


def option_value(field: Field, area: Area) -> str:
    """The value of the option an area of a radio or multiple field stands for."""
    return next((o["value"] for o in field.get("options", []) if o.get("uuid") == area.get("option_uuid")), "")


def _format(field: Field) -> str | None:
    """How the field's boxes show its value: a date's or a number's format."""
    found = (field.get("preferences") or {}).get("format")
    return (found or value_text.DATE_FORMAT) if field["type"] == "date" else found


def _script_data(request: web.Request, view: FormView, language: str, embedded: bool) -> dict[str, Any]:
    """What the form's script needs besides the page: where to send the actions, the fields' rules, the
    largest file a request can carry (as base64, a third larger), the strings it shows."""
    t = catalogue.translator(language)
    return {
        "actions": f"/s/{view.submitter.slug}",
        "action_query": email_verification.action_query(request, view),
        "embedded": embedded,
        "state": view.state,
        "view_only": view.view_only,
        "upload_limit": submitter_actions.body_limit(request.app[SETTINGS].max_body_bytes) * 3 // 4 - BODY_OVERHEAD,
        "fields": [
            {
                "uuid": f["uuid"],
                "name": f["name"],
                "type": f["type"],
                "required": bool(f.get("required")),
                "readonly": bool(f.get("readonly")),
                "validation": f.get("validation") or {},
                "format": _format(f),
                "mask": (f.get("preferences") or {}).get("mask") if field_options.maskable(f) else False,
            }
            for f in view.fields
        ],
        "conditions": condition_form.script_data(view.submission, view.submitter, view.submitters),
        "strings": {key: t(key) for key in SCRIPT_STRINGS},
        "formulas": formula_values.form_data(view.submission.fields, view.fields, view.submitters),
    }
