"""Connections that send too slowly are cut. aiohttp bounds neither how long a request's head may take to arrive
nor how slowly its body may come: a client sending a byte a second would hold its connection (and, with a large
Content-Length, its share of the body budget) for as long as it likes.

Every connection of the server is watched by a `Watch`, a protocol between the transport and aiohttp's own that
counts the bytes going in:
- a request's head (request line and headers) must be whole within `Limits.head_seconds` of its first byte, and a
  new connection's first request within that time of the connection's opening;
- once the head is in, the body must bring at least `Limits.body_rate` bytes a second, averaged over every
  `Limits.body_window` seconds (the first window is the grace period), while the server is reading it (a body the
  handler has not read yet, which holds the transport's reading, is not counted against the client).
A connection that fails either is closed, with one warning line: the address, what was cut, the bytes read.
Idle kept-alive connections are aiohttp's to close (`keepalive_timeout`)."""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from dataclasses import dataclass
from typing import Any

from aiohttp import StreamReader, web
from aiohttp.web_protocol import RequestHandler
from aiohttp.web_request import BaseRequest

log = logging.getLogger(__name__)
# What asyncio runs a timer early by (its loops' `_clock_resolution`): a head timer firing within it is due.
_CLOCK_RESOLUTION = time.get_clock_info("monotonic").resolution


@dataclass(frozen=True)
class Limits:
    head_seconds: float
    body_rate: int  # bytes a second; 0: a body must only not stop for a whole window
    body_window: float


