"""One-time links that set a user's console password: `setup` (the first user's, an invitation's; a week)
and `reset` (an hour). The token is shown once, in the link; only its hash is kept. A new link of a purpose
replaces the user's earlier ones."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

import storage.accounts as stored
from signsvc.infra import errors, tokens
from signsvc.infra.clock import Clock
from signsvc.infra.urls import Urls
from storage import Connection, Database
from storage.account_records import User, UserLink

SETUP = "setup"
RESET = "reset"
LIFETIMES = {SETUP: timedelta(days=7), RESET: timedelta(hours=1)}
# The kinds of the emails that carry a link (`ConsoleUsers` names them): it works once and signs in as its user,
# so only its recipient may read it, not every user of the account.
SEALED_EMAIL_KINDS = frozenset({f"console_{purpose}" for purpose in (SETUP, RESET)})


def sealed_from(kind: str, to_address: str, reader_email: str) -> bool:
    """An email of `kind` to `to_address` holds a one-time link that the user of `reader_email` may not read."""
    return kind in SEALED_EMAIL_KINDS and to_address.lower() != reader_email.lower()


@dataclass
class LinkUnusable(Exception):
    """A link that sets nothing: `unknown`, `used`, `expired`, or its user `inactive`."""

    reason: str


class UserLinks:
    def __init__(self, db: Database, clock: Clock, urls: Urls) -> None:
        self.db, self.clock, self.urls = db, clock, urls

    async def setup_link(self, user_id: int) -> str:
        """A new setup link for an active user; the earlier ones stop working."""
        async with self.db.transaction() as tx:
            user = await stored.get_user(tx, user_id)
            if user is None:
                raise errors.NotFound(f"User {user_id} not found")
            if user.archived_at is not None:
                raise errors.Invalid(f"User {user.email} was deactivated: a setup link would not work")
            return await self.issue(tx, user, SETUP)

    async def issue(self, tx: Connection, user: User, purpose: str) -> str:
        token = tokens.generate()
        now = self.clock.now()
        await stored.insert_user_link(
            tx,
            user_id=user.id,
            purpose=purpose,
            token_hash=tokens.digest(token),
            expires_at=now + LIFETIMES[purpose],
            now=now,
        )
        return self.urls.console_link(purpose, token)

    async def usable(self, conn: Connection, token: str, purpose: str) -> tuple[UserLink, User]:
        """The link and its user while it can set a password; LinkUnusable otherwise."""
        link = await stored.find_user_link(conn, tokens.digest(token)) if token.isascii() else None
        if link is None or link.purpose != purpose:
            raise LinkUnusable("unknown")
        if link.used_at is not None:
            raise LinkUnusable("used")
        if link.expires_at <= self.clock.now():
            raise LinkUnusable("expired")
        user = await stored.get_user(conn, link.user_id)
        if user is None or user.archived_at is not None:
            raise LinkUnusable("inactive")
        return link, user
