"""The HTTP client of webhook deliveries: POST a body, read the answer's status, keep the connection.

A delivery uses little of HTTP: one request, then the status of the answer and nothing of its body. aiohttp's
client spent about two thirds of the service's CPU per delivery on what a delivery does not use (request and
response objects, cookies, tracing, redirects, streaming), so deliveries use this instead: HTTP/1.1 over
asyncio's transports, with keep-alive connections per origin as aiohttp's connector had them.

- The answer's head is read whole (at most `MAX_HEAD` bytes) and its status returned at once. A connection
  goes back to the pool only when the answer's body, framed by Content-Length or chunked, came whole with its
  head and the receiver keeps the connection; any other is closed. 1xx answers before the final one are
  skipped. Idle connections are closed after `IDLE_SECONDS`, at most `IDLE_PER_ORIGIN` kept for each origin.
- Credentials in the URL (`https://user:pass@host/`) are sent as Basic authorization, as before.
- A kept connection that the receiver closed before answering (it closes idle connections after a few
  seconds) is replaced by a new one and the request sent once more. Deliveries are at least once; receivers
  tell repeats by the event id.
- `public_only`: a host name is connected to only through its public addresses, the ones checked (no second
  lookup that DNS rebinding could answer differently).
"""

from __future__ import annotations

import asyncio
import base64
import functools
import re
import socket
import ssl
import time
from dataclasses import dataclass

from yarl import URL

from signsvc.infra.addresses import is_public

MAX_HEAD = 64 * 1024
IDLE_SECONDS = 15.0  # a kept connection unused for longer is closed rather than reused
IDLE_PER_ORIGIN = 32
_STATUS_LINE = re.compile(rb"HTTP/1\.([01]) (\d{3})(?: [^\r\n]*)?")
_CHUNK_SIZE = re.compile(rb"[0-9A-Fa-f]{1,16}")
# Headers this client writes itself: a caller's would change how the request is framed or where it goes.
_OWN_HEADERS = frozenset({"host", "content-length", "transfer-encoding", "connection"})
_HEADER_VALUE = re.compile(r"[^\x00-\x08\x0a-\x1f\x7f]*")  # tabs allowed; other controls, CR and LF not
_HEADER_NAME = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")


class InvalidUrl(ValueError):
    """Not an http or https URL with a host."""


class NoAddress(OSError):
    """A host name with no public address, where only public ones are allowed."""


class NoAnswer(OSError):
    """The connection closed, or the answer was not HTTP, before a status came."""


@dataclass(frozen=True)
class Target:
    """Where a URL's request goes, parsed once per URL."""

    host: str  # as connected to: an IDNA name or an address
    port: int
    tls: bool
    host_header: str
    request_target: str
    authorization: str | None  # from credentials in the URL

    @property
    def origin(self) -> tuple[str, int, bool]:
        return self.host, self.port, self.tls


@functools.lru_cache(maxsize=4096)
def target(url: str) -> Target:
    try:
        parsed = URL(url)
    except (ValueError, TypeError):
        raise InvalidUrl(url) from None
    if parsed.scheme not in ("http", "https") or not parsed.raw_host or parsed.port is None:
        raise InvalidUrl(url)
    host = parsed.raw_host
    shown_host = f"[{host}]" if ":" in host else host
    default = 443 if parsed.scheme == "https" else 80
    host_header = shown_host if parsed.port == default else f"{shown_host}:{parsed.port}"
    authorization = None
    if parsed.user is not None:
        credentials = f"{parsed.user}:{parsed.password or ''}".encode()
        authorization = "Basic " + base64.b64encode(credentials).decode("ascii")
    return Target(host, parsed.port, parsed.scheme == "https", host_header, parsed.raw_path_qs or "/", authorization)


