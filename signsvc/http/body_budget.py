"""How many bytes of API request bodies one process holds at once. A body is read into memory whole (and
decoded beside it), so eight 30 MB uploads at once would take gigabytes: a body above `SMALL` reserves
its length (its announced Content-Length, or the largest body allowed when it comes chunked) before
its handler reads it, and a body that does not fit while others are being handled is refused at once
with 503 and `Retry-After`, rather than queued on an open connection.

Only requests with a valid key reach it (it runs after the key is checked): nobody without one can
hold the budget with a slow body. The console's upload counts too; its handler reads the body only for
a signed-in user, and returns at once otherwise. The pages' posts bound their own reads (64 KiB for a
public form or a console form, 16 MiB for a signer's action) and count against the pages' rate limits."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable

from aiohttp import web
from aiohttp.typedefs import Middleware

from signsvc.http.responses import error_response
from signsvc.infra import errors

SMALL = 1024 * 1024  # forms, JSON without files: never counted
# The console's large bodies (an upload; the field editor's save, JSON up to the body limit as for
# PUT /api/templates/{id}): each handler reads its body only for a signed-in user.
CONSOLE_UPLOADS = re.compile(r"/console/templates/(new|\d{1,18}/fields)")
RETRY_AFTER_SECONDS = 2

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class Busy(errors.ServiceError):
    status = 503
    message = "The server is receiving other large requests: send this one again in a few seconds"


class BodyBudget:
    def __init__(self, capacity: int) -> None:
        self.capacity, self.held = capacity, 0

    def size_of(self, request: web.Request, max_body_bytes: int) -> int:
        """The bytes the request's body may take: 0 for none or a small one."""
        if not request.body_exists:
            return 0
        if not (request.path.startswith("/api/") or CONSOLE_UPLOADS.fullmatch(request.path)):
            return 0
        length = request.content_length
        if length is None:
            return max_body_bytes or self.capacity
        return length if length > SMALL else 0

    async def within(self, size: int, handler: Handler, request: web.Request) -> web.StreamResponse:
        """The handler's response, the body's size held meanwhile; Busy when it does not fit."""
        if self.capacity and self.held and self.held + size > self.capacity:
            raise Busy()
        self.held += size
        try:
            return await handler(request)
        finally:
            self.held -= size


def middleware(budget: BodyBudget, max_body_bytes: int) -> Middleware:
    @web.middleware
    async def within_budget(request: web.Request, handler: Handler) -> web.StreamResponse:
        size = budget.size_of(request, max_body_bytes)
        if not size:
            return await handler(request)
        try:
            return await budget.within(size, handler, request)
        except Busy as busy:
            if request.path.startswith("/console/") and request.content_type != "application/json":
                raise  # a console form: its middleware answers with a page
            return error_response(busy.status, busy.message, {"Retry-After": str(RETRY_AFTER_SECONDS)})

    return within_budget
