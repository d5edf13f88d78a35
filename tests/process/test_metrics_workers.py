"""`python run.py --workers 2` with SIGNSVC_METRICS_TOKEN: whichever worker a scrape reaches counts the requests of
both (prometheus_client's multiprocess mode, in a directory the supervisor makes and removes)."""

from __future__ import annotations

import os
import re
import signal
from pathlib import Path

import aiohttp
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.process.test_workers import ACCESS, answering_pids, start_workers, stop
from tests.support import service
from tests.support.service import Stderr

TOKEN = "metrics-token-0000000000000000000000000000"
SCRAPED = re.compile(r"\[(\d+)\] signsvc\.access: GET /metrics 200 ")
USER_REQUESTS = (
    "signsvc_http_requests_total",
    frozenset({("route", "/api/user"), ("method", "GET"), ("status", "200")}),
)


async def scrape_each_worker(server: service.Service, stderr: Stderr) -> dict[int, dict]:
    """Scrapes on new connections until both workers have answered a scrape; the samples each answered."""
    answered: dict[int, dict] = {}
    async with aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(force_close=True), headers={"Authorization": f"Bearer {TOKEN}"}
    ) as session:
        while len(answered) < 2:
            logged = len(stderr.lines)
            async with session.get(f"{server.site}/metrics") as reply:
                assert reply.status == 200, await reply.text()
                text = await reply.text()
            match = await logged_after(stderr, SCRAPED, logged)
            answered[int(match[1])] = {
                (sample.name, frozenset(sample.labels.items())): sample.value
                for family in text_string_to_metric_families(text)
                for sample in family.samples
            }
    return answered


async def logged_after(stderr: Stderr, pattern: re.Pattern[str], start: int) -> re.Match[str]:
    """The first line from the `start`th on that matches `pattern`, once it has been written."""

    def found() -> re.Match[str] | None:
        return next((match for line in stderr.lines[start:] if (match := pattern.search(line))), None)

    await stderr.wait_until(found)
    match = found()
    assert match is not None
    return match


def multiprocess_directory(pid: int) -> Path:
    environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    [directory] = [entry.split(b"=", 1)[1] for entry in environ if entry.startswith(b"PROMETHEUS_MULTIPROC_DIR=")]
    return Path(directory.decode())


# The workers share their counts through files, whatever database they share: one database is enough.
@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_a_scrape_reaching_either_worker_counts_the_requests_of_both_even_after_one_is_killed(
    database_url, tmp_path
):
    server, stderr = await start_workers(database_url, tmp_path, SIGNSVC_METRICS_TOKEN=TOKEN)
    try:
        workers = await answering_pids(server, stderr, server.keys["live"], wanted=2)
        directory = multiprocess_directory(min(workers))
        assert directory.is_dir() and multiprocess_directory(max(workers)) == directory
        served = len(stderr.matches(ACCESS))
        per_process_pool = os.cpu_count()
        for pid, samples in (await scrape_each_worker(server, stderr)).items():
            assert samples[USER_REQUESTS] == served, pid
            assert samples[("signsvc_pdf_pool_workers", frozenset())] == 2 * per_process_pool
            assert samples[("signsvc_database_up", frozenset())] == 1

        killed = min(workers)
        os.kill(killed, signal.SIGKILL)
        await stderr.wait_for(r"worker \d \(pid \d+\) ready")
        for samples in (await scrape_each_worker(server, stderr)).values():
            assert samples[USER_REQUESTS] == served, "what a killed worker counted stays counted"
            assert samples[("signsvc_pdf_pool_workers", frozenset())] == 2 * per_process_pool, (
                "the gauges of a worker that ended are gone"
            )
    finally:
        code, _ = await stop(server)
    assert code == 0 and not directory.exists()
    assert "Traceback" not in await stderr.rest()
