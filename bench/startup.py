"""Startup time of signsvc: from spawning `python run.py --port 0` to its ready line on stdout.

Every signsvc start measured is a first start (schema migration, default account, keys):
  - sqlite file    a fresh temporary directory each run
  - sqlite memory  `sqlite:///:memory:`
  - postgres       a fresh schema each run (`?search_path=`), dropped afterwards
  - in-process     `signsvc.testing.running()` (the kit's in-process service for test suites, on SQLite in
                   memory) in a `python -c` program that prints a line once it is ready; the line also gives
                   the time `running()` itself took (imports of signsvc.testing before it excluded)
Ceilings measured in the same run and spawned the same way (subprocess, same interpreter, same env):
  - imports only   `python -c "import aiohttp, asyncpg, aiosqlite"` followed by a printed line
  - bare aiohttp   those imports plus an aiohttp app on port 0 that prints a line once listening
The clock starts just before the spawn and stops when the first stdout line has been read; each
server is then stopped with SIGTERM and waited for (not timed). Within a run the variants take
turns, in an order rotated from run to run, so drift on the machine hits them alike; one extra
warm-up round comes first and is not counted. Printed per variant: median and min wall time, and
the median CPU time (user + system, from /proc) the process had used by its line, each also over
the bare-aiohttp median. CPU time moves much less than wall time when other work shares the cores.
Servers run with SIGNSVC_LOG_LEVEL=WARNING; anything they write to stderr (other than the stop
notice), a non-zero exit or a slow stop is reported.

--first-upload measures instead what the first document upload after a start costs: per run, signsvc
on a fresh SQLite file (limits lifted), and as soon as its ready line is read, `POST /api/templates`
with a 10-page form (`bench/templates.py`'s, a different reference each time, 20 fields, previews
rendered by the PDF pool, whose workers start after the ready line); then FIRST_UPLOAD_WARM more uploads
one at a time, on the now warm server; then the same again after a restart on that file (no signing
key to make this time). Printed per start and run, and as medians: spawn to ready line, the first
upload (from its send to its answer), the median warm upload, and their ratio.

--first-health measures the first `GET /health` after a start: per run, signsvc on a fresh SQLite file, and as
soon as its ready line is read, HEALTH_CALLS calls one after another (no key; the PDF pool warming up on the
same cores meanwhile). Printed per run and as medians: spawn to ready line, the first call, the slowest of the
others and their median. /health reads the scripts the fonts draw as worked out before the ready line.

    python bench/startup.py [--runs 5] [--skip-postgres] [--first-upload] [--first-health]
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable
from pathlib import Path

from harness import arguments, databases, report, servers
from harness.client import api_session, create_template
from harness.samples import b64
from harness.usage import descendants, tree_cpu_seconds

# A measurement: (wall seconds to the line, CPU seconds used by then, notes).
Measure = Callable[[Path], tuple[float, float, list[str]]]


def time_spawn(argv: list[str], env: dict[str, str], workdir: Path) -> tuple[float, float, list[str]]:
    server = servers.spawn(argv, env, workdir)
    return server.ready_seconds, server.ready_cpu_seconds, servers.stop(server)


def time_signsvc(database_url: str, workdir: Path) -> tuple[float, float, list[str]]:
    server = servers.spawn(servers.signsvc_argv(), servers.server_env(database_url, fixed_key=False), workdir)
    notes = servers.stop(server)
    if not server.ready_line.startswith("signsvc ready: "):
        notes.append(f"unexpected first line: {server.ready_line!r}")
    return server.ready_seconds, server.ready_cpu_seconds, notes


# The kit's in-process service: the program prints how long running() took, then waits to be stopped
# (SIGTERM leaves the `with` block, as a test suite's end does).
IN_PROCESS = """
import signal, sys, time
from signsvc.testing import running
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # stops the service as a test suite's end does
started = time.perf_counter()
with running():
    print(f"ready in {time.perf_counter() - started:.4f} s", flush=True)
    time.sleep(3600)
