"""Rate limits: counted per key and per address, with X-RateLimit-* on every response."""

import asyncio
from datetime import timedelta

import pytest

from signsvc.accounts.rate_limits import UNLIMITED
from tests.support.app import LIVE_KEY, START, TEST_KEY, Api
from tests.support.databases import open_db

WINDOW_END = int(START.timestamp()) + 300


async def keyed_api(aiohttp_client, make_app, **limits) -> Api:
    return Api(await aiohttp_client(make_app(**limits)))


@pytest.mark.parametrize("path,status", [("/api/user", 200), ("/api/nothing", 404), ("/api/probe/users?after=-1", 422)])
async def test_every_keyed_response_carries_the_rate_limit_headers(api, path, status):
    reply = await api.get(path)
    assert reply.status == status
    assert reply.headers["X-RateLimit-Limit"] == "600"
    assert reply.headers["X-RateLimit-Reset"] == str(WINDOW_END)
    assert int(reply.headers["X-RateLimit-Remaining"]) < 600


async def test_remaining_counts_down_within_the_window(api):
    first = await api.get("/api/user")
    second = await api.get("/api/user")
    assert (first.headers["X-RateLimit-Remaining"], second.headers["X-RateLimit-Remaining"]) == ("599", "598")


async def test_600_requests_per_key_then_429_too_many_requests_with_retry_after(api, clock):
    for _ in range(600):
        assert (await api.get("/api/user")).status == 200
    clock.advance(timedelta(seconds=90))
    reply = await api.get("/api/user")
    assert (reply.status, reply.json) == (429, {"error": "Too many requests"})
    assert reply.headers["Retry-After"] == "210"
    assert reply.headers["X-RateLimit-Remaining"] == "0"
    assert (await api.with_key(TEST_KEY).get("/api/user")).status == 200, "another key has its own count"


async def test_window_resets_when_the_clock_reaches_x_ratelimit_reset(aiohttp_client, make_app, clock):
    api = await keyed_api(aiohttp_client, make_app, rate_limit_per_key=2)
    await api.get("/api/user")
    await api.get("/api/user")
    assert (await api.get("/api/user")).status == 429
    clock.advance(timedelta(minutes=5))
    reply = await api.get("/api/user")
    assert reply.status == 200
    assert reply.headers["X-RateLimit-Reset"] == str(WINDOW_END + 300)
    assert reply.headers["X-RateLimit-Remaining"] == "1"


async def test_requests_per_ip_count_across_all_keys(aiohttp_client, make_app):
    api = await keyed_api(aiohttp_client, make_app, rate_limit_per_ip=3)
    statuses = [(await api.with_key(key).get("/api/user")).status for key in (LIVE_KEY, TEST_KEY, LIVE_KEY, TEST_KEY)]
    assert statuses == [200, 200, 200, 429]


async def test_the_tightest_limit_is_the_one_reported(aiohttp_client, make_app):
    api = await keyed_api(aiohttp_client, make_app, rate_limit_per_key=10, rate_limit_per_ip=3)
    reply = await api.get("/api/user")
    assert (reply.headers["X-RateLimit-Limit"], reply.headers["X-RateLimit-Remaining"]) == ("3", "2")


async def test_requests_per_key_count_regardless_of_source_address(aiohttp_client, make_app):
    api = await keyed_api(aiohttp_client, make_app, rate_limit_per_key=2, trusted_proxies=frozenset({"127.0.0.1"}))
    statuses = [(await api.get("/api/user", headers={"X-Forwarded-For": f"203.0.113.{n}"})).status for n in range(3)]
    assert statuses == [200, 200, 429]


async def test_behind_a_trusted_proxy_each_forwarded_address_has_its_own_ip_limit(aiohttp_client, make_app):
    api = await keyed_api(aiohttp_client, make_app, rate_limit_per_ip=1, trusted_proxies=frozenset({"127.0.0.1"}))
    first = await api.get("/api/user", headers={"X-Forwarded-For": "203.0.113.1"})
    second = await api.with_key(TEST_KEY).get("/api/user", headers={"X-Forwarded-For": "203.0.113.2"})
    again = await api.get("/api/user", headers={"X-Forwarded-For": "203.0.113.1"})
    assert (first.status, second.status, again.status) == (200, 200, 429)


