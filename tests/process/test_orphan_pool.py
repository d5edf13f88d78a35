"""The PDF pool of a `python run.py` killed with SIGKILL goes away by itself: its workers notice that the
server is gone and leave, and the forkserver follows once they let go of its pipe."""

import asyncio
import os
import signal
from pathlib import Path

import aiohttp

from tests.support import service
from tests.support.documents import b64, pdf

KEY = "orphan-pool-test-key-000000000000000000000"


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


async def test_the_pdf_pool_of_a_server_killed_with_sigkill_goes_away_by_itself(tmp_path):
    server = await service.start(SIGNSVC_DATABASE_URL=f"sqlite:///{tmp_path / 'signsvc.sqlite3'}",
                                 SIGNSVC_DATA_DIR=str(tmp_path / "data"), SIGNSVC_API_KEY=KEY)
    try:
        async with aiohttp.ClientSession(headers={"X-Auth-Token": KEY}) as session:
            body = {"name": "NDA", "documents": [{"name": "nda", "file": b64(pdf())}]}
            async with session.post(f"{server.api}/templates", json=body) as reply:
                assert reply.status == 201, await reply.text()
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
