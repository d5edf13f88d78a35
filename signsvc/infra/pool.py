"""The process pool that runs PDF work (parsing, rendering, merging, filling, signing) off the event loop.

PDF code is pure Python or not thread-safe (PDFium), so it runs in worker processes started by a
forkserver (the server has threads; forking them is unsafe). Workers are replaced now and then to
cap the memory that font and PDF parsing leave behind.

Workers run at a lower scheduling priority than the server (`WORKER_NICENESS`): a run of completions has
their documents made in the background, tens of milliseconds of CPU each, and on a machine with few cores
those would otherwise take the cores from the requests the server answers meanwhile. A worker still has any
core nothing else wants; only when the machine is busy does PDF work wait for the server (and its database).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import BrokenExecutor, Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:  # imported with the first task (`_new_executor`): the start imports no multiprocessing
    from concurrent.futures import ProcessPoolExecutor

T = TypeVar("T")
# Imported once by the forkserver, before it forks a worker: the engines' libraries and the fonts, which
# each worker then has from its start (instead of the default, the server's `__main__`, which no worker needs).
PRELOADED = ["signsvc.pdf.preload"]
TASKS_PER_WORKER = 200
WORKER_NICENESS = 10  # added to the server's: the usual step for background work
WATCH_SECONDS = 0.5


class PdfPool:
    def __init__(self, workers: int | None = None, tasks_per_worker: int = TASKS_PER_WORKER) -> None:
        self.workers = workers or os.cpu_count() or 1
        self._budget = self.workers * tasks_per_worker
        self._tasks = 0
        # Made with the first task: its queues start multiprocessing's resource tracker (a process of its own),
        # which a server that is never sent a document, or not yet, does without.
        self._executor: ProcessPoolExecutor | None = None
        # Submitting may start a worker, and starting one waits for the forkserver to fork it: for the first
        # worker, until the forkserver has preloaded the engines and fonts (seconds, more on a busy machine).
        # Tasks are submitted from this thread, so the event loop never waits for that (/health answers at once).
        self._submitter = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pdf-pool-submit")
        # For the metrics: the tasks submitted and not answered yet, and who hears how long each took (by the
        # name of its call, from submission to answer).
        self.in_flight = 0
        self.timers: list[Callable[[str, float], None]] = []

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        """`function(*args)` in a worker; `function` must be a module-level function of plain data."""
        loop = asyncio.get_running_loop()
        self.in_flight += 1
        submitted = time.perf_counter()
        executor: ProcessPoolExecutor | None = None
        try:
            executor, future = await loop.run_in_executor(self._submitter, self._submit, function, args)
            return await asyncio.wrap_future(future)
        except BrokenExecutor:  # a BrokenProcessPool, named by its base: its module is imported with the first task
            # A worker died (killed for memory, or a crash in PDFium): the executor takes no more work.
            if executor is not None:
                await loop.run_in_executor(self._submitter, self._renew_broken, executor)
            raise
        finally:
            self.in_flight -= 1
            for timer in self.timers:
                timer(getattr(function, "__name__", "call"), time.perf_counter() - submitted)

    def _submit(self, function: Callable[..., T], args: tuple[Any, ...]) -> tuple[ProcessPoolExecutor, Future[T]]:
        """In the submitter thread, one task at a time: the executor the task went to, and its future."""
        self._tasks += 1
        executor = self._renew() if self._executor is None or self._tasks > self._budget else self._executor
        try:
            return executor, executor.submit(function, *args)
        except BrokenExecutor:  # a BrokenProcessPool
            self._renew_broken(executor)
            raise

    def _renew_broken(self, executor: ProcessPoolExecutor) -> None:
        if executor is self._executor:
            self._renew()

    def close(self) -> None:
        self._submitter.shutdown(wait=True)
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)

    def _renew(self) -> ProcessPoolExecutor:
        """A new executor: the first one (with the first task), or the workers replaced once they have run their
        share of tasks, capping the memory that font and PDF parsing leave behind. The old ones finish what they
        were given, then leave (their callers await it). (Not `max_tasks_per_child`: on Python 3.11 the executor
        may then fail to start a replacement worker and hang, CPython gh-115634.)"""
        if self._executor is not None:
            self._executor.shutdown(wait=False)
        self._executor, self._tasks = self._new_executor(), 1
        return self._executor

    def _new_executor(self) -> ProcessPoolExecutor:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(PRELOADED)  # read when the forkserver starts: with the first task
        return ProcessPoolExecutor(
            max_workers=self.workers, mp_context=context, initializer=_start_worker, initargs=(os.getpid(),)
        )


def _start_worker(server_pid: int) -> None:
    with contextlib.suppress(OSError):  # raising one's niceness needs no privilege; a sandbox may still refuse it
        os.nice(WORKER_NICENESS)
    threading.Thread(target=_leave_with_server, args=(server_pid,), daemon=True).start()
    # pypdf logs a warning for every repair it makes; a crafted file can make that a flood.
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    # A worker's first job should not pay for the imports.
    from signsvc.pdf import audit_log, consent_certificate, fill, forms, merge, previews, seal, verify  # noqa: F401


def _leave_with_server(server_pid: int) -> None:
    """Ends the worker once the server process is gone, even killed with SIGKILL. Its parent, the
    forkserver, can't tell: every worker holds the pipe it watches, so a worker blocked on the task
    queue would otherwise outlive the server forever, holding its stdout and stderr."""
    while True:
        time.sleep(WATCH_SECONDS)
        try:
            os.kill(server_pid, 0)
        except ProcessLookupError:
            os._exit(1)
