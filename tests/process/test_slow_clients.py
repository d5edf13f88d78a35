"""Slow clients cannot hold the server: a request head that does not arrive whole in time and a body that comes
too slowly are cut and logged in one line; the body budget is shared, so that slow bodies of one key leave room
for another account's upload; a client that goes away mid-body is no 500 and no traceback. Over real sockets, on
`python run.py`, with the deadlines moved low through their settings."""

import asyncio
import io
import json
import re
import time
from urllib.parse import urlsplit

import aiohttp
import pytest

from tests.support import service
from tests.support.documents import b64, pdf

HEALTH_WITHIN = 1.0  # seconds
MIB = 1024 * 1024
KEY = "live-key-of-the-slow-client-000000000000"
HEAD_CUT = re.compile(
    r"WARNING signsvc\.http\.connection_deadlines: cut a slow connection from 127\.0\.0\.1: "
    r"request head not complete within 1 s; (\d+) bytes read$"
)
SILENT_CUT = re.compile(
    r"cut a slow connection from 127\.0\.0\.1: no request within 1 s of the connection's "
    r"opening; 0 bytes read$"
)
BODY_CUT = re.compile(
    r"WARNING signsvc\.http\.connection_deadlines: cut a slow connection from 127\.0\.0\.1: "
    r"request body below 1024 bytes/s \(\d+ bytes in 1 s\); (\d+) bytes read$"
)


class Connection:
    """A raw connection to the server, to send a request as slowly as a test likes."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer, self.opened = reader, writer, time.monotonic()

    @classmethod
    async def to(cls, server: service.Service) -> "Connection":
        address = urlsplit(server.site)
        return cls(*await asyncio.open_connection(address.hostname, address.port))

    async def send(self, data: bytes) -> bool:
        """False once the server has closed the connection."""
        try:
            self.writer.write(data)
            await self.writer.drain()
        except ConnectionError:
            return False
        return not self.reader.at_eof()

    async def trickle(self, data: bytes, every: float) -> None:
        """Sends `data` a byte at a time, `every` seconds apart, until it is sent or the server closes."""
        for byte in data:
            if not await self.send(bytes([byte])):
                return
            await asyncio.sleep(every)

    async def closed_after(self, within: float) -> float:
        """Seconds from the opening until the server closed the connection, which must be within `within`."""
        try:
            data = await asyncio.wait_for(self.reader.read(), within)
        except ConnectionResetError:  # closed with bytes of ours unread
            data = b""
        return time.monotonic() - self.opened, data

    async def response(self) -> tuple[int, dict[str, str], bytes]:
        """The next response's status, headers and body (sized by its Content-Length)."""
        head = (await asyncio.wait_for(self.reader.readuntil(b"\r\n\r\n"), 10)).decode()
        status_line, *lines = head.strip().split("\r\n")
        headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}
        body = await self.reader.readexactly(int(headers.get("content-length", 0)))
        return int(status_line.split()[1]), headers, body

    async def answer_within(self, seconds: float) -> tuple[int, dict[str, str], bytes] | None:
        """The next response, or None when none has come within `seconds`."""
        try:
            return await asyncio.wait_for(self.response(), seconds)
        except TimeoutError:
            return None

    def close(self) -> None:
        self.writer.close()


def post_head(path: str, key: str, length: int) -> bytes:
    return (
        f"POST {path} HTTP/1.1\r\nHost: signsvc\r\nX-Auth-Token: {key}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {length}\r\n\r\n"
    ).encode()


async def health(server: service.Service) -> None:
    """One /health, before anything is timed: the first after a start waits for the start's second half (the
    server reads no connection before it: signsvc/app.py) and reads the installed fonts (most of a second on a
    busy machine)."""
    async with aiohttp.ClientSession() as session, session.get(f"{server.site}/health") as answer:
        assert answer.status == 200


async def health_answers_while(server: service.Service, work: asyncio.Future) -> None:
    """Asks /health again and again until `work` is done: each answer must come within HEALTH_WITHIN seconds."""
    async with aiohttp.ClientSession() as session:
        while not work.done():
            started = time.monotonic()
            async with session.get(f"{server.site}/health") as health:
                assert health.status == 200
            assert time.monotonic() - started < HEALTH_WITHIN, "the server did not answer /health in time"
            await asyncio.sleep(0.1)


def upload(size: int) -> bytes:
    """A template's JSON of `size` bytes: a real document, the rest spaces (the body budget counts bytes)."""
    body = json.dumps({"name": "Upload", "documents": [{"name": "a.pdf", "file": b64(pdf())}]}).encode()
    return body[:-1] + b" " * (size - len(body)) + b"}"


