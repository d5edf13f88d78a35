"""The PDF pool of a `python run.py`: started in the background right after the ready line (or, with
SIGNSVC_PDF_WARM_UP=false, with the first document), and gone by itself when the server is killed with SIGKILL:
its workers notice that the server is gone and leave, and the forkserver follows once they let go of its pipe."""

import asyncio
import os
import signal
from collections.abc import Awaitable
from pathlib import Path

import aiohttp

from tests.support import service
from tests.support.documents import b64, pdf

KEY = "pdf-pool-test-key-0000000000000000000000000"


def children_of() -> dict[int, list[int]]:
    """Every process's children, from /proc."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # the process left while being read
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    return children


def descendants(pid: int) -> set[int]:
    children, found, todo = children_of(), set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def alive(pid: int) -> bool:
    """Whether the process runs; a zombie waiting for its new parent to reap it has ended."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


async def until_gone(pids: set[int], seconds: float) -> set[int]:
    """Waits for the processes to end; answers those still running at the deadline."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while (running := {pid for pid in pids if alive(pid)}) and loop.time() < deadline:
        await asyncio.sleep(0.05)
    return running


def pool_of(pid: int) -> set[int]:
    """The process's forkserver and the workers it forked (which run the same command); not the resource
    tracker, which multiprocessing starts with the pool's queues."""

    def forked(child: int) -> bool:
        try:
            return b"multiprocessing.forkserver" in Path(f"/proc/{child}/cmdline").read_bytes()
        except OSError:
            return False

    return {child for child in descendants(pid) if forked(child)}


async def until_started(pid: int, processes: int, seconds: float) -> set[int]:
    """Waits until the process's pool has at least `processes` processes; answers them."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while len(found := pool_of(pid)) < processes and loop.time() < deadline:
        await asyncio.sleep(0.05)
    return found


def start(tmp_path: Path, **variables: str) -> Awaitable[service.Service]:
    return service.start(
        SIGNSVC_DATABASE_URL=f"sqlite:///{tmp_path / 'signsvc.sqlite3'}",
        SIGNSVC_DATA_DIR=str(tmp_path / "data"),
        SIGNSVC_API_KEY=KEY,
        **variables,
    )


async def upload(server: service.Service) -> None:
    async with aiohttp.ClientSession(headers={"X-Auth-Token": KEY}) as session:
        body = {"name": "NDA", "documents": [{"name": "nda", "file": b64(pdf())}]}
        async with session.post(f"{server.api}/templates", json=body) as reply:
            assert reply.status == 201, await reply.text()


async def test_the_pool_starts_right_after_the_ready_line_without_a_document(tmp_path):
    server = await start(tmp_path, SIGNSVC_PDF_WARM_UP="true")
    try:
        # The forkserver and a worker per core.
        started = await until_started(server.process.pid, 1 + (os.cpu_count() or 1), 30)
        assert len(started) >= 1 + (os.cpu_count() or 1), started
    finally:
        await server.stop()


async def test_without_warm_up_the_pool_starts_with_the_first_document(tmp_path):
    server = await start(tmp_path, SIGNSVC_PDF_WARM_UP="false")
    try:
        # Long enough for a warmed pool to be there (it starts within a second of the ready line).
        assert await until_started(server.process.pid, 1, 3) == set()
        await upload(server)
        assert pool_of(server.process.pid)
    finally:
        await server.stop()


async def test_the_pdf_pool_of_a_server_killed_with_sigkill_goes_away_by_itself(tmp_path):
    server = await start(tmp_path)
    try:
        await upload(server)
        pool = descendants(server.process.pid)
        assert len(pool) >= 2, f"no pool workers under the server: {pool}"
    finally:
        server.process.send_signal(signal.SIGKILL)
    # Workers check for the server every half second; a few seconds is plenty.
    left = await until_gone(pool, 10)
    for pid in left:  # not to leave them behind a failed test
        os.kill(pid, signal.SIGKILL)
    assert left == set(), "pool processes outlived the server"
    # Its output pipes close once every process holding them (the pool's too) has ended.
    await asyncio.wait_for(server.process.wait(), 10)
