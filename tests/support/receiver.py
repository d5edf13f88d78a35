"""A real local webhook receiver: an aiohttp server that records every request and answers as scripted."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import web
from multidict import CIMultiDictProxy

HUGE_BYTES = 8 * 1024 * 1024


@dataclass(frozen=True)
class Received:
    path: str
    headers: CIMultiDictProxy[str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)


class Receiver:
    """Answers 200 unless `script(path, ...)` says otherwise, one scripted answer per request: a status
    code, "hang" (no answer until `release`), "huge" (500 with a body of megabytes) or "trickle" (500
    whose body comes a byte at a time until `release`)."""

    def __init__(self) -> None:
        self.received: list[Received] = []
        # Requests of one event to one path that were under way at the same time.
        self.overlapping: list[tuple[str, str]] = []
        self.pause = 0.0
        self.release = asyncio.Event()
        self._under_way: set[tuple[str, str]] = set()
        self._scripts: dict[str, list[int | str]] = {}
        self._arrived = asyncio.Condition()
        self._runner: web.AppRunner | None = None
        self.base = ""

    def url(self, path: str = "/hook") -> str:
        return self.base + path

    def script(self, path: str, *answers: int | str) -> None:
        self._scripts[path] = list(answers)

    def at(self, path: str = "/hook") -> list[Received]:
        return [request for request in self.received if request.path == path]

    async def wait_for(self, count: int, timeout: float = 10) -> list[Received]:
        """Waits until `count` requests have arrived (real I/O from another task or process)."""
        return await self.wait_until(lambda received: len(received) >= count, timeout)

    async def wait_until(self, done: Callable[[list[Received]], bool], timeout: float = 10) -> list[Received]:
        async with self._arrived:
            await asyncio.wait_for(self._arrived.wait_for(lambda: done(self.received)), timeout)
        return self.received

    async def start(self) -> Receiver:
        app = web.Application()
        app.router.add_route("*", "/{path:.*}", self._handle)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.1)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.base = f"http://127.0.0.1:{self._runner.addresses[0][1]}"
        return self

    async def stop(self) -> None:
        self.release.set()
        if self._runner:
            await self._runner.cleanup()

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        received = Received(request.path, request.headers, await request.read())
        key = (request.path, request.headers.get("X-Service-Event-Id", ""))
        if key in self._under_way:
            self.overlapping.append(key)
        self._under_way.add(key)
        try:
            async with self._arrived:
                self.received.append(received)
                self._arrived.notify_all()
            if self.pause:
                await asyncio.sleep(self.pause)  # a receiver that takes its time, widening any overlap
            return await self._answer(request)
        finally:
            self._under_way.discard(key)

    async def _answer(self, request: web.Request) -> web.StreamResponse:
        answers = self._scripts.get(request.path)
        answer = answers.pop(0) if answers else 200
        if answer == "hang":
            await self.release.wait()
            return web.Response(status=200)
        if answer == "huge":
            return web.Response(status=500, body=b"x" * HUGE_BYTES)
        if answer == "trickle":
            response = web.StreamResponse(status=500)
            await response.prepare(request)
            while not self.release.is_set():
                await response.write(b"x")
                await asyncio.sleep(0.01)  # the receiver's own pace; the test waits on its timeout
            return response
        if 300 <= answer < 400:
            return web.Response(status=answer, headers={"Location": self.url("/redirected")})
        return web.Response(status=answer, text="ok" if answer < 300 else f"failure {answer}")
