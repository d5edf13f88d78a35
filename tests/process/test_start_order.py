"""The start's two halves (signsvc/app.py): the ready line comes once the database, the keys and the checks of the
configuration are done, before the route table and the domain are loaded; a request sent at once is answered."""

import asyncio
import re
import sys

import aiohttp

from tests.support import service
from tests.support.paths import ROOT

# Modules only the second half loads: the route table and the handlers it names, and the domain's objects.
SECOND_HALF = ("signsvc.assembly", "signsvc.http.routes", "signsvc.submissions.submissions", "signsvc.results.produce")
IMPORTED = re.compile(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)$")


async def test_the_ready_line_comes_before_the_second_half_is_loaded_and_a_request_sent_at_once_is_answered():
    # One pipe for stdout and stderr, where -X importtime writes each import as it ends: the order is the server's.
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-X",
        "importtime",
        "run.py",
        "--port",
        "0",
        cwd=ROOT,
        env=service.environment(SIGNSVC_DATABASE_URL="sqlite:///:memory:"),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    assert process.stdout is not None
    lines: list[str] = []
    ready = asyncio.Event()

    async def read(stdout: asyncio.StreamReader) -> None:  # to its end, or a full pipe would stall the server
        while line := (await stdout.readline()).decode():
            lines.append(line)
            if line.startswith("signsvc ready"):
                ready.set()

    reading = asyncio.create_task(read(process.stdout))
    try:
        await asyncio.wait_for(ready.wait(), 30)
        at = next(n for n, line in enumerate(lines) if line.startswith("signsvc ready"))
        site = lines[at].split()[3]
        # The ready line and the keys are one write: the reader has taken them all before this task runs again.
        [live_key] = [line.split()[-1] for line in lines[at:] if line.startswith("API key (live)")]
        async with (
            aiohttp.ClientSession() as session,
            session.get(f"{site}/api/user", headers={"X-Auth-Token": live_key}) as response,
        ):
            assert response.status == 200
    finally:
        process.terminate()
        assert await process.wait() == 0
        await reading
    loaded_before = {match[1] for line in lines[:at] if (match := IMPORTED.match(line))}
    loaded_after = {match[1] for line in lines[at:] if (match := IMPORTED.match(line))}
    assert loaded_before & set(SECOND_HALF) == set()
    assert set(SECOND_HALF) <= loaded_after
