"""How many bytes of API request bodies one process holds at once. A body is read into memory whole (and
decoded beside it), so eight 30 MB uploads at once would take gigabytes: a body above `SMALL` reserves
its length (its announced Content-Length, or the largest body allowed when it comes chunked) before
its handler reads it, and a body that does not fit while others are being handled is refused at once
with 503 and `Retry-After`, rather than queued on an open connection.

The budget is shared: one key holds at most a quarter of it and one client address at most half (behind a trusted
proxy, the address the proxy names), so that a client holding large bodies open, slowly sent, leaves room for
other accounts' uploads; a key's or address's first body always fits its share (a body may be larger than a
share, as it may be larger than the budget when nothing else is held). How slowly a body may come is bounded
apart (`signsvc/http/connection_deadlines.py`).

Only requests with a valid key reach it (it runs after the key is checked): nobody without one can
hold the budget with a slow body. The console's upload counts too; its handler reads the body only for
a signed-in user, and returns at once otherwise. The pages' posts bound their own reads (64 KiB for a
public form or a console form, 16 MiB for a signer's action) and count against the pages' rate limits."""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import TypeVar

from aiohttp import web
from aiohttp.typedefs import Middleware

from signsvc.http.responses import error_response
from signsvc.infra import errors

log = logging.getLogger(__name__)

SMALL = 1024 * 1024  # forms, JSON without files: never counted
# The console's large bodies (an upload; the field editor's save, JSON up to the body limit as for
# PUT /api/templates/{id}): each handler reads its body only for a signed-in user.
CONSOLE_UPLOADS = re.compile(r"/console/templates/(new|\d{1,18}/fields)")
RETRY_AFTER_SECONDS = 2
Share = TypeVar("Share", int, str)  # whose share a counter keeps: a key id or an address
KEY_SHARE = 4  # a key holds at most 1/KEY_SHARE of the budget
ADDRESS_SHARE = 2  # a client address at most 1/ADDRESS_SHARE

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
# Who holds a request's body: its key (None before or without one) and its client's address. The edge knows
# (`middleware.holder`), which imports the app's keys, which name this module's budget.
Holder = Callable[[web.Request], tuple[int | None, str]]


class Busy(errors.ServiceError):
    status = 503
    message = "The server is receiving other large requests: send this one again in a few seconds"


class BodyBudget:
    def __init__(self, capacity: int) -> None:
        self.capacity, self.held = capacity, 0
        self.by_key: Counter[int] = Counter()
        self.by_address: Counter[str] = Counter()

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

    def refusal(self, size: int, key: int | None, address: str) -> str | None:
        """Why a body of `size` does not fit now (the budget, the key's share or the address's), or None."""
        if not self.capacity:
            return None
        if _over(self.held, size, self.capacity):
            return "the budget"
        if key is not None and _over(self.by_key[key], size, self.capacity // KEY_SHARE):
            return "the key's share"
        if _over(self.by_address[address], size, self.capacity // ADDRESS_SHARE):
            return "the address's share"
        return None

    async def within(
        self, size: int, handler: Handler, request: web.Request, key: int | None = None, address: str = ""
    ) -> web.StreamResponse:
        """The handler's response, the body's size held meanwhile by the key and address; Busy when it does not
        fit."""
        if refused := self.refusal(size, key, address):
            log.info(
                "refused a body of %d bytes from %s (key %s) on %s: over %s (%d bytes held)",
                size,
                address,
                key,
                request.path,
                refused,
                self.held,
            )
            raise Busy()
        self.held += size
        self.by_address[address] += size
        if key is not None:
            self.by_key[key] += size
        try:
            return await handler(request)
        finally:
            self.held -= size
            _release(self.by_address, address, size)
            if key is not None:
                _release(self.by_key, key, size)


def _over(held: int, size: int, share: int) -> bool:
    return bool(held) and held + size > share


def _release(counts: Counter[Share], name: Share, size: int) -> None:
    counts[name] -= size
    if not counts[name]:
        del counts[name]  # the counters keep only who holds something


def middleware(budget: BodyBudget, max_body_bytes: int, holder: Holder) -> Middleware:
    @web.middleware
    async def within_budget(request: web.Request, handler: Handler) -> web.StreamResponse:
        size = budget.size_of(request, max_body_bytes)
        if not size:
            return await handler(request)
        try:
            return await budget.within(size, handler, request, *holder(request))
        except Busy as busy:
            if request.path.startswith("/console/") and request.content_type != "application/json":
                raise  # a console form: its middleware answers with a page
            return error_response(busy.status, busy.message, {"Retry-After": str(RETRY_AFTER_SECONDS)})

    return within_budget