def request_head(found: Target, headers: dict[str, str], length: int) -> bytes:
    """The request line and headers; a header that would break the request's framing is refused."""
    lines = [f"POST {found.request_target} HTTP/1.1", f"Host: {found.host_header}"]
    if found.authorization:
        lines.append(f"Authorization: {found.authorization}")
    for name, value in headers.items():
        if not _HEADER_NAME.fullmatch(name) or not _HEADER_VALUE.fullmatch(value):
            raise ValueError(f"header {name!r} has characters a header cannot have")
        if name.lower() in _OWN_HEADERS:
            raise ValueError(f"header {name!r} is written by the client itself")
        if found.authorization and name.lower() == "authorization":
            raise ValueError("header 'Authorization' and credentials in the URL cannot both be sent")
        lines.append(f"{name}: {value}")
    lines += [f"Content-Length: {length}", "Connection: keep-alive", "", ""]
    return "\r\n".join(lines).encode("utf-8")


class Poster:
    """POSTs over kept connections. Concurrency is the caller's to bound: each request in flight has its own
    connection."""

    def __init__(self, *, public_only: bool, tls: ssl.SSLContext | None = None) -> None:
        self.public_only = public_only
        self._tls = tls
        self._idle: dict[tuple[str, int, bool], list[tuple[_Connection, float]]] = {}
        self._swept = time.monotonic()
        self._closed = False

    async def post(self, url: str, body: bytes, headers: dict[str, str]) -> int:
        """The status of the answer. Raises InvalidUrl, NoAddress, or an OSError (NoAnswer, ssl.SSLError, a
        refused connection) when no answer came; the caller bounds the time."""
        found = target(url)
        message = request_head(found, headers, len(body)) + body
        kept = self._take(found)
        if kept is not None:
            try:
                return await self._exchange(found, kept, message)
            except _Stale:
                pass
        return await self._exchange(found, await self._connect(found), message)

    async def close(self) -> None:
        self._closed = True
        for kept in self._idle.values():
            for connection, _ in kept:
                connection.close()
        self._idle.clear()

    async def _exchange(self, found: Target, connection: _Connection, message: bytes) -> int:
        try:
            status = await connection.send(message)
        except BaseException:
            connection.close()
            raise
        kept = self._idle.setdefault(found.origin, [])
        if connection.reusable and not self._closed and len(kept) < IDLE_PER_ORIGIN:
            kept.append((connection, time.monotonic()))
        else:
            connection.close()
        self._sweep()
        return status

    def _sweep(self) -> None:
        """Closes the connections idle for too long, of every origin, once a second at most."""
        now = time.monotonic()
        if now - self._swept < 1.0:
            return
        self._swept = now
        for origin, kept in list(self._idle.items()):
            fresh = []
            for connection, since in kept:
                if connection.lost or now - since >= IDLE_SECONDS:
                    connection.close()
                else:
                    fresh.append((connection, since))
            if fresh:
                self._idle[origin] = fresh
            else:
                del self._idle[origin]

    def _take(self, found: Target) -> _Connection | None:
        kept = self._idle.get(found.origin)
        now = time.monotonic()
        while kept:
            connection, since = kept.pop()
            if not connection.lost and now - since < IDLE_SECONDS:
                return connection
            connection.close()
        return None

    async def _connect(self, found: Target) -> _Connection:
        loop = asyncio.get_running_loop()
        tls = self._context() if found.tls else None
        server_hostname = found.host if tls else None
        if not self.public_only:
            _, connection = await loop.create_connection(
                _Connection, found.host, found.port, ssl=tls, server_hostname=server_hostname
            )
            return connection
        error: OSError = NoAddress(f"{found.host} has no public address")
        for address in await _public_addresses(found.host, found.port):
            try:
                _, connection = await loop.create_connection(
                    _Connection, address, found.port, ssl=tls, server_hostname=server_hostname
                )
                return connection
            except OSError as exc:
                error = exc
        raise error

    def _context(self) -> ssl.SSLContext:
        if self._tls is None:
            self._tls = ssl.create_default_context()
        return self._tls


async def _public_addresses(host: str, port: int) -> list[str]:
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
    return [address for address in addresses if is_public(address)]


class _Stale(Exception):
    """A kept connection closed by its peer before any answer: the request may go on a new one."""


