"""The webhook inbox of an in-process signsvc: a local HTTP receiver that keeps every delivery's JSON
body, for the test thread to read and wait on."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

from aiohttp import web


class Inbox:
    def __init__(self) -> None:
        self._received: list[dict[str, Any]] = []
        self._arrived = threading.Condition()

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_post("/", self._receive)
        return app

    def received(self, event_type: str | None = None) -> list[dict[str, Any]]:
        """The bodies received so far, oldest first; only those of `event_type` when it is given."""
        with self._arrived:
            return [body for body in self._received if event_type in (None, body.get("event_type"))]

    def wait_for(self, event_type: str, *, timeout: float, **data: Any) -> dict[str, Any]:
        """The first body of `event_type` whose `data` holds the given values; waits up to `timeout`."""
        deadline = time.monotonic() + timeout
        with self._arrived:
            while True:
                for body in self._received:
                    if body.get("event_type") == event_type and _matches(body.get("data") or {}, data):
                        return body
                left = deadline - time.monotonic()
                if left <= 0:
                    seen = [body.get("event_type") for body in self._received]
                    raise TimeoutError(
                        f"no {event_type} webhook{_described(data)} within {timeout:g} s; received: {seen}"
                    )
                self._arrived.wait(left)

    def clear(self) -> None:
        with self._arrived:
            self._received.clear()

    async def _receive(self, request: web.Request) -> web.Response:
        body = json.loads(await request.read())
        with self._arrived:
            self._received.append(body)
            self._arrived.notify_all()
        return web.Response()


def _matches(data: dict[str, Any], expected: dict[str, Any]) -> bool:
    return all(data.get(key) == value for key, value in expected.items())


def _described(data: dict[str, Any]) -> str:
    return " with " + ", ".join(f"{key}={value!r}" for key, value in data.items()) if data else ""
