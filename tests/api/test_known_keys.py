"""Each process keeps the principals of the keys it has seen, so a keyed request needs no statement; yet a change
made elsewhere (another process sharing the database, a command, a hand-written UPDATE) is obeyed on the next
request once the database has told the process: SQLite at once (the next request reads its change counter),
Postgres by a notification, which arrives in well under a millisecond. A second database handle on the same
database stands for another process here, in the same event loop as the server, so on Postgres each test waits
for the notification before its next request; two real processes on one Postgres and a command are in
tests/process/test_shared_database.py."""

import asyncio
from collections.abc import AsyncIterator, Awaitable

import pytest

from signsvc.accounts.accounts import Accounts
from signsvc.http.appkeys import DB
from storage import Database
from storage.accounts import PRINCIPALS
from storage.records import KeyMode
from tests.support.app import LIVE_KEY, Api
from tests.support.databases import open_db


@pytest.fixture
async def elsewhere(database_url, clock) -> AsyncIterator[Accounts]:
    """The accounts as another process sees them."""
    db = await open_db(database_url)
    yield Accounts(db, clock)
    await db.close()


async def heard(api: Api, change: Awaitable[object]) -> None:
    """Makes a change elsewhere and waits until the server's database has told it."""
    db = api.app[DB]
    before = db.generation(PRINCIPALS)
    await change
    for _ in range(5000):
        if db.generation(PRINCIPALS) != before:
            return
        await asyncio.sleep(0.001)
    raise AssertionError("the server was never told of the change")


async def known(api: Api) -> int:
    """Makes the key known to the server's process; answers its user's id."""
    for _ in range(2):
        reply = await api.get("/api/user")
        assert reply.status == 200
    return reply.json["id"]


async def test_a_known_key_needs_no_statement(aiohttp_client, make_app, monkeypatch):
    """The point of keeping principals: with the limits lifted, a keyed request reads nothing (every named query
    of either backend is counted where the storage layer runs it)."""
    api = Api(await aiohttp_client(make_app(rate_limit_per_key=0, rate_limit_per_ip=0)))
    db = api.app[DB]
    await known(api)
    statements: list[str] = []
    real = db.fetch_all

    async def counted(query: str, **params: object) -> list[dict[str, object]]:
        statements.append(query)
        return await real(query, **params)

    monkeypatch.setattr(db, "fetch_all", counted)
    assert (await api.get("/api/user")).status == 200
    assert statements == []


async def test_a_key_rotated_in_another_process_is_refused_on_the_next_request(api, elsewhere):
    user_id = await known(api)
    rotation = asyncio.ensure_future(elsewhere.rotate_key(user_id, KeyMode.LIVE))
    await heard(api, rotation)
    new_key = rotation.result()
    assert (await api.get("/api/user")).status == 401
    assert (await api.with_key(new_key).get("/api/user")).json["id"] == user_id


async def test_a_user_deactivated_in_another_process_is_refused_on_the_next_request(api, elsewhere):
    await heard(api, elsewhere.deactivate_user(await known(api)))
    assert (await api.get("/api/user")).status == 401


async def test_api_access_revoked_in_another_process_is_forbidden_on_the_next_request_and_back_once_approved(
    api, elsewhere
):
    await known(api)
    account = await elsewhere.find_account(None)
    await heard(api, elsewhere.set_api_access(account.id, False))
    assert (await api.get("/api/user")).status == 403
    await heard(api, elsewhere.set_api_access(account.id, True))
    assert (await api.get("/api/user")).status == 200


async def test_a_key_revoked_by_hand_in_sql_is_refused_on_the_next_request(api, elsewhere):
    """Changes made outside the service's own code (an operator's UPDATE) are heard too (by triggers)."""
    await known(api)
    db: Database = elsewhere.db
    await heard(api, db.run_script("UPDATE api_keys SET revoked_at = created_at WHERE revoked_at IS NULL;"))
    assert (await api.get("/api/user")).status == 401


async def test_a_key_rotated_through_the_console_in_the_same_process_is_refused_at_once(api):
    from signsvc.http.appkeys import ACCOUNTS

    user_id = await known(api)
    new_key = await api.app[ACCOUNTS].rotate_key(user_id, KeyMode.LIVE)
    assert (await api.with_key(LIVE_KEY).get("/api/user")).status == 401
    assert (await api.with_key(new_key).get("/api/user")).status == 200