async def test_forwarded_addresses_are_ignored_unless_the_proxy_is_trusted(aiohttp_client, make_app):
    api = await keyed_api(aiohttp_client, make_app, rate_limit_per_ip=1)
    await api.get("/api/user", headers={"X-Forwarded-For": "203.0.113.1"})
    reply = await api.get("/api/user", headers={"X-Forwarded-For": "203.0.113.2"})
    assert reply.status == 429


async def test_unauthenticated_requests_count_against_the_ip_limit(aiohttp_client, make_app):
    api = await keyed_api(aiohttp_client, make_app, rate_limit_per_ip=2)
    assert (await api.with_key("guess-1").get("/api/user")).status == 401
    assert (await api.with_key("guess-2").get("/api/user")).status == 401
    reply = await api.get("/api/user")
    assert (reply.status, reply.json) == (429, {"error": "Too many requests"})


async def test_a_lifted_limit_still_sends_the_headers(aiohttp_client, make_app):
    api = await keyed_api(aiohttp_client, make_app, rate_limit_per_key=0, rate_limit_per_ip=0)
    for _ in range(5):
        reply = await api.get("/api/user")
    assert reply.status == 200
    assert reply.headers["X-RateLimit-Limit"] == reply.headers["X-RateLimit-Remaining"] == str(UNLIMITED)
    assert reply.headers["X-RateLimit-Reset"] == str(WINDOW_END)


async def test_counts_are_shared_by_every_process_using_the_database(
    aiohttp_client, make_app, database_url, clock, config
):
    from signsvc.app import create_app

    first = await keyed_api(aiohttp_client, make_app, rate_limit_per_key=3)
    second_db = await open_db(database_url)
    try:
        app = create_app(config.replace(rate_limit_per_key=3), clock=clock, db=second_db, background=False)
        second = Api(await aiohttp_client(app))
        statuses = [(await api.get("/api/user")).status for api in (first, second, first, second)]
    finally:
        await second_db.close()
    assert statuses == [200, 200, 200, 429]


async def test_concurrent_requests_of_one_process_are_admitted_up_to_the_limit_exactly(aiohttp_client, make_app):
    """A process counts in blocks taken from the database; requests waiting on a block are never refused early."""
    api = await keyed_api(aiohttp_client, make_app, rate_limit_per_key=50)
    statuses = [reply.status for reply in await asyncio.gather(*(api.get("/api/user") for _ in range(80)))]
    assert (statuses.count(200), statuses.count(429)) == (50, 30)


async def test_processes_sharing_the_database_never_admit_more_than_the_limit(
    aiohttp_client, make_app, database_url, clock, config
):
    """Blocks a process holds unused may make another refuse a little early, never admit more."""
    from signsvc.app import create_app

    first = await keyed_api(aiohttp_client, make_app, rate_limit_per_key=40)
    second_db = await open_db(database_url)
    try:
        app = create_app(config.replace(rate_limit_per_key=40), clock=clock, db=second_db, background=False)
        second = Api(await aiohttp_client(app))
        replies = await asyncio.gather(*(api.get("/api/user") for _ in range(60) for api in (first, second)))
    finally:
        await second_db.close()
    admitted = [reply.status for reply in replies].count(200)
    assert 30 <= admitted <= 40


async def test_a_block_given_past_the_limit_counts_only_what_it_got_so_no_admitted_request_is_refused(db, clock):
    """Process A asks for a block sized on what it saw left; B has used most of it meanwhile, so A gets only
    part of its block: each request A admits from it is answered as admitted (200), and between them they admit
    exactly the limit."""
    from signsvc.accounts.rate_limits import RateLimits

    first, second = (RateLimits(db, clock, per_key=100, per_ip=0) for _ in range(2))

    async def admitted(limits: RateLimits, times: int) -> int:
        return [(await limits.take(key_id=1, client="a")).exceeded for _ in range(times)].count(False)

    total = await admitted(first, 40) + await admitted(second, 55)
    total += sum([await admitted(limits, 1) for _ in range(60) for limits in (first, second)])
    assert total == 100


async def test_old_windows_are_pruned_by_the_maintenance_job(api, db, clock, worker):
    import storage.rate_limits as stored
    from signsvc.accounts.accounts import Accounts

    key_id = (await Accounts(db, clock).find_principal(LIVE_KEY)).key_id
    await api.get("/api/user")
    await api.get("/api/user")
    clock.advance(timedelta(minutes=10))
    await worker.drain()
    hits = await stored.hit(db, {f"key:{key_id}": 1}, int(START.timestamp()))
    assert hits == {f"key:{key_id}": 1}, "the ended window was forgotten"
