"""The load generator's side, in the script's own process: an aiohttp session with the bench key,
the check that the server answers as the admin user, creating a template, clients in a closed loop."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import aiohttp

from .servers import BENCH_KEY, EXPECTED_USER

Sample = tuple[float, str | None]  # seconds from send to answer read, and what failed (None: nothing)


def api_session(*, connections: int = 100, timeout: float | None = None) -> aiohttp.ClientSession:
    """Keep-alive connections to the API, at most `connections` at once, each request sending BENCH_KEY and
    failing after `timeout` seconds (None: aiohttp's default)."""
    options: dict[str, Any] = {} if timeout is None else {"timeout": aiohttp.ClientTimeout(total=timeout)}
    return aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(limit=connections), headers={"X-Auth-Token": BENCH_KEY}, **options
    )


async def check_user(session: aiohttp.ClientSession, base_url: str) -> None:
    """`GET /api/user` must answer 200 with the expected user (the key works, the database answers)."""
    async with session.get(f"{base_url}/api/user") as response:
        body = await response.json(content_type=None)
    if response.status != 200 or body != EXPECTED_USER:
        raise RuntimeError(f"GET {base_url}/api/user answered {response.status} {body!r}")


async def create_template(session: aiohttp.ClientSession, base_url: str, body: dict[str, Any]) -> dict[str, Any]:
    """`POST /api/templates`, which must answer 201; answers the template."""
    async with session.post(f"{base_url}/api/templates", json=body) as response:
        answer = await response.json(content_type=None)
    if response.status != 201:
        raise RuntimeError(f"POST /api/templates answered {response.status}: {str(answer)[:300]}")
    return answer


async def timed(call: Awaitable[Any]) -> tuple[float, Any]:
    """The seconds `call` took, and what it answered."""
    sent = time.perf_counter()
    result = await call
    return time.perf_counter() - sent, result


async def closed_loop(
    clients: int, jobs: Iterable[Any], op: Callable[[Any], Awaitable[list[Sample]]], deadline: float
) -> tuple[list[float], list[str], float]:
    """`clients` workers, each taking the next job as soon as its last is done, until none is left or the
    deadline (a `time.perf_counter()`) has passed; `op(job)` answers a sample per request it made.
    Answers the latencies, the failures and the wall time."""
    jobs = iter(jobs)
    latencies: list[float] = []
    failures: list[str] = []

    async def worker() -> None:
        while time.perf_counter() < deadline and (job := next(jobs, None)) is not None:
            for latency, failure in await op(job):
                latencies.append(latency)
                if failure:
                    failures.append(failure)

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(clients)))
    return latencies, failures, time.perf_counter() - started
