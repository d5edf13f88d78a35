"""Shared by bench/startup.py and bench/api.py: spawning servers, waiting for their ready line,
stopping them with SIGTERM, throwaway Postgres schemas, the bare aiohttp baseline, statistics.

Standard library plus asyncpg only; Linux (select on pipes, /proc for CPU time).
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import os
import select
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

REPO = Path(__file__).resolve().parent.parent
RUN_PY = REPO / "run.py"
POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/test"
READY_TIMEOUT_SECONDS = 60.0
STOP_TIMEOUT_SECONDS = 40.0
EXPECTED_USER = {"id": 1, "first_name": "Admin", "last_name": "User", "email": "admin@example.com"}
# A fixed live key (43 base58 characters), so the load generator knows it without parsing stdout.
BENCH_KEY = "BenchKey" + "1" * 35

# The baseline: imports what signsvc's drivers import, serves the same JSON, prints once listening.
BARE_APP = """
import asyncio, aiohttp, asyncpg, aiosqlite
from aiohttp import web

BODY = {"id": 1, "first_name": "Admin", "last_name": "User", "email": "admin@example.com"}

async def user(request):
    return web.json_response(BODY)

async def main():
    app = web.Application()
    app.router.add_get("/api/user", user)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    print(f"bare ready: http://127.0.0.1:{port}", flush=True)
    await asyncio.Event().wait()

asyncio.run(main())
"""
IMPORTS_ONLY = "import aiohttp, asyncpg, aiosqlite\nprint('imported', flush=True)"


@dataclass
class Server:
    proc: subprocess.Popen
    ready_seconds: float
    ready_cpu_seconds: float  # CPU time the process had used when its line was read
    ready_line: str
    stderr_path: Path
    notes: list[str] = field(default_factory=list)

    @property
    def base_url(self) -> str:
        """`http://HOST:PORT` from the ready line."""
        return next(word for word in self.ready_line.split() if word.startswith("http://")).removesuffix("/api")


def server_env(database_url: str | None, *, fixed_key: bool = True, **extra: str) -> dict[str, str]:
    """The environment for a server: quiet access log, no inherited SIGNSVC_* settings, and
    (unless fixed_key is False) BENCH_KEY as the live key."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SIGNSVC_")}
    env["SIGNSVC_LOG_LEVEL"] = "WARNING"
    if fixed_key:
        env["SIGNSVC_API_KEY"] = BENCH_KEY
    if database_url:
        env["SIGNSVC_DATABASE_URL"] = database_url
    env.update(extra)
    return env


def signsvc_argv() -> list[str]:
    return [sys.executable, str(RUN_PY), "--port", "0"]


def bare_argv() -> list[str]:
    return [sys.executable, "-c", BARE_APP]


def spawn(argv: list[str], env: dict[str, str], cwd: Path) -> Server:
    """Starts a server and waits for its first stdout line; the clock starts just before the spawn."""
    stderr_path = cwd / f"stderr-{uuid.uuid4().hex[:8]}.txt"
    with open(stderr_path, "wb") as stderr:
        started = time.perf_counter()
        proc = subprocess.Popen(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=stderr)
    line = _read_line(proc, started + READY_TIMEOUT_SECONDS)
    elapsed = time.perf_counter() - started
    if not line:
        proc.kill()
        proc.wait()
        raise RuntimeError(f"{argv[1]} exited or hung before its ready line; stderr:\n{stderr_path.read_text()}")
    return Server(proc, elapsed, cpu_seconds(proc.pid), line, stderr_path)


def _read_line(proc: subprocess.Popen, deadline: float) -> str:
    fd = proc.stdout.fileno()
    data = b""
    while b"\n" not in data:
        remaining = deadline - time.perf_counter()
        if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
            return ""
        chunk = os.read(fd, 4096)
        if not chunk:
            return ""
        data += chunk
    return data.split(b"\n", 1)[0].decode()


def stop(server: Server) -> list[str]:
    """SIGTERM, wait, and answer anything unexpected: exit status, slow stop, stderr lines."""
    server.proc.send_signal(signal.SIGTERM)
    started = time.perf_counter()
    try:
        code = server.proc.wait(STOP_TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired:
        server.proc.kill()
        code = server.proc.wait()
        server.notes.append(f"did not stop within {STOP_TIMEOUT_SECONDS:.0f} s of SIGTERM; killed")
    took = time.perf_counter() - started
    server.proc.stdout.close()
    if code not in (0, -signal.SIGTERM):
        server.notes.append(f"exit status {code} after SIGTERM")
    if took > 2.0:
        server.notes.append(f"took {took:.1f} s to stop after SIGTERM")
    server.notes += [line for line in server.stderr_path.read_text().splitlines()
                     if line.strip() and not line.startswith("signsvc stopping")]
    return server.notes


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of a process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextlib.contextmanager
def temp_dir(prefix: str) -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix=prefix) as name:
        yield Path(name)


