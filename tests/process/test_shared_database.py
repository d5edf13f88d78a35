"""Processes sharing one database, as real processes: a key rotated by the command is refused on the next request
by every serving process (each keeps the keys it has seen), and the rate limits they count in blocks never admit
more than the limit between them. On SQLite one server shares its file with the command, which the server reads
again on every request; on Postgres two servers do, and Postgres sends its notification at the command's commit,
while the command's process has yet to close its connections and exit before the next request is made."""

import asyncio
import re

import aiohttp
import pytest

from tests.support import service
from tests.support.databases import BACKENDS, NO_POSTGRES, POSTGRES_URL


async def status_with(session: aiohttp.ClientSession, server: service.Service, key: str) -> int:
    async with session.get(f"{server.api}/user", headers={"X-Auth-Token": key}) as response:
        return response.status


async def servers(database_url: str, tmp_path, backend: str, **env: str) -> list[service.Service]:
    env = {"SIGNSVC_DATABASE_URL": database_url, "SIGNSVC_DATA_DIR": str(tmp_path / "data"), **env}
    first = await service.start(**env)
    return [first] if backend == "sqlite" else [first, await service.start(**env)]


async def test_a_key_rotated_by_the_command_is_refused_on_the_next_request_by_every_serving_process(
    backend, database_url, tmp_path
):
    running = await servers(database_url, tmp_path, backend)
    old_key = running[0].keys["live"]
    try:
        async with aiohttp.ClientSession() as session:
            for server in running:
                assert [await status_with(session, server, old_key) for _ in range(3)] == [200, 200, 200]
            code, out, _ = await service.run(
                "keys",
                "rotate",
                "admin@example.com",
                SIGNSVC_DATABASE_URL=database_url,
                SIGNSVC_DATA_DIR=str(tmp_path / "data"),
            )
            assert code == 0
            new_key = re.fullmatch(r"API key \(live\) of admin@example.com: (\S+)\n", out)[1]
            for server in running:
                assert await status_with(session, server, old_key) == 401
                assert await status_with(session, server, new_key) == 200
    finally:
        await asyncio.gather(*(server.stop() for server in running))


@pytest.mark.skipif(not POSTGRES_URL, reason=NO_POSTGRES)
@pytest.mark.parametrize("backend", [b for b in BACKENDS if b != "sqlite"], indirect=True)
async def test_two_processes_never_admit_more_than_the_limit_between_them(backend, database_url, tmp_path):
    running = await servers(database_url, tmp_path, backend, SIGNSVC_RATE_LIMIT_PER_KEY="30")
    key = running[0].keys["live"]
    try:
        async with aiohttp.ClientSession() as session:
            statuses = await asyncio.gather(
                *(status_with(session, server, key) for _ in range(40) for server in running)
            )
    finally:
        await asyncio.gather(*(server.stop() for server in running))
    assert set(statuses) == {200, 429}
    assert 20 <= statuses.count(200) <= 30
