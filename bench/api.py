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
import contextlib
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

import aiohttp

import _harness as h

CONNECTIONS = 64
REQUEST_TIMEOUT_SECONDS = 10
MAX_REQUESTS = 2_000_000  # per target and round, a backstop on top of the time bound
LIFTED = {"SIGNSVC_RATE_LIMIT_PER_KEY": "0", "SIGNSVC_RATE_LIMIT_PER_IP": "0"}
UNREACHED = {"SIGNSVC_RATE_LIMIT_PER_KEY": str(10**9), "SIGNSVC_RATE_LIMIT_PER_IP": str(10**9)}


@dataclass
class Result:
    requests: int
    errors: int
    seconds: float
    latencies: list[float]
    client_cpu: float
    server_cpu: float
    machine_cpu: float  # busy CPU-seconds of all cores, steal excluded
    steal: float  # CPU-seconds the hypervisor gave to other guests while this one wanted them

    @property
    def rps(self) -> float:
        return self.requests / self.seconds

    def latency_ms(self, fraction: float) -> float:
        return h.percentile(self.latencies, fraction) * 1000 if self.latencies else float("nan")


def machine_seconds() -> tuple[float, float]:
    """CPU-seconds of all cores since boot, from /proc/stat: busy (user, nice, system, irq, softirq)
    and stolen by the hypervisor."""
    user, nice, system, _, _, irq, softirq, steal = map(int, Path("/proc/stat").read_text().split()[1:9])
    tick = os.sysconf("SC_CLK_TCK")
    return (user + nice + system + irq + softirq) / tick, steal / tick


async def check_once(session: aiohttp.ClientSession, url: str) -> None:
    async with session.get(url) as response:
        body = await response.json(content_type=None)
    if response.status != 200 or body != h.EXPECTED_USER:
        raise RuntimeError(f"GET {url} answered {response.status} {body!r}")


async def load(url: str, server_pid: int, warmup: float, seconds: float) -> Result:
    """Closed-loop load from CONNECTIONS workers; counts what completes in the measured window."""
    connector = aiohttp.TCPConnector(limit=CONNECTIONS)
    timeout = aiohttp.ClientTimeout(total=REQUEST_TIMEOUT_SECONDS)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout,
                                     headers={"X-Auth-Token": h.BENCH_KEY}) as session:
        await check_once(session, url)
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
                except (aiohttp.ClientError, asyncio.TimeoutError):
                    ok = False
                done = time.perf_counter()
                if begin <= done < end:
                    latencies.append(done - sent)
                    errors[0] += not ok

        async def cpu_window() -> tuple[float, ...]:
            await asyncio.sleep(begin - time.perf_counter())
            start = (time.process_time(), h.cpu_seconds(server_pid), *machine_seconds())
            await asyncio.sleep(end - time.perf_counter())
            stop = (time.process_time(), h.cpu_seconds(server_pid), *machine_seconds())
            return tuple(b - a for a, b in zip(start, stop))

        cpu, *_ = await asyncio.gather(cpu_window(), *(worker() for _ in range(CONNECTIONS)))
    latencies.sort()
    return Result(len(latencies) - errors[0], errors[0], seconds, latencies, *cpu)


@contextlib.contextmanager
def running(label: str, argv: list[str], env: dict[str, str]) -> Iterator[h.Server]:
    """A server in a temporary working directory, stopped with SIGTERM afterwards; prints its notes."""
    with h.temp_dir("signsvc-bench-") as workdir:
        server = h.spawn(argv, env, workdir)
        try:
            yield server
        finally:
            for note in h.stop(server):
                print(f"note [{label}]: {note}")


def bench_bare(args: argparse.Namespace) -> Result:
    with running("bare aiohttp", h.bare_argv(), h.server_env(None)) as server:
        return asyncio.run(load(f"{server.base_url}/api/user", server.proc.pid, args.warmup, args.seconds))


def bench_signsvc(database_url: str | None, limits: dict[str, str], args: argparse.Namespace) -> Result:
    """On database_url, or else on a new SQLite file in the server's temporary working directory."""
    url = database_url or "sqlite:///signsvc.sqlite3"
    with running(f"signsvc {url.split(':')[0]}", h.signsvc_argv(), h.server_env(url, **limits)) as server:
        return asyncio.run(load(f"{server.base_url}/api/user", server.proc.pid, args.warmup, args.seconds))


def bench_signsvc_postgres(limits: dict[str, str], args: argparse.Namespace) -> Result:
    with h.postgres_schema("bench_api") as url:
        return bench_signsvc(url, limits, args)


def targets(args: argparse.Namespace) -> dict[str, Callable[[], Result]]:
    chosen: dict[str, Callable[[], Result]] = {"bare aiohttp": lambda: bench_bare(args)}
    for suffix, limits in [("", LIFTED)] + ([(" +limits", UNREACHED)] if args.with_limits else []):
        chosen[f"signsvc sqlite{suffix}"] = lambda limits=limits: bench_signsvc(None, limits, args)
        if not args.skip_postgres:
            chosen[f"signsvc postgres{suffix}"] = lambda limits=limits: bench_signsvc_postgres(limits, args)
    return chosen


def median_round(rounds: list[Result]) -> Result:
    return sorted(rounds, key=lambda r: r.rps)[len(rounds) // 2]


def report(results: dict[str, list[Result]]) -> None:
    ceiling = median_round(results["bare aiohttp"]).rps
    rows = []
    for name, rounds in results.items():
        r = median_round(rounds)
        rows.append([name, f"{r.rps:.0f}", f"{min(x.rps for x in rounds):.0f}-{max(x.rps for x in rounds):.0f}",
                     f"{r.latency_ms(0.50):.1f}", f"{r.latency_ms(0.99):.1f}", str(sum(x.errors for x in rounds)),
                     f"{r.rps / ceiling:.2f}", f"{100 * r.client_cpu / r.seconds:.0f}%",
                     f"{100 * r.server_cpu / r.seconds:.0f}%", f"{100 * r.machine_cpu / r.seconds:.0f}%",
                     f"{100 * r.steal / r.seconds:.0f}%", f"{1000 * r.server_cpu / max(r.requests, 1):.2f}"])
    h.print_table(["GET /api/user", "req/s", "range", "p50 ms", "p99 ms", "errors", "vs bare", "client CPU",
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
    print(f"Load average before: {os.getloadavg()[0]:.2f}.\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="counted window per target (default 5)")
    parser.add_argument("--warmup", type=float, default=1.0, help="uncounted warm-up per target (default 1)")
    parser.add_argument("--rounds", type=int, default=1, help="rounds over all targets; the median is shown")
    parser.add_argument("--skip-postgres", action="store_true", help="leave out the Postgres targets")
    parser.add_argument("--with-limits", action="store_true",
                        help="also measure signsvc with rate limits on (set too high to be reached)")
    args = parser.parse_args()
    if not args.skip_postgres and (why := h.check_postgres()):
        parser.error(f"Postgres at {h.POSTGRES_URL} is not reachable ({why}); use --skip-postgres")
    print_setup(args)
    chosen = targets(args)
    results: dict[str, list[Result]] = {name: [] for name in chosen}
    for round_number in range(1, args.rounds + 1):
        for name, run in chosen.items():
            results[name].append(run())
            print(f"  round {round_number}, {name}: {results[name][-1].rps:.0f} req/s", file=sys.stderr, flush=True)
    report(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