async def post(server: service.Service, key: str, body: bytes) -> int:
    headers = {"X-Auth-Token": key, "Content-Type": "application/json"}
    async with (
        aiohttp.ClientSession() as session,
        session.post(f"{server.api}/templates", data=io.BytesIO(body), headers=headers) as response,
    ):
        return response.status


async def another_account(database_url: str) -> str:
    """The live key of a second account, made with the command line."""
    code, out, _ = await service.run(
        "accounts",
        "create",
        "--name",
        "Other",
        "--email",
        "other@example.com",
        "--approve",
        SIGNSVC_DATABASE_URL=database_url,
        SIGNSVC_API_KEY=KEY,
    )
    assert code == 0, out
    return re.search(r"^API key \(live\): (\S+)$", out, re.MULTILINE)[1]


async def test_request_heads_not_whole_within_the_header_timeout_are_cut_and_logged_while_health_answers(database_url):
    server = await service.start(SIGNSVC_DATABASE_URL=database_url, SIGNSVC_HEADER_TIMEOUT_SECONDS="1")
    try:
        await health(server)
        slow = [await Connection.to(server) for _ in range(50)]
        silent = await Connection.to(server)
        trickles = [
            asyncio.create_task(c.trickle(b"GET /health HTTP/1.1\r\nHost: signsvc\r\nX-Slow: " + b"x" * 100, 0.1))
            for c in slow
        ]
        closed = asyncio.gather(*(c.closed_after(within=5) for c in [*slow, silent]))
        await health_answers_while(server, closed)
        for seconds, data in await closed:
            assert 0.9 <= seconds < 3 and data == b""  # cut at the deadline, without an answer
        await asyncio.gather(*trickles)
        await server.stderr.wait_until(lambda: len(server.stderr.matches(HEAD_CUT)) == 50, timeout=10)
        assert all(int(cut[1]) >= 3 for cut in server.stderr.matches(HEAD_CUT))  # the bytes each had sent
        assert len(server.stderr.matches(SILENT_CUT)) == 1
        for connection in [*slow, silent]:
            connection.close()
    finally:
        await server.stop()


async def test_a_kept_alive_connection_idle_longer_than_the_header_timeout_serves_its_next_request(database_url):
    server = await service.start(SIGNSVC_DATABASE_URL=database_url, SIGNSVC_HEADER_TIMEOUT_SECONDS="1")
    try:
        connection = await Connection.to(server)
        for _ in range(2):
            assert await connection.send(b"GET /health HTTP/1.1\r\nHost: signsvc\r\n\r\n")
            assert (await connection.response())[0] == 200
            await asyncio.sleep(1.5)
        connection.close()
        assert not server.stderr.matches(re.compile("cut a slow connection"))
    finally:
        await server.stop()


async def test_a_head_begun_on_a_kept_alive_connection_has_the_whole_header_timeout_from_its_first_byte(
    database_url,
):
    """The connection's head timer, scheduled at its opening, fires within this head's time: it waits on."""
    server = await service.start(SIGNSVC_DATABASE_URL=database_url, SIGNSVC_HEADER_TIMEOUT_SECONDS="1")
    try:
        await health(server)
        connection = await Connection.to(server)
        assert await connection.send(b"GET /health HTTP/1.1\r\nHost: signsvc\r\n\r\n")
        assert (await connection.response())[0] == 200
        await asyncio.sleep(0.6)
        stalled = time.monotonic()
        assert await connection.send(b"GET /health HTTP/1.1\r\nHost: sig")  # then nothing more
        assert await asyncio.wait_for(connection.reader.read(), 5) == b""
        assert 0.9 <= time.monotonic() - stalled < 3  # at this head's deadline, not at the first one's
        cut = await server.stderr.wait_for(HEAD_CUT.pattern)
        assert int(cut[1]) == len(b"GET /health HTTP/1.1\r\nHost: sig")
        connection.close()
    finally:
        await server.stop()


async def test_a_body_below_the_minimum_rate_is_cut_logged_and_frees_its_share_of_the_body_budget(database_url):
    # A budget of 8 MiB: a key's share is 2 MiB, and its first body always fits.
    server = await service.start(
        SIGNSVC_DATABASE_URL=database_url,
        SIGNSVC_BODY_RATE_WINDOW_SECONDS="1",
        SIGNSVC_MAX_BODY_BYTES=str(4 * MIB),
        SIGNSVC_BODY_BUDGET_BYTES=str(8 * MIB),
        SIGNSVC_LOG_LEVEL="INFO",
    )
    key = server.keys["live"]
    try:
        await health(server)
        slow = await Connection.to(server)
        await slow.send(post_head("/api/templates", key, 3 * MIB))
        trickle = asyncio.create_task(slow.trickle(b'{"name": "' + b"x" * 100, 0.2))
        await asyncio.sleep(0.3)  # the server has the head and holds the body's length
        assert await post(server, key, upload(3 * MIB)) == 503  # over the key's share while the slow body is held
        seconds, data = await slow.closed_after(within=5)
        assert 0.9 <= seconds < 3 and data == b""
        await trickle
        cut = await server.stderr.wait_for(BODY_CUT.pattern)
        assert 1 <= int(cut[1]) < 20
        slow.close()
        assert await post(server, key, upload(3 * MIB)) == 201  # the cut body's share was given back
        await server.stderr.wait_for(r"INFO signsvc\.access: POST /api/templates 201")
        log = "\n".join(server.stderr.lines)
        assert "Traceback" not in log and "unhandled error" not in log and " 500 " not in log
    finally:
        await server.stop()


