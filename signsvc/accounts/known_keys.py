"""The principals of the API keys this process has seen, so that a keyed request needs no database statement.

A copy is trusted only while the database's `principals` generation stays the one read before the copy was
looked up: any change to a key, a user or an account (a rotation or revocation by the API, the console or a
command, in any process) moves it, and every copy goes. Where the database cannot tell (SQLite in memory, or
the Postgres notification connection down) nothing is kept.
"""

from __future__ import annotations

import storage.accounts as stored
from storage import Database
from storage.account_records import Principal

# Enough for every key in use; beyond it, the copies start again (a flood of distinct valid keys is not
# something to optimise for).
MOST_KEPT = 10_000


class KnownKeys:
    def __init__(self, db: Database) -> None:
        self.db = db
        self._copies: dict[str, Principal] = {}
        self._generation: int | None = None
        self._watching = False

    async def find(self, key_hash: str) -> Principal | None:
        if not self._watching:
            await self.db.watch(stored.PRINCIPALS)
            self._watching = True
        generation = self.db.generation(stored.PRINCIPALS)
        if generation != self._generation or generation is None:
            self._copies.clear()
            self._generation = generation
        elif (copy := self._copies.get(key_hash)) is not None:
            return copy
        found = await stored.find_principal(self.db, key_hash)
        if found is not None and generation is not None and self.db.generation(stored.PRINCIPALS) == generation:
            if len(self._copies) >= MOST_KEPT:
                self._copies.clear()
            self._copies[key_hash] = found
        return found
