"""wrk as the load generator: one run of `wrk --latency` as a subprocess, its output parsed, and the CPU
wrk itself used (the client's, counted apart from the server's and this script's).

wrk (the Debian package, 4.1) keeps every connection busy back to back (a closed loop) from native
code, so on a small machine it takes far less CPU per request than a Python client. What it reports
and what is read here:

  - requests completed and the time they took (`N requests in 5.00s`), and Requests/sec;
  - the latency distribution of `--latency`: p50, p75, p90, p99;
  - `Socket errors: connect C, read R, write W, timeout T` and `Non-2xx or 3xx responses: N`, printed
    only when not zero. wrk counts a status of 400 and above as an error (a 3xx is not one); each of
    these counts is a failure of the run.

Durations are whole seconds (wrk takes no fractions). Without wrk, `missing()` says how to get it.

Self-check of the parser on captured outputs: `python bench/harness/wrk.py`.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from typing import Any

UNIT_MS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0, "h": 3_600_000.0}


@dataclass(frozen=True)
class Output:
    """What one wrk run reported."""

    requests: int
    seconds: float  # wrk's own measured duration
    requests_per_second: float
    latency_ms: dict[int, float]  # percentile (50, 75, 90, 99) -> milliseconds
    errors: dict[str, int] = field(default_factory=dict)  # only those not zero: connect, read, write,
    # timeout, non-2xx/3xx

    @property
    def failed(self) -> bool:
        return bool(self.errors)


@dataclass(frozen=True)
class Run:
    output: Output
    cpu_seconds: float  # user + system CPU wrk used, from its exit status (os.wait4)
    wall_seconds: float  # from spawning wrk to its exit


def missing() -> str | None:
    """None when `wrk` is on the PATH; else what to do about it."""
    return None if shutil.which("wrk") else "wrk is not installed (Debian/Ubuntu: apt-get install wrk)"


def argv(
    url: str,
    *,
    seconds: int,
    connections: int,
    threads: int = 1,
    headers: dict[str, str] | None = None,
    timeout_seconds: int = 10,
) -> list[str]:
    """The command line of one run with `--latency`; each header as `-H "Name: value"`."""
    args = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "--latency", "--timeout", f"{timeout_seconds}s"]
    for name, value in (headers or {}).items():
        args += ["-H", f"{name}: {value}"]
    return [*args, url]


def run(url: str, **options: Any) -> Run:
    """Runs wrk to its end (options as for `argv`); raises RuntimeError when wrk fails or prints no figures."""
    started = time.perf_counter()
    proc = subprocess.Popen(argv(url, **options), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.stdout is not None
    out = proc.stdout.read()  # until wrk exits
    proc.stdout.close()
    _, status, usage = os.wait4(proc.pid, 0)  # reaped here, so that its rusage is wrk's alone
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise RuntimeError(f"wrk exited with status {proc.returncode}: {out.strip()}")
    return Run(parse(out), usage.ru_utime + usage.ru_stime, wall)


def parse(out: str) -> Output:
    """The figures of a `wrk --latency` output; RuntimeError when they are not there."""
    done = re.search(r"^\s*(\d+) requests in ([\d.]+)(us|ms|s|m|h),", out, re.M)
    rate = re.search(r"^Requests/sec:\s+([\d.]+)", out, re.M)
    latency = {
        int(p): float(v) * UNIT_MS[u] for p, v, u in re.findall(r"^\s+(\d+)%\s+([\d.]+)(us|ms|s|m|h)\s*$", out, re.M)
    }
    if not (done and rate and {50, 90, 99} <= latency.keys()):
        raise RuntimeError(f"no figures in wrk's output (was --latency given?):\n{out}")
    errors = {}
    if sockets := re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out):
        errors = dict(zip(["connect", "read", "write", "timeout"], map(int, sockets.groups()), strict=True))
    if status := re.search(r"Non-2xx or 3xx responses: (\d+)", out):
        errors["non-2xx/3xx"] = int(status.group(1))
    return Output(
        int(done.group(1)),
        float(done.group(2)) * UNIT_MS[done.group(3)] / 1000,
        float(rate.group(1)),
        latency,
        {k: n for k, n in errors.items() if n},
    )


# Captured from wrk 4.1.0 (Debian) against the bare aiohttp ceiling; the second asked for a path the server
# does not have, the third adds the socket-errors line in wrk's format.
_CAPTURED_OK = """Running 2s test @ http://127.0.0.1:38815/api/user
  1 threads and 64 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     1.79ms  357.87us   8.64ms   97.05%
    Req/Sec    36.02k     1.26k   38.12k    75.00%
  Latency Distribution
     50%    1.74ms
     75%    1.81ms
     90%    1.91ms
     99%    3.76ms
  71663 requests in 2.00s, 16.54MB read
Requests/sec:  35784.10
Transfer/sec:      8.26MB
"""
_CAPTURED_404 = """Running 2s test @ http://127.0.0.1:38815/nope
  1 threads and 64 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     4.21ms    4.78ms  29.46ms   91.16%
    Req/Sec    20.61k     2.27k   24.80k    65.00%
  Latency Distribution
     50%    2.59ms
     75%    3.35ms
     90%    6.68ms
     99%   26.01ms
  40994 requests in 2.00s, 6.80MB read
  Non-2xx or 3xx responses: 40994
Requests/sec:  20480.34
Transfer/sec:      3.40MB
"""


def _self_check() -> None:
    ok = parse(_CAPTURED_OK)
    assert (ok.requests, ok.seconds, ok.requests_per_second) == (71663, 2.0, 35784.10), ok
    assert ok.latency_ms == {50: 1.74, 75: 1.81, 90: 1.91, 99: 3.76} and not ok.failed, ok
    assert parse(_CAPTURED_OK.replace("3.76ms", "1.02s").replace("1.74ms", "850.00us")).latency_ms[99] == 1020.0
    assert parse(_CAPTURED_OK.replace("1.74ms", "850.00us")).latency_ms[50] == 0.85
    bad = parse(_CAPTURED_404)
    assert bad.failed and bad.errors == {"non-2xx/3xx": 40994}, bad
    sockets = _CAPTURED_OK.replace(
        "16.54MB read\n", "16.54MB read\n  Socket errors: connect 0, read 3, write 0, timeout 7\n"
    )
    assert parse(sockets).errors == {"read": 3, "timeout": 7}, parse(sockets)
    try:
        parse("unable to connect to 127.0.0.1:1 Connection refused\n")
    except RuntimeError:
        pass
    else:
        raise AssertionError("an output without figures must not parse")
    print("wrk parser: self-check passed")


if __name__ == "__main__":
    _self_check()