class Watch(asyncio.Protocol):
    """One connection: aiohttp's protocol inside, the deadlines of its request heads and bodies around it."""

    def __init__(self, guard: Guard, inner: RequestHandler) -> None:
        self.guard, self.inner, self.limits = guard, inner, guard.limits
        self.loop = asyncio.get_running_loop()
        self.transport: asyncio.Transport | None = None
        self.received = 0  # bytes since the connection opened
        self.head_started = 0  # `received` when the current head's first byte came
        self.payload: StreamReader | None = None  # the body of the connection's latest request
        self.chunked = False  # whether that body is sent in chunks
        self.timer: asyncio.TimerHandle | None = None  # the body's
        self.head_deadline: float | None = None  # the loop's time the head begun must be whole by
        self.head_timer: asyncio.TimerHandle | None = None  # due at or before `head_deadline`
        self.window_start = 0  # the body's size when the current window began

    # The transport's calls, passed on to aiohttp's protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.inner.connection_made(transport)
        self._head_begins()

    def data_received(self, data: bytes) -> None:
        if self.head_deadline is None and self.timer is None and self._request_done():
            self.head_started = self.received
            self._head_begins()
        body = self.payload if not self._request_done() else None
        before = body.total_bytes if body is not None else 0
        self.received += len(data)
        self.inner.data_received(data)
        if body is not None and body is self.payload and body.is_eof():
            self._body_ends(data, body.total_bytes - before)

    def eof_received(self) -> None:
        self.inner.eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_timer()
        self.head_deadline = None
        if self.head_timer is not None:
            self.head_timer.cancel()
            self.head_timer = None
        self.transport = None
        self.guard.watches.pop(self.inner, None)
        self.inner.connection_lost(exc)

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()

    # The deadlines

    def head_arrived(self, payload: StreamReader, chunked: bool) -> None:
        """aiohttp made a request of a head that arrived whole: its body, if one is still to come, is watched."""
        self._stop_timer()
        self.head_deadline = None
        self.payload, self.chunked = payload, chunked
        if not payload.is_eof():
            self.window_start = payload.total_bytes
            self.timer = self.loop.call_later(self.limits.body_window, self._body_check)

    def _body_ends(self, data: bytes, body_bytes: int) -> None:
        """The chunk `data` brought the end of the body: bytes behind it begin the next head, which is timed
        from here (else a client could stall a head it began in the body's last chunk until the keep-alive)."""
        self._stop_timer()
        if self.chunked:  # the chunk sizes are on the wire, not in the body: the body ends with its blank line
            end = data.rfind(b"\r\n\r\n")
            behind = len(data) - end - 4 if end >= 0 else 0
        else:
            behind = len(data) - body_bytes
        if behind > 0:
            self.head_started = self.received - behind
            self._head_begins()

    def _request_done(self) -> bool:
        """True before the first request and once the latest one's body is in; what comes then is a new head."""
        return self.payload is None or self.payload.is_eof()

    def _head_begins(self) -> None:
        # A head's timer is not cancelled when the head arrives whole: it stays for the heads that follow on the
        # connection, and is moved on to the pending one's deadline when it fires early. A kept-alive connection
        # so schedules a timer once a `head_seconds`, not once a request.
        self.head_deadline = self.loop.time() + self.limits.head_seconds
        if self.head_timer is None:
            self.head_timer = self.loop.call_at(self.head_deadline, self._head_due)

    def _head_due(self) -> None:
        self.head_timer = None
        if self.head_deadline is None:  # no head pending: the next one schedules its own
            return
        if self.head_deadline > self.loop.time() + _CLOCK_RESOLUTION:  # a later head's: wait on for it
            self.head_timer = self.loop.call_at(self.head_deadline, self._head_due)
            return
        self._head_late()

    def _head_late(self) -> None:
        self.head_deadline = None
        if _answering(self.inner):
            # A head sent behind a request still being answered (pipelined) waits for aiohttp, not for the client.
            self._head_begins()
            return
        partial = self.received - self.head_started
        self._cut(
            f"request head not complete within {self.limits.head_seconds:g} s"
            if partial
            else f"no request within {self.limits.head_seconds:g} s of the connection's opening",
            partial,
        )

    def _body_check(self) -> None:
        self.timer = None
        payload = self.payload
        if payload is None or payload.is_eof() or payload.exception() is not None:
            return
        grown = payload.total_bytes - self.window_start
        reading = self.transport is not None and self.transport.is_reading()
        if reading and grown < max(1, self.limits.body_rate * self.limits.body_window):
            self._cut(
                f"request body below {self.limits.body_rate} bytes/s ({grown} bytes in {self.limits.body_window:g} s)",
                payload.total_bytes,
            )
            return
        self.window_start = payload.total_bytes
        self.timer = self.loop.call_later(self.limits.body_window, self._body_check)

    def _cut(self, what: str, read: int) -> None:
        if self.transport is None:
            return
        log.warning("cut a slow connection from %s: %s; %d bytes read", _address(self.transport), what, read)
        self.transport.close()

    def _stop_timer(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None


def _answering(inner: RequestHandler) -> bool:
    """Whether aiohttp is handling a request of the connection (it keeps no public flag of it; an aiohttp without
    this one reads as not answering, which only cuts a pipelined head earlier)."""
    return bool(getattr(inner, "_request_in_progress", False))


def _address(transport: asyncio.BaseTransport) -> str:
    peer = transport.get_extra_info("peername")
    return str(peer[0]) if isinstance(peer, tuple) and peer else "unknown"


class Guard:
    """The protocol factory of a server whose connections are watched."""

    def __init__(self, server: web.Server, limits: Limits) -> None:
        self.server, self.limits = server, limits
        self.watches: dict[RequestHandler, Watch] = {}
        self._make_request = server.request_factory
        server.request_factory = self._request

    def __call__(self) -> Watch:
        watch = Watch(self, self.server())
        self.watches[watch.inner] = watch
        return watch

    def _request(
        self, message: Any, payload: StreamReader, protocol: RequestHandler, writer: Any, task: Any
    ) -> BaseRequest:
        watch = self.watches.get(protocol)
        if watch is not None:
            watch.head_arrived(payload, bool(getattr(message, "chunked", False)))
        return self._make_request(message, payload, protocol, writer, task)


class GuardedSite(web.SockSite):
    """aiohttp's site on a listening socket, its connections watched by a `Guard`."""

    def __init__(self, runner: web.BaseRunner, sock: socket.socket, limits: Limits) -> None:
        super().__init__(runner, sock)
        self.limits = limits

    async def start(self) -> None:
        await web.BaseSite.start(self)
        server = self._runner.server
        assert server is not None
        self._server = await asyncio.get_running_loop().create_server(
            Guard(server, self.limits), sock=self._sock, backlog=self._backlog
        )
