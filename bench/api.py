"""Throughput and latency of `GET /api/user` with 64 concurrent keep-alive connections.

Targets, one after another in the same run, each a separate server process on 127.0.0.1:
  - bare aiohttp      a handler returning the same JSON, nothing else (the ceiling)
  - signsvc sqlite    `python run.py --port 0` on a fresh SQLite file in a temporary directory
  - signsvc postgres  the same on a fresh Postgres schema (`?search_path=`), dropped afterwards
signsvc runs with SIGNSVC_RATE_LIMIT_PER_KEY=0 and SIGNSVC_RATE_LIMIT_PER_IP=0 (limits lifted), a
fixed live key, and SIGNSVC_LOG_LEVEL=WARNING (the per-request access log silenced).
`--with-limits` adds signsvc rows with both limits on but set too high to be reached.
`--workers N` (N > 1) adds, next to each row, the same target with N serving processes on one port: the bare
app as N processes listening with SO_REUSEPORT under a launcher (the fair ceiling for N workers), and signsvc
as `run.py --workers N`; those rows are compared with the bare app on N processes, and with their own
target on one process (vs 1 proc). Their server CPU is that of the launcher or supervisor and the processes
just below it (the workers; not their PDF pools).

The load generator (--client) is, for every target alike:
  - wrk (the default): `wrk -t1 -c64 --latency` with the key as a header, a subprocess; a --warmup run
    first (not counted), then a --seconds run (counted). Whole seconds only. wrk reports the requests,
    requests/s, the latency distribution and any socket error or status of 400 and above (harness/wrk.py).
  - python (a second opinion): this process, an aiohttp client, TCPConnector(limit=64), 64 workers each
    sending requests back to back for --warmup seconds (not counted), then --seconds seconds (counted:
    requests completed in that window, latencies from send to body read); MAX_REQUESTS per target is a
    backstop. It needs about as much CPU per request as the bare server, so it bounds the figures.
Before the load, the server's processes are left to settle (its PDF pools warm after the ready line: until
they use under 5% of a core, 20 s at most); then one request checks that the body is the expected user.
Any failed request (an error, a timeout, a status other than 2xx/3xx for wrk, other than 200 for python)
makes the target fail: it is reported as failed, never as a figure. Also printed: the CPU used in the
counted window by the client (wrk's own CPU, or this process's), by the server process and by the whole
machine, and the CPU the hypervisor stole (/proc/stat). Client, server and Postgres share the machine's cores. With
--rounds N every target is measured N times, in turns; the median round is shown.

    python bench/api.py [--seconds 5] [--warmup 1] [--rounds 1] [--skip-postgres] [--with-limits]
                        [--client wrk|python] [--workers N]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import aiohttp
from harness import arguments, client, databases, report, servers, usage, wrk
from harness.usage import CpuTimes

CONNECTIONS = 64
REQUEST_TIMEOUT_SECONDS = 10
MAX_REQUESTS = 2_000_000  # per target and round (python client), a backstop on top of the time bound
UNREACHED = {"SIGNSVC_RATE_LIMIT_PER_KEY": str(10**9), "SIGNSVC_RATE_LIMIT_PER_IP": str(10**9)}
PERCENTILES = (50, 90, 99)


@dataclass
class Result:
    requests: int  # completed in the counted window
    seconds: float  # the counted window; CPU shares are over it
    rps: float
    latency_ms: dict[int, float]  # percentile -> milliseconds
    errors: dict[str, int]  # what failed, counted; any at all makes the target fail
    cpu: CpuTimes  # used in the counted window: own = the client (wrk, or this process)


async def check_user(base_url: str) -> None:
    async with client.api_session(connections=1, timeout=REQUEST_TIMEOUT_SECONDS) as session:
        await client.check_user(session, base_url)


def server_cpu(server: servers.Server, processes: int) -> Callable[[], CpuTimes]:
    """CPU times now, the server's being its process and, when it runs several, those just below it (as `pool`)."""
    return lambda: CpuTimes.now(server.pid, usage.children(server.pid) if processes > 1 else ())


def load_wrk(base_url: str, cpu_now: Callable[[], CpuTimes], warmup: float, seconds: float) -> Result:
    """A warm-up run of wrk (its failures count, its figures do not), then the counted run; the
    server's CPU over the counted run, and wrk's own as the client's."""
    url = f"{base_url}/api/user"
    options = {
        "connections": CONNECTIONS,
        "headers": {"X-Auth-Token": servers.BENCH_KEY},
        "timeout_seconds": REQUEST_TIMEOUT_SECONDS,
    }
    asyncio.run(check_user(base_url))
    errors = {}
    if warmup:
        errors = {f"warm-up {k}": n for k, n in wrk.run(url, seconds=int(warmup), **options).output.errors.items()}
    before = cpu_now()
    counted = wrk.run(url, seconds=int(seconds), **options)
    cpu = dataclasses.replace(cpu_now() - before, own=counted.cpu_seconds)
    out = counted.output
    return Result(
        out.requests,
        counted.wall_seconds,
        out.requests_per_second,
        {p: out.latency_ms[p] for p in PERCENTILES},
        {**errors, **out.errors},
        cpu,
    )


