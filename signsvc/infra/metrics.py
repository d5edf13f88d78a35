"""The service's metrics, for Prometheus: kept and written out by prometheus_client, served by `GET /metrics`.

Made only when SIGNSVC_METRICS_TOKEN is set, and prometheus_client is imported only then (a default start stays
as fast as it was). Each app has a registry of its own, never the library's global one: tests build many apps in
one process. What a process counts itself (requests, PDF pool tasks, connections in use) lives in its instruments;
what every process would answer alike (the queues of jobs, webhook deliveries and emails) is read from the
database at each scrape, a few aggregate queries, before the text is written.

With `run.py --workers N` the supervisor gives its serving processes a directory of their own
(PROMETHEUS_MULTIPROC_DIR, `shared_directory`): prometheus_client then keeps every process's values in files
there, and the process a scrape reaches adds them all up (counters and histograms of every process that served,
gauges of those alive), so any of them answers for the whole server.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

import storage.metrics as stored
from signsvc.infra.clock import Clock
from signsvc.infra.mail import Status as EmailStatus
from signsvc.infra.pool import PdfPool
from storage import Database, StorageError
from storage.records import DeliveryStatus

if TYPE_CHECKING:
    from prometheus_client import Counter, Histogram
    from prometheus_client.metrics_core import Metric

log = logging.getLogger(__name__)

# prometheus_client's switch: set before it is first imported, it keeps values in files there (multiprocess mode).
DIRECTORY_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"
# A keyed request takes about a millisecond, a document upload seconds; PDF work from milliseconds to minutes.
REQUEST_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
TASK_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0)
# How often a process among several writes down its gauges (the one a scrape reaches writes its own then).
SAMPLE_SECONDS = 5.0
JOB_STATES = ("due", "scheduled", "running", "failed")


@dataclass(frozen=True)
class _Parts:
    db: Database
    clock: Clock
    pool: PdfPool


class Metrics:
    """The instruments of one app, and its exposition."""

    def __init__(self) -> None:
        import prometheus_client as prometheus

        self.content_type = prometheus.CONTENT_TYPE_LATEST
        self.directory = os.environ.get(DIRECTORY_VARIABLE) or None
        self.registry = prometheus.CollectorRegistry()
        # Several processes: the values are in files, and a scrape reads them all, not a registry.
        registry = None if self.directory else self.registry
        if registry is not None:
            prometheus.ProcessCollector(registry=registry)  # one process's figures; several would not add up
        self._requests = prometheus.Counter(
            "signsvc_http_requests",
            "HTTP requests answered, by route template, method and status",
            ["route", "method", "status"],
            registry=registry,
        )
        self._request_seconds = prometheus.Histogram(
            "signsvc_http_request_duration_seconds",
            "Time to answer an HTTP request, by route template and method",
            ["route", "method"],
            buckets=REQUEST_BUCKETS,
            registry=registry,
        )
        self._pool_tasks = prometheus.Gauge(
            "signsvc_pdf_pool_tasks",
            "PDF pool tasks submitted and not answered: running, or queued for a worker",
            ["state"],
            multiprocess_mode="livesum",
            registry=registry,
        )
        self._pool_workers = prometheus.Gauge(
            "signsvc_pdf_pool_workers",
            "PDF pool worker processes (at most: they start with the first task)",
            multiprocess_mode="livesum",
            registry=registry,
        )
        self._pool_seconds = prometheus.Histogram(
            "signsvc_pdf_pool_task_duration_seconds",
            "Time of a PDF pool task from submission to answer (a wait for a worker included), by call",
            ["call"],
            buckets=TASK_BUCKETS,
            registry=registry,
        )
        self._connections = prometheus.Gauge(
            "signsvc_database_connections",
            "Database connections held, in use by a statement or idle",
            ["backend", "state"],
            multiprocess_mode="livesum",
            registry=registry,
        )
        self._connections_limit = prometheus.Gauge(
            "signsvc_database_connections_max",
            "The most database connections the pool opens",
            ["backend"],
            multiprocess_mode="livesum",
            registry=registry,
        )
        self._served: dict[tuple[str, str, int], tuple[Counter, Histogram]] = {}
        self._parts: _Parts | None = None

    def served(self, route: str, method: str, status: int, seconds: float) -> None:
        """Counts a request answered; the label values are bound once per route, method and status."""
        try:
            counter, histogram = self._served[route, method, status]
        except KeyError:
            counter, histogram = self._served[route, method, status] = (
                self._requests.labels(route, method, str(status)),
                self._request_seconds.labels(route, method),
            )
        counter.inc()
        histogram.observe(seconds)

    @contextlib.asynccontextmanager
    async def reading(self, db: Database, clock: Clock, pool: PdfPool) -> AsyncIterator[None]:
        """While the app runs: times the pool's tasks and reads these parts at each scrape (and, in a process among
        several, every few seconds, so that a scrape reaching another process sees this one's gauges)."""
        self._parts = _Parts(db, clock, pool)
        timer = self._pool_seconds_observed
        pool.timers.append(timer)
        sampling = asyncio.create_task(self._sample_every()) if self.directory else None
        try:
            yield
        finally:
            if sampling is not None:
                sampling.cancel()
            pool.timers.remove(timer)
            self._parts = None

    async def exposition(self) -> bytes:
        """The metrics in the Prometheus text format: this process's (every serving process's, with several), and
        the queues as the database holds them now. A database that does not answer leaves the queues out and
        `signsvc_database_up` at 0, so the rest is still there when it matters most."""
        from prometheus_client import CollectorRegistry, generate_latest
        from prometheus_client.multiprocess import MultiProcessCollector

        parts = self._running()
        self._sample(parts)
        now = parts.clock.now()
        try:
            queues: stored.Queues | None = await stored.queues(parts.db, now)
        except StorageError as exc:
            log.warning("metrics: the database did not answer: %s", exc)
            queues = None
        scrape = CollectorRegistry()
        if self.directory:
            MultiProcessCollector(scrape, path=self.directory)
        else:
            scrape.register(self.registry)
        scrape.register(_QueueFigures(queues, now))
        return await asyncio.to_thread(generate_latest, scrape)

    def _running(self) -> _Parts:
        if self._parts is None:
            raise RuntimeError("the metrics are read only while the app runs")
        return self._parts

    def _pool_seconds_observed(self, call: str, seconds: float) -> None:
        self._pool_seconds.labels(call).observe(seconds)

    def _sample(self, parts: _Parts) -> None:
        """Writes down what this process holds now: its PDF pool's tasks, its database connections."""
        pool, db = parts.pool, parts.db
        running = min(pool.in_flight, pool.workers)  # a worker runs one task at a time; the rest wait
        self._pool_tasks.labels("running").set(running)
        self._pool_tasks.labels("queued").set(pool.in_flight - running)
        self._pool_workers.set(pool.workers)
        use = db.connection_use()
        self._connections.labels(db.dialect, "in_use").set(use.in_use)
        self._connections.labels(db.dialect, "idle").set(use.open - use.in_use)
        self._connections_limit.labels(db.dialect).set(use.limit)

    async def _sample_every(self) -> None:
        while True:
            self._sample(self._running())
            await asyncio.sleep(SAMPLE_SECONDS)


