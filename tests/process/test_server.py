"""The operational contract of `python run.py`: start, ready line, keys, configuration, stop signals, access log.

Health and the graceful stop of requests under way are in tests/api/test_health.py."""

import re
import signal

import aiohttp
import pytest

from tests.support import service


async def get_user(api_base: str, key: str) -> tuple[int, dict]:
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"{api_base}/user", headers={"X-Auth-Token": key}) as response,
    ):
        return response.status, await response.json()


async def test_first_start_prints_the_ready_line_and_working_keys(database_url):
    server = await service.start(SIGNSVC_DATABASE_URL=database_url)
    try:
        assert server.api == server.site + "/api" and server.site.startswith("http://127.0.0.1:")
        assert set(server.keys) == {"live", "test"}
        assert (await get_user(server.api, server.keys["live"]))[0] == 200
        assert (await get_user(server.api, server.keys["test"]))[0] == 200
    finally:
        assert await server.stop() == 0


async def test_later_starts_print_no_keys_and_keep_the_old_ones(database_url):
    first = await service.start(SIGNSVC_DATABASE_URL=database_url)
    await first.stop()
    second = await service.start(SIGNSVC_DATABASE_URL=database_url)
    try:
        assert second.keys == {}
        assert (await get_user(second.api, first.keys["live"]))[0] == 200
    finally:
        await second.stop()


async def test_fixed_keys_from_the_environment_are_the_default_users_keys(database_url):
    server = await service.start(
        SIGNSVC_DATABASE_URL=database_url, SIGNSVC_API_KEY="fixed-live", SIGNSVC_TEST_API_KEY="fixed-test"
    )
    try:
        assert server.keys == {}
        assert await get_user(server.api, "fixed-live") == (
            200,
            {"id": 1, "first_name": "Admin", "last_name": "User", "email": "admin@example.com"},
        )
        assert (await get_user(server.api, "fixed-test"))[0] == 200
    finally:
        await server.stop()


async def test_changing_a_fixed_key_revokes_the_previous_one(database_url):
    first = await service.start(SIGNSVC_DATABASE_URL=database_url, SIGNSVC_API_KEY="key-one")
    await first.stop()
    second = await service.start(SIGNSVC_DATABASE_URL=database_url, SIGNSVC_API_KEY="key-two")
    try:
        assert (await get_user(second.api, "key-one"))[0] == 401
        assert (await get_user(second.api, "key-two"))[0] == 200
    finally:
        await second.stop()


async def test_flags_override_the_environment():
    server = await service.start(
        "--database",
        "sqlite:///:memory:",
        "--host",
        "127.0.0.1",
        SIGNSVC_DATABASE_URL="sqlite:////nonexistent/dir/x.db",
        SIGNSVC_PORT="1",
    )
    try:
        assert server.keys
    finally:
        await server.stop()


async def test_site_url_sets_the_public_address_in_the_ready_line():
    server = await service.start(
        SIGNSVC_DATABASE_URL="sqlite:///:memory:", SIGNSVC_SITE_URL="https://sign.example.com/"
    )
    try:
        assert (server.site, server.api) == ("https://sign.example.com", "https://sign.example.com/api")
    finally:
        await server.stop()


async def test_memory_database_gives_an_ephemeral_instance():
    server = await service.start(SIGNSVC_DATABASE_URL="sqlite:///:memory:")
    try:
        assert (await get_user(server.api, server.keys["live"]))[0] == 200
    finally:
        await server.stop()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
async def test_stop_signals_end_the_process_cleanly(signum):
    server = await service.start(SIGNSVC_DATABASE_URL="sqlite:///:memory:")
    assert await server.stop(signum) == 0
    assert "signsvc stopping" in await server.stderr.rest()


async def test_unreachable_database_fails_the_start_with_a_clear_message():
    code, _out, err = await service.run("migrate", SIGNSVC_DATABASE_URL="postgresql://postgres@127.0.0.1:1/test")
    assert code == 1
    assert err.startswith("signsvc: cannot connect to Postgres")


async def test_invalid_configuration_fails_the_start_naming_the_variable():
    code, _, err = await service.run("migrate", SIGNSVC_RATE_LIMIT_PER_KEY="many")
    assert (code, err.strip()) == (1, "signsvc: SIGNSVC_RATE_LIMIT_PER_KEY='many' is not a valid value")


async def test_access_log_has_one_line_per_request_and_never_the_key():
    server = await service.start(
        SIGNSVC_DATABASE_URL="sqlite:///:memory:", SIGNSVC_LOG_LEVEL="INFO", SIGNSVC_API_KEY="secret-key-never-logged"
    )
    await get_user(server.api, "secret-key-never-logged")
    await get_user(server.api, "wrong-key")
    await server.stop()
    log = await server.stderr.rest()
    assert re.search(r"signsvc\.access: GET /api/user 200 [\d.]+ms account=1$", log, re.MULTILINE)
    assert re.search(r"signsvc\.access: GET /api/user 401 [\d.]+ms account=-$", log, re.MULTILINE)
    assert "secret-key-never-logged" not in log and "wrong-key" not in log