"""
fixture_seconds: list[float] = []


def time_in_process(workdir: Path) -> tuple[float, float, list[str]]:
    server = servers.spawn([sys.executable, "-c", IN_PROCESS], servers.server_env(None), workdir)
    notes = servers.stop(server)
    if not server.ready_line.startswith("ready in "):
        notes.append(f"unexpected first line: {server.ready_line!r}")
    else:
        fixture_seconds.append(float(server.ready_line.split()[2]))
    return server.ready_seconds, server.ready_cpu_seconds, notes


def time_signsvc_postgres(workdir: Path) -> tuple[float, float, list[str]]:
    with databases.postgres_schema("bench_startup") as url:
        return time_signsvc(url, workdir)


def variants(skip_postgres: bool) -> dict[str, Measure]:
    chosen: dict[str, Measure] = {
        "imports only": lambda d: time_spawn(servers.imports_argv(), servers.server_env(None), d),
        "bare aiohttp app": lambda d: time_spawn(servers.bare_argv(), servers.server_env(None), d),
        "signsvc sqlite file": lambda d: time_signsvc(databases.sqlite_url(d), d),
        "signsvc sqlite :memory:": lambda d: time_signsvc("sqlite:///:memory:", d),
        "in-process (signsvc.testing)": time_in_process,
    }
    if not skip_postgres:
        chosen["signsvc postgres"] = time_signsvc_postgres
    return chosen


def measure(chosen: dict[str, Measure], runs: int) -> tuple[dict[str, list[tuple[float, float]]], dict[str, set[str]]]:
    """Round 0 warms the page cache and bytecode caches and is not counted."""
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in chosen}
    notes: dict[str, set[str]] = {name: set() for name in chosen}
    names = list(chosen)
    for run in range(runs + 1):
        for name in names[run % len(names) :] + names[: run % len(names)]:  # a different one goes first
            with servers.temp_dir() as workdir:  # also the cwd: nothing lands in the repo
                wall, cpu, found = chosen[name](workdir)
            notes[name].update(found)
            if run:
                times[name].append((wall, cpu))
        report.progress(f"{'warm-up round' if not run else f'run {run}/{runs}'} done")
    return times, notes


def print_report(times: dict[str, list[tuple[float, float]]], notes: dict[str, set[str]]) -> None:
    ceiling = report.median([wall for wall, _ in times["bare aiohttp app"]])
    ceiling_cpu = report.median([cpu for _, cpu in times["bare aiohttp app"]])
    rows = []
    for name, values in times.items():
        wall = report.median([w for w, _ in values])
        cpu = report.median([c for _, c in values])
        rows.append(
            [
                name,
                report.ms(wall),
                report.ms(min(w for w, _ in values)),
                report.ratio(wall, ceiling),
                report.ms(cpu),
                report.ratio(cpu, ceiling_cpu),
            ]
        )
    report.print_table(["spawn -> first line", "median ms", "min ms", "vs bare", "CPU ms", "CPU vs bare"], rows)
    print(
        "\nceiling: 'bare aiohttp app' (the same imports, then listens on port 0 and prints a line).\n"
        "CPU ms: median user+system time the process had used when its line was read (10 ms ticks); it\n"
        "moves much less than wall time when other work shares the cores."
    )
    if fixture_seconds:
        counted = fixture_seconds[-len(times["in-process (signsvc.testing)"]) :]  # the warm-up round left out
        print(
            f"\nin-process: running() itself took median {report.ms(report.median(counted))} ms, "
            f"min {report.ms(min(counted))} ms (its process had imported signsvc.testing before)"
        )
    for name, found in notes.items():
        servers.print_notes(name, sorted(found))


FIRST_UPLOAD_WARM = 3


async def uploads(base_url: str, count: int, pid: int) -> tuple[list[float], float]:
    """Seconds each of `count` template creations took, one after another, the first sent at once; and the
    CPU seconds the server's pool (forkserver and workers) had used when the first was answered."""
    from templates import form_pdf

    bodies = [
        {"name": f"first upload {n}", "documents": [{"name": "form", "file": b64(form_pdf(f"upload {n}"))}]}
        for n in range(count)
    ]
    seconds, pool_cpu = [], 0.0
    async with api_session() as session:
        for body in bodies:
            sent = time.perf_counter()
            await create_template(session, base_url, body)
            seconds.append(time.perf_counter() - sent)
            pool_cpu = pool_cpu or tree_cpu_seconds(descendants(pid))
    return seconds, pool_cpu


STARTS = ("first start", "restart")  # a fresh database (the signing key made at start), then the same one again


