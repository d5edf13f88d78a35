"""Continue on a phone: the desktop form asks for a one-time link (`POST /s/{slug}/phone`) and then whether the
phone gave the drawing (`GET /s/{slug}/phone/{id}`); the phone opens the link (`GET /p/{token}`) and sends the
drawing (`POST /p/{token}`). Every call counts against the pages' rate limits per address; the desktop's asking
(every few seconds while the code is shown) is not counted per signer, as saves are not."""

from __future__ import annotations

from aiohttp import web

from signsvc.http.appkeys import PHONE_HANDOFFS
from signsvc.http.middleware import within_page_limits
from signsvc.http.params import read_json
from signsvc.http.responses import json_response
from signsvc.http.web import catalogue, field_display, rendering, submitter_actions
from signsvc.infra import errors
from signsvc.submissions import invitations, phone_handoff
from signsvc.wire.encoding import iso

# The phone's page: strings its script shows.
SCRIPT_STRINGS = ("phone_handoff.sending", "phone_handoff.empty", "form.offline")
BODY_LIMIT = 4 * 1024 * 1024  # a drawing of the pad, as base64


async def start(request: web.Request) -> web.Response:
    slug = await submitter_actions.admitted(request, per_link=True)
    started = await request.app[PHONE_HANDOFFS].start(slug, await read_json(request, max_bytes=4096))
    return json_response(
        {"id": started.id, "url": started.url, "qr": started.qr, "expires_at": iso(started.expires_at)},
        status=201,
    )


async def status(request: web.Request) -> web.Response:
    slug = await submitter_actions.admitted(request, per_link=False)
    return json_response(await request.app[PHONE_HANDOFFS].status(slug, int(request.match_info["id"])))


async def page(request: web.Request) -> web.Response:
    if not await within_page_limits(request):
        raise errors.TooManyRequests()
    found = await request.app[PHONE_HANDOFFS].page(request.match_info["token"])
    language = catalogue.choose(
        request, invitations.stated_languages(found.view.submission, found.view.submitter) if found else ()
    )
    if found is None:
        return rendering.render(
            request,
            "message.html",
            status=410,
            title_key="phone_handoff.gone_title",
            body_key="phone_handoff.gone_body",
        )
    t = catalogue.translator(language)
    return rendering.render(
        request,
        "signing/phone.html",
        found=found,
        data={
            "strings": {key: t(key) for key in SCRIPT_STRINGS},
            "action": request.path,
            "ink": field_display.color(found.field),  # the pen draws in the field's colour, as the reference's
        },
    )


async def sign(request: web.Request) -> web.Response:
    if not await within_page_limits(request):
        raise errors.TooManyRequests()
    body = await read_json(request, max_bytes=BODY_LIMIT, max_values=submitter_actions.VALUES_LIMIT)
    await request.app[PHONE_HANDOFFS].sign(request.match_info["token"], body)
    return json_response({"status": phone_handoff.SIGNED})
