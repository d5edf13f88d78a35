"""`python run.py --workers 2`: one supervisor and two serving processes on one port and one database (a SQLite
file, or Postgres). Which process answered a request is read from the access log, where every line of a worker
names its pid."""

from __future__ import annotations

import asyncio
import os
import re
import signal
from pathlib import Path

import aiohttp

from tests.support import service
from tests.support.documents import b64, pdf
from tests.support.service import Stderr
from tests.support.signing import ANN_VALUES, BOB_VALUES, FIELDS

KEY = "workers-test-key-000000000000000000000000000"
ACCESS = re.compile(r"\[(\d+)\] signsvc\.access: GET /api/user 200 ")


def access_pids(stderr: Stderr) -> set[int]:
    return {int(match[1]) for match in stderr.matches(ACCESS)}


async def start_workers(database_url: str, tmp_path: Path, **env: str) -> tuple[service.Service, Stderr]:
    server = await service.start(
        "--workers",
        "2",
        SIGNSVC_DATABASE_URL=database_url,
        SIGNSVC_DATA_DIR=str(tmp_path / "data"),
        SIGNSVC_LOG_LEVEL="INFO",
        SIGNSVC_RATE_LIMIT_PER_KEY="0",
        SIGNSVC_RATE_LIMIT_PER_IP="0",
        **env,
    )
    return server, server.stderr


def children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        found |= {int(child) for child in (task / "children").read_text().split()}
    return found


def alive(pid: int) -> bool:
    """Whether the process still runs (a zombie has ended: nobody reaped it yet)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


async def until_gone(pids: set[int], timeout: float = 30) -> None:
    async with asyncio.timeout(timeout):
        while any(alive(pid) for pid in pids):
            await asyncio.sleep(0.05)


async def answering_pids(
    server: service.Service, stderr: Stderr, key: str, wanted: int, timeout: float = 30
) -> set[int]:
    """Sends GET /api/user, each on a new connection, until `wanted` processes have answered with 200; the kernel
    hands each new connection to one of the listening workers. Answers the pids that answered."""
    async with (
        aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(force_close=True), headers={"X-Auth-Token": key}
        ) as session,
        asyncio.timeout(timeout),
    ):
        while len(pids := access_pids(stderr)) < wanted:
            logged = len(stderr.matches(ACCESS))
            async with session.get(f"{server.api}/user") as reply:
                assert reply.status == 200, await reply.text()
                assert (await reply.json())["email"] == "admin@example.com"
            await stderr.wait_until(lambda logged=logged: len(stderr.matches(ACCESS)) > logged)
        return pids


async def stop(server: service.Service) -> tuple[int, str]:
    """SIGTERM to the supervisor; its exit code and what it wrote to stdout after the ready block."""
    code = await server.stop(signal.SIGTERM)
    return code, await server.stdout()


async def test_two_workers_serve_with_the_keys_of_the_one_ready_line_and_one_killed_is_started_again(
    database_url, tmp_path
):
    server, stderr = await start_workers(database_url, tmp_path)
    supervisor = server.process.pid
    try:
        assert set(server.keys) == {"live", "test"} and server.setup_link
        first = await answering_pids(server, stderr, server.keys["live"], wanted=2)
        assert supervisor not in first and first <= children(supervisor)
        await answering_pids(server, stderr, server.keys["test"], wanted=1)

        killed = min(first)
        (survivor,) = first - {killed}
        os.kill(killed, signal.SIGKILL)
        await stderr.wait_for(rf"worker \d \(pid {killed}\) was killed by SIGKILL; starting another")
        successor = int((await stderr.wait_for(r"worker \d \(pid (\d+)\) ready"))[1])
        assert successor not in first and successor in children(supervisor)
        stderr.lines.clear()
        assert await answering_pids(server, stderr, server.keys["live"], wanted=2) == {survivor, successor}
    finally:
        code, later_stdout = await stop(server)
    assert code == 0 and "signsvc ready" not in later_stdout
    await until_gone({survivor, successor})
    log = await stderr.rest()
    assert log.count("signsvc stopping: finishing requests and jobs under way") == 1 and "Traceback" not in log


async def test_a_submission_made_through_the_workers_completes_and_its_webhook_is_delivered_once(
    database_url, tmp_path, receiver
):
    server, stderr = await start_workers(
        database_url, tmp_path, SIGNSVC_API_KEY=KEY, SIGNSVC_WEBHOOK_URL=receiver.url("/hook")
    )
    try:
        async with aiohttp.ClientSession(headers={"X-Auth-Token": KEY}) as session:
            body = {"name": "NDA", "documents": [{"name": "nda", "file": b64(pdf()), "fields": FIELDS}]}
            async with session.post(f"{server.api}/templates", json=body) as reply:
                assert reply.status == 201, await reply.text()
                template_id = (await reply.json())["id"]
            body = {
                "template_id": template_id,
                "submitters": [
                    {"email": "ann@example.com", "name": "Ann", "values": ANN_VALUES, "completed": True},
                    {"email": "bob@example.com", "name": "Bob", "values": BOB_VALUES, "completed": True},
                ],
            }
            async with session.post(f"{server.api}/submissions", json=body) as reply:
                assert reply.status == 200, await reply.text()
                submission_id = (await reply.json())[0]["submission_id"]
        await receiver.wait_until(
            lambda received: any(r.json["event_type"] == "submission.completed" for r in received), timeout=60
        )
    finally:
        code, _ = await stop(server)  # every attempt under way finishes: a duplicate would be counted below
    completed = [r.json for r in receiver.at("/hook") if r.json["event_type"] == "submission.completed"]
    assert code == 0 and [event["data"]["id"] for event in completed] == [submission_id]
    assert "Traceback" not in await stderr.rest()


async def test_the_workers_leave_when_their_supervisor_is_killed(tmp_path):
    server, stderr = await start_workers(f"sqlite:///{tmp_path / 'signsvc.sqlite3'}", tmp_path)
    workers = children(server.process.pid)
    server.process.kill()
    await asyncio.wait_for(server.process.wait(), 30)
    await until_gone(workers)
    await stderr.rest()  # closed: no process that held the pipe is left


async def test_workers_are_refused_on_a_database_in_memory():
    code, out, err = await service.run("--workers", "2", "--port", "0", "--database", "sqlite:///:memory:")
    assert (code, out) == (1, "")
    assert err == (
        "signsvc: --workers 2 needs a database the workers share: sqlite:///:memory: belongs to one "
        "process (use a SQLite file or Postgres)\n"
    )


async def test_workers_are_refused_with_the_testing_extension(tmp_path):
    code, out, err = await service.run(
        "--workers", "2", "--port", "0", "--database", f"sqlite:///{tmp_path / 'signsvc.sqlite3'}", SIGNSVC_TESTING="1"
    )
    assert (code, out) == (1, "")
    assert err == (
        "signsvc: --workers 2 cannot be used with SIGNSVC_TESTING: the testing extension keeps the "
        "service clock in its process, and each worker would have its own\n"
    )


async def test_zero_workers_is_a_usage_error():
    code, out, err = await service.run("--workers", "0")
    assert (code, out) == (2, "") and err.startswith("usage: python run.py")
    assert err.endswith("python run.py: error: argument --workers: 0 is not a number of processes: use 1 or more\n")