async def load_python(base_url: str, cpu_now: Callable[[], CpuTimes], warmup: float, seconds: float) -> Result:
    """Closed-loop load from CONNECTIONS workers in this process; counts what completes in the measured window."""
    url = f"{base_url}/api/user"
    async with client.api_session(connections=CONNECTIONS, timeout=REQUEST_TIMEOUT_SECONDS) as session:
        await client.check_user(session, base_url)
        begin = time.perf_counter() + warmup
        end = begin + seconds
        latencies: list[float] = []
        errors, sent_count = [0], [0]

        async def worker() -> None:
            while (sent := time.perf_counter()) < end and sent_count[0] < MAX_REQUESTS:
                sent_count[0] += 1
                try:
                    async with session.get(url) as response:
                        await response.read()
                        ok = response.status == 200
                except (TimeoutError, aiohttp.ClientError):
                    ok = False
                done = time.perf_counter()
                if begin <= done < end:
                    latencies.append(done - sent)
                    errors[0] += not ok

        async def cpu_window() -> CpuTimes:
            await asyncio.sleep(begin - time.perf_counter())
            start = cpu_now()
            await asyncio.sleep(end - time.perf_counter())
            return cpu_now() - start

        cpu, *_ = await asyncio.gather(cpu_window(), *(worker() for _ in range(CONNECTIONS)))
    latencies.sort()
    ok = len(latencies) - errors[0]
    return Result(
        ok,
        seconds,
        ok / seconds,
        {p: report.percentile(latencies, p / 100) * 1000 for p in PERCENTILES},
        {"failed requests": errors[0]} if errors[0] else {},
        cpu,
    )


def load(args: argparse.Namespace, server: servers.Server, processes: int) -> Result:
    servers.settle(server)  # signsvc's pools start and warm after the ready line, N of them with --workers N
    cpu_now = server_cpu(server, processes)
    if args.client == "wrk":
        return load_wrk(server.base_url, cpu_now, args.warmup, args.seconds)
    return asyncio.run(load_python(server.base_url, cpu_now, args.warmup, args.seconds))


def bench_bare(args: argparse.Namespace, processes: int) -> Result:
    with servers.running(
        "bare aiohttp" + _times(processes), servers.bare_argv(processes), servers.server_env(None)
    ) as server:
        return load(args, server, processes)


def bench_signsvc(kind: str, limits: dict[str, str], args: argparse.Namespace, workers: int) -> Result:
    """On a fresh database of `kind`: a SQLite file in the server's temporary working directory, or a
    Postgres schema."""
    with servers.signsvc_on(kind, "bench_api", f"signsvc {kind}{_times(workers)}", workers, **limits) as server:
        return load(args, server, workers)


def _times(processes: int) -> str:
    """The suffix of a target's name run on several processes."""
    return f" x{processes}" if processes > 1 else ""


def targets(args: argparse.Namespace) -> dict[str, Callable[[], Result]]:
    """Each target on one process, then (with --workers N) on N."""
    counts = [1, args.workers] if args.workers > 1 else [1]
    chosen: dict[str, Callable[[], Result]] = {
        f"bare aiohttp{_times(n)}": lambda n=n: bench_bare(args, n) for n in counts
    }
    for suffix, limits in [("", {})] + ([(" +limits", UNREACHED)] if args.with_limits else []):
        for kind in databases.kinds(args.skip_postgres):
            for n in counts:
                chosen[f"signsvc {kind}{suffix}{_times(n)}"] = lambda kind=kind, limits=limits, n=n: bench_signsvc(
                    kind, limits, args, n
                )
    return chosen


def on_one_process(name: str, args: argparse.Namespace) -> str | None:
    """The name of the same target on one process, for a target run on several."""
    suffix = _times(args.workers)
    return name.removesuffix(suffix) if args.workers > 1 and name.endswith(suffix) else None