class _Connection(asyncio.Protocol):
    """One connection and at most one request on it at a time."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.answer: asyncio.Future[int] | None = None
        self.reusable = False
        self.lost = False
        self.used = False  # an earlier request was answered on it
        self._scanned = 0  # how far the buffer was searched for the end of a head

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def send(self, message: bytes) -> asyncio.Future[int]:
        if self.lost or self.transport is None or self.transport.is_closing():
            raise _Stale() if self.used else NoAnswer("the connection is closed")
        self.answer = asyncio.get_running_loop().create_future()
        self.reusable = False
        self._scanned = 0
        self.transport.write(message)
        return self.answer

    def data_received(self, data: bytes) -> None:
        if self.answer is None or self.answer.done():
            self.close()  # bytes nobody asked for: the connection's framing cannot be trusted
            return
        self.buffer += data
        try:
            status = self._parse()
        except NoAnswer as exc:
            self.answer.set_exception(exc)
            self.close()
            return
        if status is not None:
            self.answer.set_result(status)

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        if self.answer is not None and not self.answer.done():
            silent = self.used and not self.buffer
            self.answer.set_exception(_Stale() if silent else NoAnswer("the connection closed before an answer"))

    def close(self) -> None:
        self.lost = True
        if self.transport is not None:
            self.transport.close()

    def _parse(self) -> int | None:
        """The final answer's status once its head is whole; skips 1xx answers before it."""
        while True:
            end = self.buffer.find(b"\r\n\r\n", max(0, self._scanned - 3))
            if end < 0:
                self._scanned = len(self.buffer)
                if len(self.buffer) > MAX_HEAD:
                    raise NoAnswer("the answer's head is too long")
                return None
            head = bytes(self.buffer[:end])
            match = _STATUS_LINE.fullmatch(head.split(b"\r\n", 1)[0])
            if match is None:
                raise NoAnswer("not an HTTP answer")
            status = int(match[2])
            if 100 <= status < 200 and status != 101:
                del self.buffer[: end + 4]
                self._scanned = 0
                continue
            self._settle(head, end + 4, status, match[1] == b"1")
            return status

    def _settle(self, head: bytes, body_start: int, status: int, http11: bool) -> None:
        """Whether the connection can carry another request: the answer came whole and the peer keeps it."""
        fields = _fields(head)
        connection = b",".join(fields.get(b"connection", [])).lower()
        keep = b"close" not in connection if http11 else b"keep-alive" in connection
        body_end = _body_end(fields, status, self.buffer, body_start)
        self.reusable = keep and status != 101 and body_end == len(self.buffer)
        self.used = True
        self.buffer.clear()


def _fields(head: bytes) -> dict[bytes, list[bytes]]:
    found: dict[bytes, list[bytes]] = {}
    for line in head.split(b"\r\n")[1:]:
        name, separator, value = line.partition(b":")
        if separator:
            found.setdefault(name.strip().lower(), []).append(value.strip())
    return found


def _body_end(fields: dict[bytes, list[bytes]], status: int, buffer: bytearray, start: int) -> int | None:
    """Where the answer's body ends in `buffer`, or None when it is not all there, or its framing is not one
    this client reads (then the connection is not reused)."""
    if status in (204, 304):
        return start
    encodings = b",".join(fields.get(b"transfer-encoding", [])).lower()
    if encodings:
        last = encodings.rsplit(b",", 1)[-1].strip()
        return _chunks_end(buffer, start) if last == b"chunked" else None
    lengths = set(fields.get(b"content-length", []))
    if len(lengths) != 1:
        return None
    [length] = lengths
    if not length.isdigit() or len(length) > 15:
        return None
    end = start + int(length)
    return end if end <= len(buffer) else None


def _chunks_end(buffer: bytearray, position: int) -> int | None:
    """Where a chunked body ends, or None when it is not all there or not well framed."""
    while True:
        line_end = buffer.find(b"\r\n", position)
        if line_end < 0:
            return None
        size_text = bytes(buffer[position:line_end]).split(b";", 1)[0].strip(b" \t")
        if not _CHUNK_SIZE.fullmatch(size_text):
            return None
        size = int(size_text, 16)
        if size == 0:  # then trailer fields, if any, and an empty line
            end = buffer.find(b"\r\n\r\n", line_end)
            return end + 4 if end >= 0 else None
        data_end = line_end + 2 + size
        if data_end + 2 > len(buffer):
            return None
        if buffer[data_end : data_end + 2] != b"\r\n":
            return None
        position = data_end + 2
