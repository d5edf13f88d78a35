"""The PDF process pool: workers replaced after their share of tasks, and running below the server's priority."""

import asyncio
import os
from concurrent.futures.process import BrokenProcessPool

import pytest

from signsvc.infra.pool import WORKER_NICENESS, PdfPool


async def test_workers_are_replaced_after_their_share_of_tasks_and_every_task_still_runs():
    pool = PdfPool(workers=1, tasks_per_worker=3)
    try:
        pids = await asyncio.gather(*(pool.run(os.getpid) for _ in range(10)))
        assert len(pids) == 10 and len(set(pids)) == 4  # 3, 3, 3 and 1 tasks
        assert os.getpid() not in pids
    finally:
        pool.close()


async def test_a_worker_that_dies_breaks_only_its_task_and_the_pool_goes_on():
    pool = PdfPool(workers=1)
    try:
        with pytest.raises(BrokenProcessPool):
            await pool.run(os._exit, 1)
        assert await pool.run(os.getpid) != os.getpid()
    finally:
        pool.close()


async def test_workers_run_at_a_lower_priority_than_the_server_so_requests_come_before_pdf_work():
    pool = PdfPool(workers=1)
    try:
        assert await pool.run(os.nice, 0) == min(os.nice(0) + WORKER_NICENESS, 19)  # 19: the lowest there is
    finally:
        pool.close()