def first_upload(runs: int) -> None:
    """Per run, two starts on one SQLite file, each with its first upload and the warm ones after it."""
    samples: dict[str, list[tuple[float, ...]]] = {start: [] for start in STARTS}
    for run in range(1, runs + 1):
        with servers.temp_dir() as workdir:
            for start in STARTS:
                with servers.running(
                    start, servers.signsvc_argv(), servers.signsvc_env(databases.sqlite_url(workdir)), workdir
                ) as server:
                    (first, *warm), pool_cpu = asyncio.run(uploads(server.base_url, 1 + FIRST_UPLOAD_WARM, server.pid))
                samples[start].append((server.ready_seconds, first, pool_cpu, report.median(warm)))
        report.progress(f"run {run}/{runs} done")
    rows = []
    for start, values in samples.items():
        for label, (ready, first, pool_cpu, warm) in [
            *((f"{start}, run {n}", v) for n, v in enumerate(values, 1)),
            (f"{start}, median", _medians(values)),
        ]:
            rows.append(
                [
                    label,
                    report.ms(ready),
                    report.ms(first),
                    report.ms(pool_cpu),
                    report.ms(warm),
                    report.ratio(first, warm),
                ]
            )
    report.print_table(
        [
            "sqlite file",
            "spawn -> ready ms",
            "first upload ms",
            "pool CPU ms by then",
            "warm upload ms",
            "first / warm",
        ],
        rows,
    )
    print(
        f"\nfirst upload: POST /api/templates (10-page form, 20 fields) sent as soon as the ready line was read;\n"
        f"pool CPU: what the forkserver and the workers had used by the first upload's answer (starting, warming,\n"
        f"the upload; on a first start also making the signing key); warm upload: the median of the\n"
        f"{FIRST_UPLOAD_WARM} same uploads after it, one at a time. first start: a fresh database; restart:\n"
        "the same database started again (its signing key already made)."
    )


HEALTH_CALLS = 10


async def health_calls(base_url: str, count: int) -> list[float]:
    """Seconds each of `count` GET /health took, one after another, the first sent at once."""
    import aiohttp

    seconds = []
    async with aiohttp.ClientSession() as session:
        for _ in range(count):
            sent = time.perf_counter()
            async with session.get(f"{base_url}/health") as reply:
                assert reply.status == 200, await reply.text()
                await reply.read()
            seconds.append(time.perf_counter() - sent)
    return seconds


def first_health(runs: int) -> None:
    """Per run, a first start on a fresh SQLite file and its first /health calls."""
    samples: list[tuple[float, ...]] = []
    for run in range(1, runs + 1):
        with (
            servers.temp_dir() as workdir,
            servers.running(
                "first start", servers.signsvc_argv(), servers.signsvc_env(databases.sqlite_url(workdir)), workdir
            ) as server,
        ):
            first, *later = asyncio.run(health_calls(server.base_url, HEALTH_CALLS))
            samples.append((server.ready_seconds, first, max(later), report.median(later)))
        report.progress(f"run {run}/{runs} done")
    rows = [
        [label, *(report.ms(value) for value in values)]
        for label, values in [*((f"run {n}", v) for n, v in enumerate(samples, 1)), ("median", _medians(samples))]
    ]
    report.print_table(
        ["sqlite file", "spawn -> ready ms", "first /health ms", "slowest later ms", "median later ms"], rows
    )
    print(
        f"\nfirst /health: sent as soon as the ready line was read; later: the {HEALTH_CALLS - 1} calls after it,\n"
        "one at a time (the PDF pool warms up meanwhile, as SIGNSVC_PDF_WARM_UP=true by default)."
    )


def _medians(values: list[tuple[float, ...]]) -> tuple[float, ...]:
    return tuple(report.median(list(column)) for column in zip(*values, strict=True))


def main() -> int:
    parser = arguments(__doc__)
    parser.add_argument("--runs", type=int, default=5, help="starts per variant (default 5)")
    parser.add_argument("--skip-postgres", action="store_true", help="leave out the Postgres variant")
    parser.add_argument(
        "--first-upload",
        action="store_true",
        help="measure the first template upload right after the ready line instead",
    )
    parser.add_argument(
        "--first-health",
        action="store_true",
        help="measure the first GET /health calls right after the ready line instead",
    )
    args = parser.parse_args()
    if args.first_health:
        print(f"signsvc first /health after a start, {args.runs} starts; {report.machine_line()}\n")
        first_health(args.runs)
        return 0
    if args.first_upload:
        print(f"signsvc first upload after a start, {args.runs} starts; {report.machine_line()}\n")
        first_upload(args.runs)
        return 0
    if not args.skip_postgres:
        databases.require_postgres(parser)
    print(
        f"signsvc startup, {args.runs} runs per variant; {report.machine_line()}; "
        "servers with SIGNSVC_LOG_LEVEL=WARNING\n"
    )
    print_report(*measure(variants(args.skip_postgres), args.runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
