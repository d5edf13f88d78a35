"""The middlewares that act only on some requests, as one layer of aiohttp's chain: the console shell's (paths under
/console) and the body budget's (requests with a body). Any other request (most of the API's: a keyed GET) goes
straight to its handler, through one coroutine instead of one for each of them."""

from __future__ import annotations

import functools

from aiohttp import web
from aiohttp.typedefs import Handler, Middleware


def middleware(console: Middleware, with_body: Middleware) -> Middleware:
    """`console` around `with_body` around the handler, as two layers would be; both are skipped where both would
    pass the request straight on."""

    @web.middleware
    async def some_requests(request: web.Request, handler: Handler) -> web.StreamResponse:
        if not request.body_exists and not request.path.startswith("/console"):
            return await handler(request)
        return await console(request, functools.partial(with_body, handler=handler))

    return some_requests