@contextlib.contextmanager
def postgres_schema(prefix: str) -> Iterator[str]:
    """A fresh, empty schema; yields a database URL that uses it, drops it afterwards."""
    schema = f"{prefix}_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    asyncio.run(_postgres(f'CREATE SCHEMA "{schema}"'))
    try:
        yield f"{POSTGRES_URL}?search_path={schema}"
    finally:
        asyncio.run(_postgres(f'DROP SCHEMA "{schema}" CASCADE'))


async def _postgres(sql: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(POSTGRES_URL, timeout=5)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


def check_postgres() -> str | None:
    """None when Postgres answers; else why not."""
    try:
        asyncio.run(_postgres("SELECT 1"))
    except Exception as exc:  # any failure to connect means: not there
        return f"{type(exc).__name__}: {exc}"
    return None


def percentile(sorted_values: list[float], fraction: float) -> float:
    """Nearest-rank percentile of an ascending list."""
    index = max(0, min(len(sorted_values) - 1, round(fraction * len(sorted_values)) - 1))
    return sorted_values[index]


def median(values: list[float]) -> float:
    return statistics.median(values)


def print_table(headers: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(str(cell)) for cell in column) for column in zip(headers, *rows)]
    for row in [headers, ["-" * w for w in widths], *rows]:
        print("  ".join(str(cell).ljust(w) if i == 0 else str(cell).rjust(w)
                        for i, (cell, w) in enumerate(zip(row, widths))).rstrip())


def descendants(pid: int) -> list[int]:
    """The process ids below `pid` (children, grandchildren, ...), read from /proc; Linux only."""
    found, todo = [], [pid]
    while todo:
        parent = todo.pop()
        try:
            tasks = list(Path(f"/proc/{parent}/task").iterdir())
        except FileNotFoundError:
            continue
        for task in tasks:
            try:
                children = [int(child) for child in (task / "children").read_text().split()]
            except (FileNotFoundError, ProcessLookupError):
                continue
            found += children
            todo += children
    return found


def tree_cpu_seconds(pids: list[int]) -> float:
    """Summed user plus system CPU time of the given processes; one that has gone counts 0."""
    total = 0.0
    for pid in pids:
        with contextlib.suppress(FileNotFoundError, ProcessLookupError):
            total += cpu_seconds(pid)
    return total


def machine_seconds() -> tuple[float, float]:
    """CPU-seconds of all cores since boot, from /proc/stat: busy (user, nice, system, irq, softirq)
    and stolen by the hypervisor. (The same as bench/api.py's.)"""
    user, nice, system, _, _, irq, softirq, steal = map(int, Path("/proc/stat").read_text().split()[1:9])
    tick = os.sysconf("SC_CLK_TCK")
    return (user + nice + system + irq + softirq) / tick, steal / tick


# ---------------------------------------------------------------------------------------------
# The probe: GET /api/user every 20 ms from its own thread and connection


class Probe(threading.Thread):
    def __init__(self, base_url: str, interval: float = 0.020) -> None:
        super().__init__(daemon=True)
        self.interval = interval
        self.host, _, port = base_url.removeprefix("http://").partition(":")
        self.port = int(port)
        self.latencies: list[float] = []
        self.errors: list[str] = []
        self._stop_event = threading.Event()

    def run(self) -> None:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=10)
        next_at = time.perf_counter()
        while not self._stop_event.wait(max(0.0, next_at - time.perf_counter())):
            sent = time.perf_counter()
            try:
                conn.request("GET", "/api/user", headers={"X-Auth-Token": BENCH_KEY})
                response = conn.getresponse()
                response.read()
                if response.status != 200:
                    self.errors.append(f"status {response.status}")
            except (OSError, http.client.HTTPException) as exc:
                self.errors.append(type(exc).__name__)
                conn.close()
                conn = http.client.HTTPConnection(self.host, self.port, timeout=10)
            done = time.perf_counter()
            self.latencies.append(done - sent)
            next_at = max(next_at + self.interval, done)
        conn.close()

    def stop(self) -> list[float]:
        self._stop_event.set()
        self.join()
        return sorted(self.latencies)


@contextlib.contextmanager
def probing(base_url: str) -> Iterator[Probe]:
    probe = Probe(base_url)
    probe.start()
    try:
        yield probe
    finally:
        probe.stop()