class _QueueFigures:
    """A collector of the figures one scrape read from the database (prometheus_client collects synchronously)."""

    def __init__(self, queues: stored.Queues | None, now: datetime) -> None:
        self.queues, self.now = queues, now

    def collect(self) -> Iterable[Metric]:
        from prometheus_client.core import GaugeMetricFamily

        yield GaugeMetricFamily(
            "signsvc_database_up",
            "1 when the database answered this scrape's queries, else 0 "
            "(and no job, webhook delivery or email figures)",
            value=int(self.queues is not None),
        )
        if self.queues is None:
            return
        jobs = GaugeMetricFamily(
            "signsvc_jobs",
            "Jobs by kind and state: due (pending, their time reached), "
            "scheduled (pending, for later), running, failed",
            labels=["kind", "state"],
        )
        lateness = GaugeMetricFamily(
            "signsvc_jobs_oldest_due_age_seconds",
            "How long the longest-waiting due job of a kind has been due",
            labels=["kind"],
        )
        for counts in self.queues.jobs:
            for state in JOB_STATES:
                jobs.add_metric([counts.kind, state], getattr(counts, state))
            lateness.add_metric([counts.kind], self._age(counts.oldest_due_at))
        yield from (jobs, lateness)
        yield from self._by_status(
            "signsvc_webhook_deliveries",
            "webhook delivery",
            self.queues.webhook_deliveries,
            [status.value for status in DeliveryStatus],
        )
        yield from self._by_status(
            "signsvc_emails", "email", self.queues.emails, [status.value for status in EmailStatus]
        )

    def _by_status(
        self, name: str, noun: str, counts: list[stored.StatusCount], statuses: list[str]
    ) -> Iterator[Metric]:
        """`name{status}`, every known status present; `name_oldest_pending_age_seconds`, 0 when none is pending."""
        from prometheus_client.core import GaugeMetricFamily

        by_status = {count.status: count for count in counts}
        family = GaugeMetricFamily(name, f"Each {noun} by status", labels=["status"])
        for status in dict.fromkeys([*statuses, *by_status]):
            family.add_metric([status], by_status[status].count if status in by_status else 0)
        pending = by_status.get("pending")
        yield family
        yield GaugeMetricFamily(
            f"{name}_oldest_pending_age_seconds",
            f"Seconds since the oldest pending {noun} was made (0 when none is pending)",
            value=self._age(pending.oldest_at if pending else None),
        )

    def _age(self, since: datetime | None) -> float:
        return max((self.now - since).total_seconds(), 0.0) if since is not None else 0.0


@contextlib.contextmanager
def shared_directory() -> Iterator[None]:
    """For the serving processes of `--workers`, started while it is open: a new directory where each keeps its
    values (set as PROMETHEUS_MULTIPROC_DIR, which they inherit), removed with everything in it at the end."""
    directory = tempfile.mkdtemp(prefix="signsvc-metrics-")
    before = os.environ.get(DIRECTORY_VARIABLE)
    os.environ[DIRECTORY_VARIABLE] = directory
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(DIRECTORY_VARIABLE, None)
        else:
            os.environ[DIRECTORY_VARIABLE] = before
        shutil.rmtree(directory, ignore_errors=True)


def keep_in_memory() -> None:
    """For a server of one process, before prometheus_client is imported: its values stay in memory. A
    PROMETHEUS_MULTIPROC_DIR inherited from the environment belongs to some other program; only `--workers` sets
    one, of its own."""
    os.environ.pop(DIRECTORY_VARIABLE, None)


def process_ended(pid: int) -> None:
    """Forgets the gauges of a serving process that ended (what it counted stays: those requests happened)."""
    from prometheus_client import multiprocess

    directory = os.environ.get(DIRECTORY_VARIABLE)
    if directory:
        multiprocess.mark_process_dead(pid, directory)
