"""The console's API settings: the signed-in user's live and test keys (masked, shown on request, copied),
rotating one after a confirmation (the same call as `python run.py keys rotate`: the old key stops at once),
test mode explained, the API's base address and a first request to copy."""

from __future__ import annotations

from aiohttp import web

from signsvc.http.appkeys import ACCOUNTS, SETTINGS
from signsvc.http.web.console import confirm, shell
from storage.records import KeyMode

PAGE = "/console/settings/api"


async def page(request: web.Request) -> web.Response:
    console = await shell.signed_in(request)
    keys = await request.app[ACCOUNTS].keys(console.user.id)
    return shell.render(
        request,
        "console/api_settings.html",
        console.session,
        console=console,
        keys=keys,
        current=console.principal.mode,
        base_url=request.app[SETTINGS].urls.api(),
    )


async def rotate_page(request: web.Request) -> web.Response:
    """The confirmation step before a key is replaced."""
    console = await shell.signed_in(request)
    return confirm.page(request, console, await _rotation(request, console))


async def rotate(request: web.Request) -> web.Response:
    console = await shell.signed_in(request)
    form = await shell.posted(request, console.session)
    if again := confirm.unticked(request, console, await _rotation(request, console), form):
        return again
    mode = KeyMode(request.match_info["mode"])
    await request.app[ACCOUNTS].rotate_key(console.user.id, mode)
    raise shell.done(PAGE, f"api_{mode.value}_key_rotated")


async def _rotation(request: web.Request, console: shell.Console) -> confirm.Step:
    """Rotating the key of the path's mode; a key the configuration fixes (SIGNSVC_API_KEY, SIGNSVC_TEST_API_KEY)
    comes back at the next start, which the page says."""
    mode = KeyMode(request.match_info["mode"])
    live = mode is KeyMode.LIVE
    return confirm.Step(
        title="console.api.rotate.title_live" if live else "console.api.rotate.title_test",
        body="console.api.rotate.body_live" if live else "console.api.rotate.body_test",
        check="console.api.rotate.confirm",
        submit="console.api.rotate.submit",
        back=PAGE,
        back_label="console.api.rotate.cancel",
        note="console.api.rotate.fixed" if await _fixed(request, console, mode) else None,
    )


async def _fixed(request: web.Request, console: shell.Console, mode: KeyMode) -> bool:
    """Whether the user's key of `mode` is one the configuration fixes."""
    fixed = request.app[SETTINGS].fixed_api_keys
    keys = await request.app[ACCOUNTS].keys(console.user.id) if fixed else []
    return any(key.mode is mode and key.key in fixed for key in keys)


ROUTES: list[web.RouteDef] = [
    web.get(PAGE, page),
    web.get(PAGE + "/keys/{mode:live|test}/rotate", rotate_page),
    web.post(PAGE + "/keys/{mode:live|test}/rotate", rotate),
]
