"""Server-issued nonces of the public pages' forms (the clickwrap page, a template's public link): each view of
a page stores a nonce bound to the page's path, good for `LIFETIME` by the service clock. A post is taken only
with a nonce the service issued for that page and that has not expired, so a form cannot be posted without
loading its page first; what a nonce's post made is recorded once (`storage.form_posts`), so a nonce makes one
submission or consent at most, a second post of it finding the first one's."""

from __future__ import annotations

from datetime import timedelta

import storage.form_nonces as stored
from signsvc.infra import tokens
from signsvc.infra.clock import Clock
from storage import Database

LIFETIME = timedelta(hours=24)  # a page left open for a working day can still be posted


class FormNonces:
    def __init__(self, db: Database, clock: Clock) -> None:
        self.db, self.clock = db, clock

    async def issue(self, page: str) -> str:
        """A new nonce for one view of `page` (its path)."""
        nonce, now = tokens.generate(22), self.clock.now()
        async with self.db.transaction() as tx:
            await stored.issue(tx, nonce, page, now + LIFETIME, now)
        return nonce

    async def valid(self, nonce: str, page: str) -> bool:
        """The nonce was issued for a view of `page` and has not expired."""
        return await stored.valid(self.db, nonce, page, self.clock.now())
