"""Startup time of signsvc: from spawning `python run.py --port 0` to its ready line on stdout.

Every signsvc start measured is a first start (schema migration, default account, keys):
  - sqlite file    a fresh temporary directory each run
  - sqlite memory  `sqlite:///:memory:`
  - postgres       a fresh schema each run (`?search_path=`), dropped afterwards
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

    python bench/startup.py [--runs 5] [--skip-postgres]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Callable

import _harness as h

# A measurement: (wall seconds to the line, CPU seconds used by then, notes).
Measure = Callable[[Path], tuple[float, float, list[str]]]


def time_imports(workdir: Path) -> tuple[float, float, list[str]]:
    process = h.spawn([sys.executable, "-c", h.IMPORTS_ONLY], h.server_env(None), workdir)
    return process.ready_seconds, process.ready_cpu_seconds, h.stop(process)


def time_bare(workdir: Path) -> tuple[float, float, list[str]]:
    server = h.spawn(h.bare_argv(), h.server_env(None), workdir)
    return server.ready_seconds, server.ready_cpu_seconds, h.stop(server)


def time_signsvc(database_url: str, workdir: Path) -> tuple[float, float, list[str]]:
    server = h.spawn(h.signsvc_argv(), h.server_env(database_url, fixed_key=False), workdir)
    notes = h.stop(server)
    if not server.ready_line.startswith("signsvc ready: "):
        notes.append(f"unexpected first line: {server.ready_line!r}")
    return server.ready_seconds, server.ready_cpu_seconds, notes


def time_signsvc_postgres(workdir: Path) -> tuple[float, float, list[str]]:
    with h.postgres_schema("bench_startup") as url:
        return time_signsvc(url, workdir)


def variants(skip_postgres: bool) -> dict[str, Measure]:
    chosen: dict[str, Measure] = {
        "imports only": time_imports,
        "bare aiohttp app": time_bare,
        "signsvc sqlite file": lambda d: time_signsvc(f"sqlite:///{d / 'signsvc.sqlite3'}", d),
        "signsvc sqlite :memory:": lambda d: time_signsvc("sqlite:///:memory:", d),
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
        for name in names[run % len(names):] + names[:run % len(names)]:  # a different one goes first
            with h.temp_dir("signsvc-bench-") as workdir:  # also the cwd: nothing lands in the repo
                wall, cpu, found = chosen[name](workdir)
            notes[name].update(found)
            if run:
                times[name].append((wall, cpu))
        print(f"  {'warm-up round' if not run else f'run {run}/{runs}'} done", file=sys.stderr, flush=True)
    return times, notes


def report(times: dict[str, list[tuple[float, float]]], notes: dict[str, set[str]]) -> None:
    ceiling = h.median([wall for wall, _ in times["bare aiohttp app"]])
    ceiling_cpu = h.median([cpu for _, cpu in times["bare aiohttp app"]])
    rows = []
    for name, values in times.items():
        wall = h.median([w for w, _ in values])
        cpu = h.median([c for _, c in values])
        rows.append([name, f"{wall * 1000:.0f}", f"{min(w for w, _ in values) * 1000:.0f}", f"{wall / ceiling:.2f}x",
                     f"{cpu * 1000:.0f}", f"{cpu / ceiling_cpu:.2f}x"])
    h.print_table(["spawn -> first line", "median ms", "min ms", "vs bare", "CPU ms", "CPU vs bare"], rows)
    print("\nceiling: 'bare aiohttp app' (the same imports, then listens on port 0 and prints a line).\n"
          "CPU ms: median user+system time the process had used when its line was read (10 ms ticks); it\n"
          "moves much less than wall time when other work shares the cores.")
    for name, found in notes.items():
        for note in sorted(found):
            print(f"note [{name}]: {note}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="starts per variant (default 5)")
    parser.add_argument("--skip-postgres", action="store_true", help="leave out the Postgres variant")
    args = parser.parse_args()
    if not args.skip_postgres and (why := h.check_postgres()):
        parser.error(f"Postgres at {h.POSTGRES_URL} is not reachable ({why}); use --skip-postgres")
    print(f"signsvc startup, {args.runs} runs per variant, {os.cpu_count()} CPU cores, "
          f"Python {sys.version.split()[0]}, load average {os.getloadavg()[0]:.2f}, "
          "servers with SIGNSVC_LOG_LEVEL=WARNING\n")
    report(*measure(variants(args.skip_postgres), args.runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
