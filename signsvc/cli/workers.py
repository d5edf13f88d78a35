"""`python run.py --workers N`: N serving processes on one port, each with its own job worker and PDF pool,
sharing the database; and their supervisor, which prepares the database once, prints the ready line once every
worker is ready, starts a worker again when it dies, and stops them all gracefully on SIGTERM or SIGINT.

Workers are fresh interpreters (multiprocessing's spawn), not forks of the supervisor, which has run an event
loop and opened the database. Each binds a socket of its own on the port with SO_REUSEPORT, once its app is set
up, and the kernel spreads new connections over those listening. The supervisor holds the port (bound, not
listening: it accepts nothing), so that `--port 0` means one port for all, kept across restarts.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import multiprocessing
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

import signsvc.cli.serve as serve
import signsvc.cli.serving as serving
import storage.jobs as stored_jobs
from signsvc.accounts.accounts import IssuedKeys
from signsvc.accounts.user_links import UserLinks
from signsvc.app import create_app, serving_started
from signsvc.http.connection_deadlines import GuardedSite
from signsvc.infra import errors, metrics
from signsvc.infra.clock import SystemClock
from signsvc.infra.config import Config, ConfigError
from signsvc.infra.urls import Urls
from signsvc.preparation import open_configured_database, prepare
from storage import StorageError

log = logging.getLogger(__name__)

# A worker that dies after serving a while is started again at once; one that dies sooner, after a pause that
# doubles with each such death in a row: a worker that cannot start (its database is down) does not spin.
SERVED_A_WHILE_SECONDS = 30.0
FIRST_PAUSE_SECONDS = 0.5
LONGEST_PAUSE_SECONDS = 30.0
# A worker stopping gets the server's shutdown timeout for its requests, then finishes its jobs under way;
# one still there this long after SIGTERM is killed.
STOP_GRACE_SECONDS = 2 * serving.SHUTDOWN_TIMEOUT_SECONDS
# How often a worker checks that its supervisor is still there.
WATCH_SECONDS = 0.5


async def supervise_command(config: Config, args: argparse.Namespace) -> int:
    return await supervise(config)


async def supervise(config: Config) -> int:
    if config.database_url.endswith(":memory:"):
        raise ConfigError(
            f"--workers {config.workers} needs a database the workers share: "
            f"{config.database_url} belongs to one process (use a SQLite file or Postgres)"
        )
    if config.testing:
        raise ConfigError(
            f"--workers {config.workers} cannot be used with SIGNSVC_TESTING: the testing extension "
            f"keeps the service clock in its process, and each worker would have its own"
        )
    held = hold_port(config.host, config.port)
    try:
        config = config.replace(port=held.getsockname()[1])
        issued, setup_link = await prepare_database(config)
        # With metrics, the workers keep their values in files of a directory they share, so that a scrape
        # reaching any one of them answers for all.
        with metrics.shared_directory() if config.metrics_token else contextlib.nullcontext():
            return await Supervisor(config).run(lambda: serving.print_ready(config, issued, setup_link))
    finally:
        held.close()


def hold_port(host: str, port: int) -> socket.socket:
    """The port every worker listens on, held by the supervisor. A plain listening socket first, so that a port
    in use (by another server, or another supervisor's workers) is a start error, as for one process."""
    probe = serving.bind(host, port)
    port = probe.getsockname()[1]
    probe.close()
    return serving.bind(host, port, reuse_port=True, listen=False)


async def prepare_database(config: Config) -> tuple[IssuedKeys | None, str | None]:
    """Migrates and bootstraps the database before any worker opens it, so that the keys of the first start (and
    its console setup link) are made once, here, and every worker accepts them. No worker runs yet: a SQLite
    file is this process's alone, and the jobs a previous run left running are taken back, as one process does."""
    db = await open_configured_database(config)
    try:
        clock = SystemClock()
        issued = await prepare(db, clock, config)
        if db.single_process:
            await stored_jobs.release_running_jobs(db)
        link = await UserLinks(db, clock, Urls(config.site)).setup_link(issued.user.id) if issued else None
        return issued, link
    finally:
        await db.close()


class Worker:
    """One serving process, and what it told: None once ready, or why it could not start."""

    def __init__(self, number: int, process: BaseProcess, channel: Connection) -> None:
        self.number, self.process, self.started_at = number, process, time.monotonic()
        loop = asyncio.get_running_loop()
        self.told: asyncio.Future[str | None] = loop.create_future()
        self.exited: asyncio.Future[int] = loop.create_future()
        self._channel = channel
        loop.add_reader(channel.fileno(), self._on_message)
        loop.add_reader(process.sentinel, self._on_exit)

    @property
    def name(self) -> str:
        return f"worker {self.number} (pid {self.process.pid})"

    def _on_message(self) -> None:
        try:
            message: str | None = self._channel.recv()
        except EOFError:
            message = f"{self.name} ended before it was ready"
        self._close_channel()
        self.told.set_result(message)

    def _on_exit(self) -> None:
        asyncio.get_running_loop().remove_reader(self.process.sentinel)
        self.process.join()  # it has ended: this reaps it at once
        self.exited.set_result(self.process.exitcode if self.process.exitcode is not None else 1)

    def _close_channel(self) -> None:
        if not self._channel.closed:
            asyncio.get_running_loop().remove_reader(self._channel.fileno())
            self._channel.close()

    def close(self) -> None:
        self._close_channel()
        if not self.exited.done():
            asyncio.get_running_loop().remove_reader(self.process.sentinel)


class Supervisor:
    def __init__(self, config: Config) -> None:
        self.config = config
        self.workers: dict[int, Worker] = {}
        self._context = multiprocessing.get_context("spawn")
        self._stop = asyncio.Event()

    async def run(self, announce: Callable[[], None]) -> int:
        """Starts the workers, `announce`s once all are ready, keeps them running until SIGTERM or SIGINT, then
        stops them. A worker that cannot start at first stops the start: what it said is the start error."""
        stop = self._stop = serving.stop_signals()
        first = [self._spawn(number) for number in range(1, self.config.workers + 1)]
        failure = await _until_ready(first, stop)
        keeping: list[asyncio.Task[None]] = []
        if failure is None and not stop.is_set():
            announce()
            keeping = [asyncio.create_task(self._keep(worker)) for worker in first]
            await stop.wait()
            print(serving.STOPPING, file=sys.stderr, flush=True)
        for task in keeping:
            task.cancel()
        stopped_in_time = await self._stop_all()
        if failure is not None:
            raise ConfigError(failure)
        return 0 if stopped_in_time else 1

    def _spawn(self, number: int) -> Worker:
        reading, writing = self._context.Pipe(duplex=False)
        process = self._context.Process(
            target=worker_main, args=(self.config, os.getpid(), writing), name=f"signsvc-worker-{number}"
        )
        process.start()
        writing.close()  # the worker's copy is the one left: it ending is the end of the channel
        worker = self.workers[number] = Worker(number, process, reading)
        return worker

    async def _keep(self, worker: Worker) -> None:
        """Starts the worker's successor each time it dies, after a pause if it died soon after it started."""
        quick_deaths = 0
        while True:
            # Shielded: cancelling this task (at the stop) must leave the worker's futures to tell its end.
            code = await asyncio.shield(worker.exited)
            if self._stop.is_set():
                return  # a SIGINT from a terminal reaches the workers too: they stop with the supervisor
            if self.config.metrics_token and worker.process.pid is not None:
                metrics.process_ended(worker.process.pid)
            served_a_while = time.monotonic() - worker.started_at >= SERVED_A_WHILE_SECONDS
            quick_deaths = 0 if served_a_while else quick_deaths + 1
            pause = min(FIRST_PAUSE_SECONDS * 2 ** (quick_deaths - 1), LONGEST_PAUSE_SECONDS) if quick_deaths else 0
            log.warning("%s %s; starting another%s", worker.name, _ending(code), f" in {pause:g} s" if pause else "")
            worker.close()
            await asyncio.sleep(pause)
            worker = self._spawn(worker.number)
            if (failure := await asyncio.shield(worker.told)) is None:
                log.info("%s ready", worker.name)
            else:
                log.warning("%s could not start: %s", worker.name, failure)

    async def _stop_all(self) -> bool:
        """SIGTERM to every worker, and their end awaited; answers whether all ended within the grace period
        (those that did not are killed)."""
        workers = list(self.workers.values())
        for worker in workers:
            if not worker.exited.done():
                worker.process.terminate()
        exits = [worker.exited for worker in workers]
        _, late = await asyncio.wait(exits, timeout=STOP_GRACE_SECONDS) if exits else (set(), set())
        for worker in workers:
            if worker.exited in late:
                log.error("%s did not stop within %g s of SIGTERM; killed", worker.name, STOP_GRACE_SECONDS)
                worker.process.kill()
        if late:
            await asyncio.wait(late)
        for worker in workers:
            worker.close()
        return not late


async def _until_ready(workers: list[Worker], stop: asyncio.Event) -> str | None:
    """Waits until every worker is ready (None), one could not start (what it said), or a stop is asked for."""
    stopping: asyncio.Future[Any] = asyncio.ensure_future(stop.wait())
    waiting: set[asyncio.Future[Any]] = {worker.told for worker in workers}
    try:
        while waiting and not stop.is_set():
            done, waiting = await asyncio.wait({*waiting, stopping}, return_when=asyncio.FIRST_COMPLETED)
            waiting.discard(stopping)
            if failure := next((told.result() for told in done if told is not stopping and told.result()), None):
                return str(failure)
        return None
    finally:
        stopping.cancel()


def _ending(code: int) -> str:
    if code < 0:
        with contextlib.suppress(ValueError):
            return f"was killed by {signal.Signals(-code).name}"
    return f"exited with code {code}"


def worker_main(config: Config, supervisor_pid: int, channel: Connection) -> None:
    """A worker's life, in a fresh interpreter: serves until SIGTERM or SIGINT, or until its supervisor is gone.
    A start error goes to the supervisor, which says it once for all workers."""
    threading.Thread(
        target=_leave_with_supervisor, args=(supervisor_pid,), daemon=True, name="signsvc-supervisor-watch"
    ).start()
    serve.configure_logging(config)
    try:
        asyncio.run(_serve(config, channel))
    except (ConfigError, StorageError, errors.ServiceError, ValueError) as exc:
        if channel.closed:
            print(f"signsvc: {exc}", file=sys.stderr, flush=True)
        else:
            channel.send(str(exc))
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(130)


async def _serve(config: Config, channel: Connection) -> None:
    runner = await serving.set_up(create_app(config))
    try:
        # Listening only now, set up: the kernel gives connections to listening sockets only, and a worker
        # starting again must not be handed connections it would leave waiting while it opens the database.
        sock = serving.bind(config.host, config.port, reuse_port=True)
        await GuardedSite(runner, sock, serving.limits(config)).start()
        stop = serving.stop_signals()
        channel.send(None)
        channel.close()
        serving_started(runner.app)
        await stop.wait()
    finally:
        await runner.cleanup()


def _leave_with_supervisor(supervisor_pid: int) -> None:
    """Stops the worker gracefully once its supervisor is gone, even killed with SIGKILL (it is then the
    child of another process)."""
    while os.getppid() == supervisor_pid:
        time.sleep(WATCH_SECONDS)
    os.kill(os.getpid(), signal.SIGTERM)
