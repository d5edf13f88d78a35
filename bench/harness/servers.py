"""Servers under measurement: spawned in a temporary working directory, their ready line waited for,
stopped with SIGTERM; anything unexpected (stderr lines, exit status, a slow stop) kept as notes.

signsvc is `python run.py --port 0`; its ceiling is the bare aiohttp app below, which imports what
signsvc's drivers import, serves the same JSON and prints a line once listening.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from . import REPO
from .usage import cpu_seconds, descendants, tree_cpu_seconds

RUN_PY = REPO / "run.py"
READY_TIMEOUT_SECONDS = 60.0
STOP_TIMEOUT_SECONDS = 40.0
SETTLE_SHARE, SETTLE_STEP_SECONDS, SETTLE_TIMEOUT_SECONDS = 0.05, 0.25, 20.0
EXPECTED_USER = {"id": 1, "first_name": "Admin", "last_name": "User", "email": "admin@example.com"}
# A fixed live key (43 base58 characters), so the load generator knows it without parsing stdout.
BENCH_KEY = "BenchKey" + "1" * 35
# Rate limits lifted: every request is measured, none refused.
LIFTED_LIMITS = {"SIGNSVC_RATE_LIMIT_PER_KEY": "0", "SIGNSVC_RATE_LIMIT_PER_IP": "0"}

BARE_APP = """
import asyncio, signal, socket, subprocess, sys
import aiohttp, asyncpg, aiosqlite
from aiohttp import web

BODY = {"id": 1, "first_name": "Admin", "last_name": "User", "email": "admin@example.com"}

async def user(request):
    return web.json_response(BODY)

def bound(port, reuse_port, listen):
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if reuse_port:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind(("127.0.0.1", port))
    if listen:
        sock.listen(128)
    return sock

async def serve(sock):
    app = web.Application()
    app.router.add_get("/api/user", user)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.SockSite(runner, sock).start()
    print(f"bare ready: http://127.0.0.1:{sock.getsockname()[1]}", flush=True)
    await asyncio.Event().wait()

def supervise(processes):
    # N processes on one port, as `run.py --workers N` has them: the port held (bound, not listening),
    # each process listening on it with SO_REUSEPORT.
    held = bound(0, True, False)
    port = held.getsockname()[1]
    children = [subprocess.Popen([sys.executable, "-c", sys.orig_argv[2], "1", str(port)], stdout=subprocess.PIPE)
                for _ in range(processes)]
    for child in children:
        child.stdout.readline()
    signal.signal(signal.SIGTERM, lambda *_: [child.terminate() for child in children])
    print(f"bare ready: http://127.0.0.1:{port}", flush=True)
    for child in children:
        child.wait()

processes = int(sys.argv[1]) if len(sys.argv) > 1 else 1
if len(sys.argv) > 2:
    asyncio.run(serve(bound(int(sys.argv[2]), True, True)))
elif processes > 1:
    supervise(processes)
else:
    asyncio.run(serve(bound(0, False, True)))
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

    @property
    def pid(self) -> int:
        return self.proc.pid


