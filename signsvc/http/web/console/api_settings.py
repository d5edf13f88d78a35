"""The console's API settings: the signed-in user's live and test keys (masked, shown on request, copied),
rotating one after a confirmation (the same call as `python run.py keys rotate`: the old key stops at once),
test mode explained, the API's base address and a first request to copy."""

from __future__ import annotations

from aiohttp import web

from signsvc.http.appkeys import ACCOUNTS, SETTINGS
from signsvc.http.web.console import shell
from storage.records import KeyMode

PAGE = "/console/settings/api"
CONFIRMED = "yes"


async def page(request: web.Request) -> web.Response:
    console = await shell.signed_in(request)
    keys = await request.app[ACCOUNTS].keys(console.user.id)
    return shell.render(request, "console/api_settings.html", console.session, console=console, keys=keys,
                        current=console.principal.mode, base_url=f"{request.app[SETTINGS].site}/api")


async def rotate_page(request: web.Request) -> web.Response:
    """The confirmation step before a key is replaced."""
    console = await shell.signed_in(request)
    return _confirmation(request, console, _mode(request))


async def rotate(request: web.Request) -> web.Response:
    console = await shell.signed_in(request)
    form = await shell.posted(request, console.session)
    mode = _mode(request)
    if form.get("confirm") != CONFIRMED:
        return _confirmation(request, console, mode, status=422, problem="console.api.rotate.unconfirmed")
    await request.app[ACCOUNTS].rotate_key(console.user.id, mode)
    raise shell.done(PAGE, f"api_{mode.value}_key_rotated")


def _confirmation(request: web.Request, console: shell.Console, mode: KeyMode, *, status: int = 200,
                  problem: str | None = None) -> web.Response:
    return shell.render(request, "console/api_settings_rotate.html", console.session, console=console,
                        status=status, mode=mode.value, problem=problem, confirmed=CONFIRMED)


def _mode(request: web.Request) -> KeyMode:
    return KeyMode(request.match_info["mode"])


ROUTES: list[web.RouteDef] = [
    web.get(PAGE, page),
    web.get(PAGE + "/keys/{mode:live|test}/rotate", rotate_page),
    web.post(PAGE + "/keys/{mode:live|test}/rotate", rotate),
]
