"""The operational contract inside the app: health, 503 while the database does not answer, graceful stop.

The contract of the process (ready line, keys, signals) is in tests/process/test_server.py."""

import asyncio
import re

import aiohttp
import pytest

from signsvc.cli.serving import bind
from signsvc.cli.serving import start as start_server
from signsvc.http.appkeys import FONT_SCRIPTS, INGEST
from signsvc.http.connection_deadlines import Limits
from signsvc.pdf import font_files
from tests.support import probe
from tests.support.app import LIVE_KEY


async def test_health_is_200_without_a_key_while_the_database_answers(api):
    reply = await api.with_key(None).get("/health")
    assert (reply.status, reply.json["status"], reply.json["database"]) == (200, "ok", "ok")


async def test_health_says_which_scripts_the_installed_fonts_draw(api):
    scripts = (await api.with_key(None).get("/health")).json["scripts"]
    assert {"Latin", "Greek", "Cyrillic", "Hebrew", "Arabic", "Devanagari", "Thai", "CJK"} <= set(scripts)


async def test_the_scripts_health_reports_are_worked_out_once_not_by_each_health_call(api):
    first = (await api.with_key(None).get("/health")).json["scripts"]  # begins the work: no ready line here
    assert api.app[FONT_SCRIPTS]() is api.app[FONT_SCRIPTS]()  # the one answer, kept
    worked_out = await api.app[FONT_SCRIPTS]()
    assert worked_out == font_files.scripts(api.app[INGEST].font_dir)
    assert first == (await api.with_key(None).get("/health")).json["scripts"] == list(worked_out)


async def test_health_is_503_when_the_database_does_not_answer(api, db):
    await db.close()
    reply = await api.with_key(None).get("/health")
    assert (reply.status, reply.json) == (503, {"status": "unavailable", "database": "unreachable"})


async def test_api_answers_503_when_the_database_does_not_answer(api, db):
    await db.close()
    reply = await api.get("/api/user")
    assert (reply.status, reply.json) == (503, {"error": "Service unavailable: the database does not answer"})


async def test_graceful_stop_lets_requests_under_way_finish(make_app):
    app = make_app()
    sock = bind("127.0.0.1", 0)
    port = sock.getsockname()[1]
    runner = await start_server(app, sock)
    async with aiohttp.ClientSession() as session:
        request = asyncio.create_task(
            session.get(f"http://127.0.0.1:{port}/api/probe/slow", headers={"X-Auth-Token": LIVE_KEY})
        )
        await asyncio.wait_for(app[probe.STARTED].wait(), 5)
        stopping = asyncio.create_task(runner.cleanup())
        await asyncio.sleep(0.1)
        assert not stopping.done(), "stopped while a request was under way"
        app[probe.RELEASE].set()
        response = await asyncio.wait_for(request, 5)
        assert (response.status, await response.json()) == (200, {"finished": True})
        await asyncio.wait_for(stopping, 10)
        with pytest.raises(aiohttp.ClientConnectionError):
            await session.get(f"http://127.0.0.1:{port}/health")


async def test_a_pipelined_request_waits_for_a_slow_answer_without_being_cut_by_the_header_timeout(make_app, caplog):
    app = make_app()
    sock = bind("127.0.0.1", 0)
    runner = await start_server(app, sock, Limits(head_seconds=0.3, body_rate=1024, body_window=10))
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", sock.getsockname()[1])
        writer.write(f"GET /api/probe/slow HTTP/1.1\r\nHost: signsvc\r\nX-Auth-Token: {LIVE_KEY}\r\n\r\n".encode())
        await asyncio.wait_for(app[probe.STARTED].wait(), 5)
        writer.write(b"GET /health HTTP/1.1\r\nHost: signsvc\r\n\r\n")
        await asyncio.sleep(1)  # the second head has been in for longer than the header timeout
        app[probe.RELEASE].set()
        first = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
        assert first.startswith(b"HTTP/1.1 200")
        await reader.readexactly(int(re.search(rb"Content-Length: (\d+)", first)[1]))
        second = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
        assert second.startswith(b"HTTP/1.1 200")
        writer.close()
    finally:
        await runner.cleanup()
    assert "cut a slow connection" not in caplog.text