async def test_four_slow_bodies_of_one_key_leave_room_for_another_accounts_2_mib_upload(database_url):
    other = await another_account(database_url)
    # The default body budget (256 MiB) and body limit (64 MiB); slow bodies are held for the whole test.
    server = await service.start(
        SIGNSVC_DATABASE_URL=database_url, SIGNSVC_API_KEY=KEY, SIGNSVC_BODY_RATE_WINDOW_SECONDS="60"
    )
    await health(server)
    slow = [await Connection.to(server) for _ in range(4)]
    trickles = []
    try:
        for connection in slow:
            await connection.send(post_head("/api/templates", KEY, 64 * MIB) + b"{")
        # One of the four holds the key's share (a quarter of the budget); the others are refused at once.
        answers = await asyncio.gather(*(connection.answer_within(2) for connection in slow))
        refused = [answer for answer in answers if answer is not None]
        assert len(refused) == 3
        for status, headers, body in refused:
            assert (status, headers["retry-after"]) == (503, "2") and b"other large requests" in body
        trickles = [
            asyncio.create_task(connection.trickle(b" " * 100, 1.0))
            for connection, answer in zip(slow, answers, strict=True)
            if answer is None
        ]
        await health_answers_while(server, asyncio.ensure_future(asyncio.sleep(2)))
        assert await post(server, other, upload(2 * MIB)) == 201
        await health_answers_while(server, asyncio.ensure_future(asyncio.sleep(1)))
        assert not trickles[0].done()  # still held, still sending
    finally:
        for trickle in trickles:
            trickle.cancel()
        for connection in slow:
            connection.close()
        await server.stop()


async def test_a_client_that_closes_the_connection_mid_body_is_one_info_line_not_a_500_with_a_traceback(database_url):
    server = await service.start(SIGNSVC_DATABASE_URL=database_url, SIGNSVC_LOG_LEVEL="INFO")
    try:
        connection = await Connection.to(server)
        await connection.send(post_head("/api/templates", server.keys["live"], 4 * MIB) + b'{"name": "' + b"x" * 5000)
        await asyncio.sleep(0.3)
        connection.close()
        await server.stderr.wait_for(
            r"INFO signsvc\.http\.middleware: POST /api/templates: the client closed the "
            r"connection before its request was read"
        )
        await server.stderr.wait_for(r"INFO signsvc\.access: POST /api/templates 400")
        log = "\n".join(server.stderr.lines)
        assert "Traceback" not in log and "unhandled error" not in log and "Error handling request" not in log
        await health(server)
    finally:
        await server.stop()


@pytest.mark.parametrize(
    "framing, body_end", [(b"Content-Length: 5", b"12345"), (b"Transfer-Encoding: chunked", b"5\r\n12345\r\n0\r\n\r\n")]
)
async def test_a_head_begun_in_the_chunk_that_ends_a_body_is_cut_at_the_header_timeout(database_url, framing, body_end):
    server = await service.start(SIGNSVC_DATABASE_URL=database_url, SIGNSVC_HEADER_TIMEOUT_SECONDS="1")
    try:
        await health(server)
        connection = await Connection.to(server)
        assert await connection.send(b"GET /health HTTP/1.1\r\nHost: signsvc\r\n" + framing + b"\r\n\r\n")
        await asyncio.sleep(0.3)  # the server has the head and waits for the body
        stalled = time.monotonic()
        assert await connection.send(body_end + b"GET /health HTTP/1.1\r\nHost: sig")  # then nothing more
        assert (await connection.response())[0] == 200
        assert await asyncio.wait_for(connection.reader.read(), 5) == b""
        assert 0.9 <= time.monotonic() - stalled < 3  # cut at the head's deadline, not kept until the keep-alive's
        cut = await server.stderr.wait_for(HEAD_CUT.pattern)
        assert int(cut[1]) == len(b"GET /health HTTP/1.1\r\nHost: sig")
        connection.close()
    finally:
        await server.stop()
