"""The console's signature settings: whether signers may type their signature where a field allows several ways
(the account's setting; each field's own `preferences.format` always applies), and whether the signature's id is
drawn beside signatures whose field does not say (`preferences.with_signature_id`), and what that text shows, and
whether every signature asks a signing reason (`require_signing_reason`)."""

from __future__ import annotations

from aiohttp import web

from signsvc.http.appkeys import DB
from signsvc.http.web.console import shell
from signsvc.submissions import caption_settings, signature_modes

PAGE = "/console/settings/signatures"


async def page(request: web.Request) -> web.Response:
    console = await shell.signed_in(request)
    typed = await signature_modes.typed_allowed(request.app[DB], console.principal.account_id)
    ids = await signature_modes.ids_by_default(request.app[DB], console.principal.account_id)
    caption = await caption_settings.of(request.app[DB], console.principal.account_id)
    reasons = await signature_modes.reasons_asked(request.app[DB], console.principal.account_id)
    return shell.render(
        request,
        "console/signature_settings.html",
        console.session,
        console=console,
        typed=typed,
        ids=ids,
        caption=caption,
        reasons=reasons,
    )


async def save(request: web.Request) -> web.Response:
    console = await shell.signed_in(request)
    form = await shell.posted(request, console.session)
    async with request.app[DB].transaction() as tx:
        await signature_modes.allow_typed(tx, console.principal.account_id, form.get("typed") == "on")
        await signature_modes.draw_ids_by_default(tx, console.principal.account_id, form.get("ids") == "on")
        await signature_modes.ask_reasons(tx, console.principal.account_id, form.get("reasons") == "on")
        caption = caption_settings.CaptionSettings(
            reason=form.get("id_reason") == "on",
            completed_at=form.get("id_completed_at") == "on",
            seconds=form.get("id_seconds") == "on",
        )
        await caption_settings.save(tx, console.principal.account_id, caption)
    raise shell.done(PAGE, "signatures_saved")


ROUTES: list[web.RouteDef] = [web.get(PAGE, page), web.post(PAGE, save)]
