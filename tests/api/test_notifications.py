"""Postgres notifications: each schema hears only its own, and the listening connection comes back by itself
when it drops (a Postgres restart, an idle-connection killer); while it is down nothing kept may be trusted."""

import asyncio
from collections.abc import Callable

import asyncpg
import pytest

from storage.accounts import PRINCIPALS
from tests.support.databases import NO_POSTGRES, POSTGRES_URL, PostgresSchema, open_db

pytestmark = pytest.mark.skipif(not POSTGRES_URL, reason=NO_POSTGRES)


async def until(condition: Callable[[], bool]) -> None:
    for _ in range(10_000):
        if condition():
            return
        await asyncio.sleep(0.001)
    raise AssertionError("the condition never held")


async def test_a_schema_hears_its_own_notifications_and_not_another_schemas():
    async with PostgresSchema() as mine, PostgresSchema() as other:
        db, elsewhere, neighbour = await open_db(mine.url), await open_db(mine.url), await open_db(other.url)
        heard: list[str] = []
        await db.listen("jobs", lambda: heard.append("jobs"))
        await db.listen("marker", lambda: heard.append("marker"))
        await neighbour.notify("jobs")
        await elsewhere.notify("jobs")
        await neighbour.notify("jobs")
        await elsewhere.notify("marker")  # Postgres delivers notifications in commit order
        await until(lambda: "marker" in heard)
        assert heard == ["jobs", "marker"]
        for handle in (db, elsewhere, neighbour):
            await handle.close()


async def test_the_notification_connection_comes_back_after_it_is_killed_and_nothing_kept_is_trusted_meanwhile():
    async with PostgresSchema() as schema:
        db = await open_db(schema.url)
        await db.watch(PRINCIPALS)
        before = db.generation(PRINCIPALS)
        assert before is not None
        killer = await asyncpg.connect(POSTGRES_URL)
        killed = await killer.fetchval(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE query = $1",
            f'LISTEN "{schema.name}:{PRINCIPALS}"',
        )
        assert killed == 1
        await until(lambda: db.generation(PRINCIPALS) != before)
        await until(lambda: db.generation(PRINCIPALS) is not None)
        after_reconnect = db.generation(PRINCIPALS)
        assert after_reconnect != before, "what was kept before the drop is not trusted after it"
        await killer.execute(f"SELECT pg_notify('{schema.name}:{PRINCIPALS}', '')")
        await until(lambda: db.generation(PRINCIPALS) not in (None, after_reconnect))
        await killer.close()
        await db.close()