def server_env(database_url: str | None, *, fixed_key: bool = True, **extra: str) -> dict[str, str]:
    """The environment for a server: quiet access log, no inherited SIGNSVC_* settings, bytecode caches
    kept (`bytecode_dir`), and (unless fixed_key is False) BENCH_KEY as the live key."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SIGNSVC_") and k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = bytecode_dir()
    env["SIGNSVC_LOG_LEVEL"] = "WARNING"
    if fixed_key:
        env["SIGNSVC_API_KEY"] = BENCH_KEY
    if database_url:
        env["SIGNSVC_DATABASE_URL"] = database_url
    env.update(extra)
    return env


@functools.cache
def bytecode_dir() -> str:
    """Where every process this run spawns keeps its modules' bytecode (PYTHONPYCACHEPREFIX), removed at exit.
    After the first start, servers and ceilings alike load compiled modules, as an installed service does.
    Without it, a shell with PYTHONDONTWRITEBYTECODE set would have every signsvc start compile its sources
    again, while aiohttp loads the caches it was installed with; nor does anything land in the repository."""
    path = tempfile.mkdtemp(prefix="signsvc-bench-pycache-")
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


def signsvc_env(database_url: str, **extra: str) -> dict[str, str]:
    """`server_env` with the rate limits lifted (LIFTED_LIMITS; `extra` may set them otherwise)."""
    return server_env(database_url, **{**LIFTED_LIMITS, **extra})


def signsvc_argv(workers: int = 1) -> list[str]:
    return [sys.executable, str(RUN_PY), "--port", "0", *(["--workers", str(workers)] if workers > 1 else [])]


def bare_argv(processes: int = 1) -> list[str]:
    """The bare app; with `processes` > 1, that many on one port (SO_REUSEPORT) under a launcher."""
    return [sys.executable, "-c", BARE_APP, str(processes)]


def imports_argv() -> list[str]:
    return [sys.executable, "-c", IMPORTS_ONLY]


def spawn(argv: list[str], env: dict[str, str], cwd: Path) -> Server:
    """Starts a server and waits for its first stdout line; the clock starts just before the spawn."""
    stderr_path = cwd / f"stderr-{uuid.uuid4().hex[:8]}.txt"
    with open(stderr_path, "wb") as stderr:
        started = time.perf_counter()
        proc = subprocess.Popen(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=stderr)
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
    server.notes += [
        line
        for line in server.stderr_path.read_text().splitlines()
        if line.strip() and not line.startswith("signsvc stopping")
    ]
    return server.notes


def settle(server: Server, timeout: float = SETTLE_TIMEOUT_SECONDS) -> None:
    """Waits until the server's processes (PDF pools included) use under SETTLE_SHARE of a core (at most
    `timeout` seconds), so that a pool warming after the ready line, or still at work on documents, does not
    eat into a counted window."""
    deadline = time.monotonic() + timeout
    used = tree_cpu_seconds([server.pid, *descendants(server.pid)])
    while time.monotonic() < deadline:
        time.sleep(SETTLE_STEP_SECONDS)
        before, used = used, tree_cpu_seconds([server.pid, *descendants(server.pid)])
        if used - before < SETTLE_SHARE * SETTLE_STEP_SECONDS:
            return


def print_notes(label: str, notes: list[str]) -> None:
    for note in notes:
        print(f"note [{label}]: {note}")


@contextlib.contextmanager
def temp_dir(prefix: str = "signsvc-bench-") -> Iterator[Path]:
    """A temporary directory: a server's working directory, so that nothing lands in the repository."""
    with tempfile.TemporaryDirectory(prefix=prefix) as name:
        yield Path(name)


@contextlib.contextmanager
def running(label: str, argv: list[str], env: dict[str, str], workdir: Path | None = None) -> Iterator[Server]:
    """A server spawned in `workdir` (else in a new temporary directory) and ready; stopped with SIGTERM
    afterwards, its notes printed as `note [label]: ...`."""
    with contextlib.ExitStack() as stack:
        cwd = workdir or stack.enter_context(temp_dir())
        server = spawn(argv, env, cwd)
        try:
            yield server
        finally:
            print_notes(label, stop(server))


@contextlib.contextmanager
def signsvc_on(kind: str, schema_prefix: str, label: str, workers: int = 1, **env: str) -> Iterator[Server]:
    """signsvc on a fresh database of `kind` ("sqlite" or "postgres"), in a new temporary directory, with the
    limits lifted (`env` on top), with `--workers` when more than 1; stopped afterwards, as `running` does."""
    from .databases import fresh_database

    with (
        temp_dir() as workdir,
        fresh_database(kind, workdir, schema_prefix) as url,
        running(label, signsvc_argv(workers), signsvc_env(url, **env), workdir) as server,
    ):
        yield server
