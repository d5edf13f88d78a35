"""Runs `python run.py` as a real process, the way users, deployments and test suites do."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
from collections.abc import Callable

from tests.support.paths import ROOT

READY = re.compile(r"^signsvc ready: site (\S+)  api (\S+)$")


class Stderr:
    """A server's stderr, read as it comes (a pipe nobody reads would stall the server once it is full), line by
    line."""

    def __init__(self, stream: asyncio.StreamReader) -> None:
        self.lines: list[str] = []
        self._arrived = asyncio.Condition()
        self._reading = asyncio.create_task(self._read(stream))

    async def _read(self, stream: asyncio.StreamReader) -> None:
        pending = b""  # chunks, not readline(): a line longer than the reader's limit would end the reading
        while chunk := await stream.read(65536):
            *complete, pending = (pending + chunk).split(b"\n")
            async with self._arrived:
                self.lines += [line.decode(errors="replace") for line in complete]
                self._arrived.notify_all()
        if pending:
            self.lines.append(pending.decode(errors="replace"))

    async def wait_until(self, done: Callable[[], object], timeout: float = 30) -> None:
        async with self._arrived:
            await asyncio.wait_for(self._arrived.wait_for(done), timeout)

    async def wait_for(self, pattern: str, timeout: float = 30) -> re.Match[str]:
        """The first line that matches `pattern`, once it has been written."""

        def found() -> re.Match[str] | None:
            return next((match for line in self.lines if (match := re.search(pattern, line))), None)

        await self.wait_until(found, timeout)
        match = found()
        assert match is not None
        return match

    def matches(self, pattern: re.Pattern[str]) -> list[re.Match[str]]:
        return [match for line in self.lines if (match := pattern.search(line))]

    async def rest(self) -> str:
        """Everything, once the server's stderr has closed."""
        await asyncio.wait_for(asyncio.shield(self._reading), 30)
        return "\n".join(self.lines)


class Service:
    def __init__(
        self,
        process: asyncio.subprocess.Process,
        site: str,
        api: str,
        keys: dict[str, str],
        setup_link: str | None = None,
    ) -> None:
        self.process, self.site, self.api, self.keys = process, site, api, keys
        self.setup_link = setup_link
        assert process.stdout is not None and process.stderr is not None
        self.stderr = Stderr(process.stderr)
        self._stdout = bytearray()
        self._reading_stdout = asyncio.create_task(_collect(process.stdout, self._stdout))

    async def stop(self, signum: int = signal.SIGTERM) -> int:
        """Stops the server; one that has not stopped 30 s later is killed, and the test fails saying so."""
        self.process.send_signal(signum)
        try:
            return await asyncio.wait_for(self.process.wait(), 30)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()
            tail = "\n".join(self.stderr.lines[-20:])
            raise AssertionError(
                f"the server did not stop within 30 s of signal {signum}; it was killed. The end of its stderr:\n{tail}"
            ) from None

    async def stdout(self) -> str:
        """What the server wrote to stdout after the ready block, once its stdout has closed."""
        await asyncio.wait_for(asyncio.shield(self._reading_stdout), 30)
        return self._stdout.decode()


async def _collect(stream: asyncio.StreamReader, into: bytearray) -> None:
    while chunk := await stream.read(65536):
        into += chunk


def environment(**variables: str) -> dict[str, str]:
    """The test's variables over the inherited environment without its SIGNSVC_* settings. The PDF pool starts
    with the first document rather than at start: most of these servers never see one, and warming the pool of
    each would cost the suite minutes of CPU (test_pdf_pool.py starts it both ways)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SIGNSVC_")}
    return {**env, "SIGNSVC_LOG_LEVEL": "WARNING", "SIGNSVC_PDF_WARM_UP": "false", **variables}


# The line a data command starts its stderr with (tests/process/test_cli.py checks it; the others drop it).
WHERE = re.compile(r"signsvc: database \S+, files in [^\n]+\n")


async def run(*args: str, **variables: str) -> tuple[int, str, str]:
    """Runs a command to its end; answers exit code, stdout and stderr without its opening `WHERE` line."""
    code, out, err = await run_whole(*args, **variables)
    return code, out, WHERE.sub("", err, count=1) if WHERE.match(err) else err


async def run_whole(*args: str, **variables: str) -> tuple[int, str, str]:
    """Runs a command to its end; answers exit code, stdout and stderr."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "run.py",
        *args,
        cwd=ROOT,
        env=environment(**variables),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    return process.returncode, out.decode(), err.decode()


async def start(*args: str, prefix: tuple[str, ...] = (), **variables: str) -> Service:
    """Starts the server on a free port and waits for the ready line and the keys printed after it
    (written together with the ready line, so they are in the pipe when it is). `prefix` is a command that
    runs the server (such as `unshare`), exec-ing it in the end so that the process is the server's."""
    process = await asyncio.create_subprocess_exec(
        *prefix,
        sys.executable,
        "run.py",
        "--port",
        "0",
        *args,
        cwd=ROOT,
        env=environment(**variables),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None
    block = await asyncio.wait_for(_first_lines(process.stdout), 30)
    line, *rest = block.decode().split("\n")
    match = READY.match(line)
    if not match:
        process.kill()
        _, err = await process.communicate()
        raise AssertionError(f"no ready line; stdout {line!r}, stderr {err.decode()[-2000:]}")
    keys, setup_link = {}, None
    for extra in rest:
        if key := re.match(r"^API key \((live|test)\): (\S+)$", extra.strip()):
            keys[key[1]] = key[2]
        elif link := re.match(r"^Console setup link \(.*\): (\S+)$", extra.strip()):
            setup_link = link[1]
    return Service(process, match[1], match[2], keys, setup_link)


async def _first_lines(stdout: asyncio.StreamReader) -> bytes:
    """What the server wrote up to the end of the ready line, and the lines written with it: the server
    writes the ready line and the keys in one write, so they arrive together; nothing waits for more."""
    data = b""
    while b"\n" not in data:
        chunk = await stdout.read(65536)  # whatever has arrived, once something has
        if not chunk:
            break
        data += chunk
    return data


async def expire_leases(database_url: str) -> None:
    """After a SIGKILL on Postgres: the dead process's job leases would run out after five minutes;
    move them instead of waiting (SQLite releases them when a process starts)."""
    if database_url.startswith("postgresql"):
        import asyncpg

        conn = await asyncpg.connect(database_url)
        await conn.execute("UPDATE jobs SET locked_until = now() - interval '1 second' WHERE status = 'running'")
        await conn.close()
