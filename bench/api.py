"""Throughput and latency of `GET /api/user` with 64 concurrent keep-alive connections.

Targets, one after another in the same run, each a separate server process on 127.0.0.1:
  - bare aiohttp      a handler returning the same JSON, nothing else (the ceiling)
  - signsvc sqlite    `python run.py --port 0` on a fresh SQLite file in a temporary directory
  - signsvc postgres  the same on a fresh Postgres schema (`?search_path=`), dropped afterwards
signsvc runs with SIGNSVC_RATE_LIMIT_PER_KEY=0 and SIGNSVC_RATE_LIMIT_PER_IP=0 (limits lifted), a
fixed live key, and SIGNSVC_LOG_LEVEL=WARNING (the per-request access log silenced).
`--with-limits` adds signsvc rows with both limits on but set too high to be reached.

The load generator is this process: an aiohttp client, TCPConnector(limit=64), 64 workers each
sending requests back to back (closed loop) for --warmup seconds (not counted), then --seconds
seconds (counted: requests completed in that window, and their latencies from send to body read);
MAX_REQUESTS per target is a backstop. Every response must be 200; the first body is checked
against the expected user. Also printed: the CPU used in the counted window by the client, by the
server process and by the whole machine, and the CPU the hypervisor stole (/proc/stat). Client,
server and Postgres share the machine's cores, so on a small machine the numbers are bounded by
CPU contention, not only by the server. With --rounds N every target is measured N times, in
turns; the median round is shown.

    python bench/api.py [--seconds 5] [--warmup 1] [--rounds 1] [--skip-postgres] [--with-limits]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import aiohttp
from harness import arguments, client, databases, report, servers
from harness.usage import CpuTimes

CONNECTIONS = 64
REQUEST_TIMEOUT_SECONDS = 10
MAX_REQUESTS = 2_000_000  # per target and round, a backstop on top of the time bound
UNREACHED = {"SIGNSVC_RATE_LIMIT_PER_KEY": str(10**9), "SIGNSVC_RATE_LIMIT_PER_IP": str(10**9)}


@dataclass
class Result:
    requests: int
    errors: int
    seconds: float
    latencies: list[float]
    cpu: CpuTimes  # used in the counted window: own = the client (this process)

    @property
    def rps(self) -> float:
        return self.requests / self.seconds

    def latency_ms(self, fraction: float) -> float:
        return report.percentile(self.latencies, fraction) * 1000


async def load(base_url: str, server_pid: int, warmup: float, seconds: float) -> Result:
    """Closed-loop load from CONNECTIONS workers; counts what completes in the measured window."""
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
            start = CpuTimes.now(server_pid)
            await asyncio.sleep(end - time.perf_counter())
            return CpuTimes.now(server_pid) - start

        cpu, *_ = await asyncio.gather(cpu_window(), *(worker() for _ in range(CONNECTIONS)))
    latencies.sort()
    return Result(len(latencies) - errors[0], errors[0], seconds, latencies, cpu)


def bench_bare(args: argparse.Namespace) -> Result:
    with servers.running("bare aiohttp", servers.bare_argv(), servers.server_env(None)) as server:
        return asyncio.run(load(server.base_url, server.pid, args.warmup, args.seconds))


def bench_signsvc(kind: str, limits: dict[str, str], args: argparse.Namespace) -> Result:
    """On a fresh database of `kind`: a SQLite file in the server's temporary working directory, or a
    Postgres schema."""
    with servers.signsvc_on(kind, "bench_api", f"signsvc {kind}", **limits) as server:
        return asyncio.run(load(server.base_url, server.pid, args.warmup, args.seconds))


def targets(args: argparse.Namespace) -> dict[str, Callable[[], Result]]:
    chosen: dict[str, Callable[[], Result]] = {"bare aiohttp": lambda: bench_bare(args)}
    for suffix, limits in [("", {})] + ([(" +limits", UNREACHED)] if args.with_limits else []):
        for kind in databases.kinds(args.skip_postgres):
            chosen[f"signsvc {kind}{suffix}"] = lambda kind=kind, limits=limits: bench_signsvc(kind, limits, args)
    return chosen


def median_round(rounds: list[Result]) -> Result:
    return sorted(rounds, key=lambda r: r.rps)[len(rounds) // 2]


def print_report(results: dict[str, list[Result]]) -> None:
    ceiling = median_round(results["bare aiohttp"]).rps
    rows = []
    for name, rounds in results.items():
        r = median_round(rounds)
        rows.append([name, f"{r.rps:.0f}", f"{min(x.rps for x in rounds):.0f}-{max(x.rps for x in rounds):.0f}",
                     f"{r.latency_ms(0.50):.1f}", f"{r.latency_ms(0.99):.1f}", str(sum(x.errors for x in rounds)),
                     report.ratio(r.rps, ceiling), report.percent(r.cpu.own, r.seconds),
                     report.percent(r.cpu.server, r.seconds), report.percent(r.cpu.machine, r.seconds),
                     report.percent(r.cpu.steal, r.seconds), f"{1000 * r.cpu.server / max(r.requests, 1):.2f}"])
    report.print_table(["GET /api/user", "req/s", "range", "p50 ms", "p99 ms", "errors", "vs bare", "client CPU",
                        "server CPU", "machine CPU", "steal", "server CPU ms/req"], rows)
    print("\nEach row is the round with the median req/s (range: all rounds; errors: all rounds).\n"
          "CPU columns: percent of one core over the counted window; machine = all cores together, Postgres,\n"
          "kernel and anything else running included; steal = CPU the hypervisor withheld from this VM.\n"
          "server CPU ms/req: the server process's CPU time per counted request (Postgres's own work not included).")


def print_setup(args: argparse.Namespace) -> None:
    print(f"GET /api/user, {CONNECTIONS} keep-alive connections, loopback; per target and round "
          f"{args.warmup:g} s warm-up + {args.seconds:g} s counted; {args.rounds} round(s).")
    print(f"Load generator: this process (aiohttp client), separate from each server process; all share "
          f"this machine's {os.cpu_count()} CPU cores.")
    print("signsvc: rate limits lifted (SIGNSVC_RATE_LIMIT_PER_KEY=0, SIGNSVC_RATE_LIMIT_PER_IP=0) unless "
          "'+limits'; access log silenced (SIGNSVC_LOG_LEVEL=WARNING).")
    print(f"Before the first target: {report.machine_line()}.\n")


def main() -> int:
    parser = arguments(__doc__)
    parser.add_argument("--seconds", type=float, default=5.0, help="counted window per target (default 5)")
    parser.add_argument("--warmup", type=float, default=1.0, help="uncounted warm-up per target (default 1)")
    parser.add_argument("--rounds", type=int, default=1, help="rounds over all targets; the median is shown")
    parser.add_argument("--skip-postgres", action="store_true", help="leave out the Postgres targets")
    parser.add_argument("--with-limits", action="store_true",
                        help="also measure signsvc with rate limits on (set too high to be reached)")
    args = parser.parse_args()
    if not args.skip_postgres:
        databases.require_postgres(parser)
    print_setup(args)
    chosen = targets(args)
    results: dict[str, list[Result]] = {name: [] for name in chosen}
    for round_number in range(1, args.rounds + 1):
        for name, run in chosen.items():
            results[name].append(run())
            report.progress(f"round {round_number}, {name}: {results[name][-1].rps:.0f} req/s")
    print_report(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