def median_round(rounds: list[Result]) -> Result:
    return sorted(rounds, key=lambda r: r.rps)[len(rounds) // 2]


def failures(rounds: list[Result]) -> list[str]:
    """What failed, round by round: `round 2: timeout 3`."""
    return [f"round {n}: {what} {count}" for n, r in enumerate(rounds, 1) for what, count in r.errors.items()]


def ratio_to(results: dict[str, list[Result]], name: str | None, rps: float) -> str:
    """`rps` as a ratio of the median of target `name`; "-" when there is none or it failed."""
    if name is None or name not in results or failures(results[name]):
        return "-"
    return report.ratio(rps, median_round(results[name]).rps)


def print_report(results: dict[str, list[Result]], args: argparse.Namespace) -> None:
    rows = []
    for name, rounds in results.items():
        if failures(rounds):
            rows.append(
                [name, "FAILED", "-", "-", "-", "-", str(sum(n for r in rounds for n in r.errors.values())), *["-"] * 8]
            )
            continue
        r = median_round(rounds)
        server = r.cpu.server + r.cpu.pool
        ceiling = "bare aiohttp" + (_times(args.workers) if on_one_process(name, args) else "")
        rows.append(
            [
                name,
                f"{r.rps:.0f}",
                f"{min(x.rps for x in rounds):.0f}-{max(x.rps for x in rounds):.0f}",
                *(f"{r.latency_ms[p]:.1f}" for p in PERCENTILES),
                "0",
                ratio_to(results, ceiling, r.rps),
                ratio_to(results, on_one_process(name, args), r.rps),
                report.percent(r.cpu.own, r.seconds),
                report.percent(server, r.seconds),
                report.percent(r.cpu.machine, r.seconds),
                report.percent(r.cpu.steal, r.seconds),
                f"{1000 * server / max(r.requests, 1):.3f}",
                f"{1000 * r.cpu.own / max(r.requests, 1):.3f}",
            ]
        )
    report.print_table(
        [
            "GET /api/user",
            "req/s",
            "range",
            *(f"p{p} ms" for p in PERCENTILES),
            "errors",
            "vs bare",
            "vs 1 proc",
            "client CPU",
            "server CPU",
            "machine CPU",
            "steal",
            "server CPU ms/req",
            "client CPU ms/req",
        ],
        rows,
    )
    for name, rounds in results.items():
        for failure in failures(rounds):
            print(f"failed [{name}]: {failure}")
    print(
        "\nEach row is the round with the median req/s (range: all rounds). A target with any failed request\n"
        "(errors: failures over all rounds, warm-up included) shows no figures.\n"
        "CPU columns: percent of one core over the counted window; client = wrk's own CPU (or this process's\n"
        "with --client python); machine = all cores together, Postgres, kernel and anything else running\n"
        "included; steal = CPU the hypervisor withheld from this VM.\n"
        "server CPU ms/req: the server process's CPU time per counted request (Postgres's own work not included).\n"
        "xN rows (--workers N): N serving processes on one port; vs bare is against bare aiohttp xN, vs 1 proc\n"
        "against the same target on one process; server CPU is the launcher's or supervisor's and its workers'."
    )


def print_setup(args: argparse.Namespace) -> None:
    print(
        f"GET /api/user, {CONNECTIONS} keep-alive connections, loopback; per target and round "
        f"{args.warmup:g} s warm-up + {args.seconds:g} s counted; {args.rounds} round(s), targets in turns."
    )
    if args.client == "wrk":
        generator = f"wrk -t1 -c{CONNECTIONS} --latency, a subprocess"
    else:
        generator = "this process (aiohttp client)"
    print(
        f"Load generator: {generator}, separate from each server process; all share "
        f"this machine's {os.cpu_count()} CPU cores."
    )
    print(
        "signsvc: rate limits lifted (SIGNSVC_RATE_LIMIT_PER_KEY=0, SIGNSVC_RATE_LIMIT_PER_IP=0) unless "
        "'+limits'; access log silenced (SIGNSVC_LOG_LEVEL=WARNING)."
    )
    print(f"Before the first target: {report.machine_line()}.\n")


def progress_line(result: Result) -> str:
    if result.errors:
        return "failed: " + ", ".join(f"{what} {count}" for what, count in result.errors.items())
    return f"{result.rps:.0f} req/s"


def main() -> int:
    parser = arguments(__doc__)
    parser.add_argument("--seconds", type=float, default=5.0, help="counted window per target (default 5)")
    parser.add_argument("--warmup", type=float, default=1.0, help="uncounted warm-up per target (default 1)")
    parser.add_argument("--rounds", type=int, default=1, help="rounds over all targets; the median is shown")
    parser.add_argument("--skip-postgres", action="store_true", help="leave out the Postgres targets")
    parser.add_argument(
        "--with-limits",
        action="store_true",
        help="also measure signsvc with rate limits on (set too high to be reached)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="also measure every target on N processes sharing the port (signsvc: run.py --workers N)",
    )
    parser.add_argument(
        "--client",
        choices=["wrk", "python"],
        default="wrk",
        help="the load generator: wrk (default), or this process's aiohttp client (a second opinion)",
    )
    args = parser.parse_args()
    if args.client == "wrk":
        if why := wrk.missing():
            parser.error(f"{why}; or use --client python")
        if not (args.seconds.is_integer() and args.warmup.is_integer() and args.seconds >= 1):
            parser.error("with wrk, --seconds and --warmup are whole seconds (--seconds at least 1)")
    if args.workers < 1:
        parser.error("--workers is 1 or more")
    if not args.skip_postgres:
        databases.require_postgres(parser)
    print_setup(args)
    chosen = targets(args)
    results: dict[str, list[Result]] = {name: [] for name in chosen}
    for round_number in range(1, args.rounds + 1):
        for name, run in chosen.items():
            results[name].append(run())
            report.progress(f"round {round_number}, {name}: {progress_line(results[name][-1])}")
    print_report(results, args)
    return 1 if any(failures(rounds) for rounds in results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
