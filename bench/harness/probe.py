"""The probe: `GET /api/user` every 20 ms (at once when the previous answer came later) from a thread
of this process with its own keep-alive connection (http.client), while something else loads the
server. Requirement: p99 under LIMIT_MS."""

from __future__ import annotations

import contextlib
import http.client
import threading
import time
from collections.abc import Iterator

from .report import ms, percentile
from .servers import BENCH_KEY

LIMIT_MS = 50.0
HEADERS = ["GET /api/user every 20 ms", "requests", "errors", "p50 ms", "p99 ms", "max ms", f"p99 < {LIMIT_MS:.0f} ms"]


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
        """Stops the probe (again: no harm); answers its latencies in seconds, ascending."""
        self._stop_event.set()
        self.join()
        return sorted(self.latencies)


@contextlib.contextmanager
def probing(base_url: str) -> Iterator[Probe]:
    """The probe runs for the body of the `with`."""
    probe = Probe(base_url)
    probe.start()
    try:
        yield probe
    finally:
        probe.stop()


def passes(latencies: list[float], errors: list[str]) -> bool:
    """p99 under LIMIT_MS, and no request failed."""
    return bool(latencies) and percentile(latencies, 0.99) * 1000 < LIMIT_MS and not errors


def row(label: str, latencies: list[float], errors: list[str], verdict: str = "") -> list[str]:
    """A row under HEADERS: requests, errors, p50, p99 and max of sorted latencies, and the verdict."""
    return [
        label,
        str(len(latencies)),
        str(len(errors)),
        ms(percentile(latencies, 0.50)),
        f"{percentile(latencies, 0.99) * 1000:.1f}",
        ms(latencies[-1]),
        verdict,
    ]
