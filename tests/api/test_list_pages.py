"""List pages kept for the rest of their second (signsvc/http/list_pages.py): asked again, a page is the same bytes
and costs no statement while nothing it shows can have changed; a write (through the API or another
connection), the next second of the clock, or an expiry within the second has it made again. (Any commit
counts as a change here: so does a new block of a rate limit's quota.)"""

from __future__ import annotations

import asyncio
import time
from datetime import timedelta

import pytest

from signsvc.accounts.accounts import Accounts
from storage import Database
from storage.database import RECORDS
from storage.migrations import migrate
from storage.sqlite import SQLiteDatabase
from tests.support.app import START, Api
from tests.support.databases import open_db
from tests.support.signing import send, template


@pytest.fixture
async def api(aiohttp_client, make_app) -> Api:
    """Limits lifted: a request that takes a new block of its quota writes, which makes kept pages again."""
    return Api(await aiohttp_client(make_app(rate_limit_per_key=0, rate_limit_per_ip=0)))


LISTS = ["/api/submissions?limit=100", "/api/submitters?limit=100", "/api/submitters"]


async def page(api: Api, db: Database, path: str) -> tuple[bytes, int]:
    """The page's bytes and the statements it cost."""
    before = db.statements
    reply = await api.get(path)
    assert reply.status == 200, reply.body[:300]
    return reply.body, db.statements - before


async def names(api: Api) -> list[str]:
    return [item["name"] for item in (await api.get("/api/submitters?limit=100")).json["data"]]


@pytest.mark.parametrize("path", LISTS)
async def test_a_page_asked_again_within_its_second_is_the_same_bytes_without_a_statement(api, db, path):
    await send(api, await template(api))
    first, made = await page(api, db, path)
    again, kept = await page(api, db, path)
    assert (again, kept) == (first, 0) and made > 0


async def test_requests_for_a_page_being_made_wait_for_it_instead_of_making_it_again(api, db):
    await send(api, await template(api))
    _, alone = await page(api, db, "/api/submitters?limit=7")
    before = db.statements
    answers = await asyncio.gather(*(api.get("/api/submitters?limit=5") for _ in range(4)))
    assert db.statements - before == alone
    assert len({answer.body for answer in answers}) == 1


@pytest.mark.parametrize("path", LISTS)
async def test_the_next_second_of_the_clock_makes_the_page_again(api, db, clock, path):
    await send(api, await template(api))
    await page(api, db, path)
    clock.advance(timedelta(seconds=1))
    assert (await page(api, db, path))[1] > 0


async def test_a_write_through_the_api_shows_in_the_next_page_within_the_same_second(api, db):
    ann = (await send(api, await template(api)))[0]
    assert "Ann" in await names(api)
    reply = await api.put(f"/api/submitters/{ann['id']}", json={"name": "Annabel"})
    assert reply.status == 200, reply.json
    assert sorted(await names(api)) == ["Annabel", "Bob"]


async def test_a_write_through_another_connection_shows_in_the_pages_after_it(api, db, database_url):
    """Another process's commit: at once on SQLite (its data version), once its notification arrives on Postgres."""
    ann = (await send(api, await template(api)))[0]
    assert "Ann" in await names(api)
    other = await open_db(database_url)
    try:
        await other.run_script(f"UPDATE submitters SET name = 'Changed' WHERE id = {ann['id']};")
    finally:
        await other.close()
    if db.dialect == "sqlite":
        assert "Changed" in await names(api)
        return
    deadline = time.monotonic() + 10
    while "Changed" not in await names(api):
        assert time.monotonic() < deadline, "the notification of another process's commit never arrived"
        await asyncio.sleep(0.01)


async def test_a_submission_expiring_within_the_second_is_not_kept_and_turns_on_time(api, db, clock):
    expiry = START + timedelta(milliseconds=500)
    await send(api, await template(api), expire_at=expiry.isoformat())
    assert (await api.get("/api/submissions")).json["data"][0]["status"] == "pending"
    assert (await page(api, db, "/api/submissions"))[1] > 0
    clock.advance(timedelta(milliseconds=500))
    assert (await api.get("/api/submissions")).json["data"][0]["status"] == "expired"


async def test_a_submission_expiring_later_is_kept_within_the_second(api, db, clock):
    await send(api, await template(api), expire_at=(START + timedelta(seconds=1)).isoformat())
    await page(api, db, "/api/submissions")
    assert (await page(api, db, "/api/submissions"))[1] == 0


async def test_a_page_filtered_by_status_is_never_kept(api, db):
    await send(api, await template(api))
    await page(api, db, "/api/submissions?status=pending")
    assert (await page(api, db, "/api/submissions?status=pending"))[1] > 0


async def test_each_query_and_each_account_has_its_own_page(api, db, other_account):
    await send(api, await template(api))
    assert len((await api.get("/api/submitters?limit=1")).json["data"]) == 1
    assert len((await api.get("/api/submitters?limit=2")).json["data"]) == 2
    theirs = await api.with_key(other_account.live).get("/api/submitters?limit=2")
    assert theirs.json["data"] == []


async def test_a_commit_of_this_process_moves_the_records_generation_at_once(db, clock):
    """Not when Postgres's notification of it arrives, later: a page asked right after a write never predates it."""
    await db.watch(RECORDS)
    before = db.generation(RECORDS)
    assert before is not None
    await Accounts(db, clock).create_account(name="Other", email="other@example.com", approved=True)
    assert db.generation(RECORDS) not in (None, before)


async def test_a_commit_of_another_connection_moves_the_sqlite_generation_for_the_next_read_after_it(
    db, database_url, clock
):
    """SQLite's data_version is read at most once a turn of the event loop: a commit that returned before a read
    is in it, with no wait (Postgres: once its notification arrives)."""
    if db.dialect != "sqlite":
        pytest.skip("Postgres moves a generation when the notification arrives")
    await db.watch(RECORDS)
    before = db.generation(RECORDS)
    other = await open_db(database_url)
    try:
        await Accounts(other, clock).create_account(name="Other", email="other@example.com", approved=True)
        assert db.generation(RECORDS) not in (None, before)
    finally:
        await other.close()


async def test_a_database_in_memory_counts_its_own_writes_as_the_records_generation(clock):
    db = await SQLiteDatabase.open(":memory:")
    try:
        await migrate(db)
        before = db.generation(RECORDS)
        assert before is not None
        await Accounts(db, clock).create_account(name="Other", email="other@example.com", approved=True)
        after = db.generation(RECORDS)
        await db.fetch_all("prune_rate_limits", before=START)
        assert before != after != db.generation(RECORDS)
    finally:
        await db.close()
