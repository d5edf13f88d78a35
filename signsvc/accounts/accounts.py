"""Accounts, users and API keys: the first start, new users, key rotation, API access approval, the
instance administrator, deactivation.

Every live account has a linked test account with data of its own. A user belongs to the live
account and has one active key for each: the live key addresses the live account, the test key
the test account. Keys are found by their hash; each is also kept sealed (`KeySeal`) so the console
can show its user their keys again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

import storage.accounts as stored
from signsvc.accounts.key_seal import KeySeal
from signsvc.accounts.known_keys import KnownKeys
from signsvc.infra import errors, tokens
from signsvc.infra.clock import Clock
from storage import Connection, Database
from storage.account_records import Account, ApiKey, KeyMode, Principal, User

DEFAULT_ACCOUNT_NAME = "signsvc"
DEFAULT_EMAIL = "admin@example.com"
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+$")


@dataclass(frozen=True)
class IssuedKeys:
    """Keys created just now, to be shown once; None where a key was not generated."""

    user: User
    live: str | None = None
    test: str | None = None


@dataclass(frozen=True)
class ShownKey:
    """A user's key in use, as the console shows it: `key` is None when it was made before keys were sealed,
    or sealed under another secret key (rotating it makes one that can be shown)."""

    mode: KeyMode
    key: str | None
    created_at: datetime


class Accounts:
    """Without a `seal`, keys are kept as hashes only and the console cannot show them (tests that make users
    directly); the service and its commands always give one."""

    def __init__(self, db: Database, clock: Clock, seal: KeySeal | None = None) -> None:
        self.db, self.clock, self.seal = db, clock, seal
        self.known_keys = KnownKeys(db)

    async def bootstrap(self, *, live_key: str | None = None, test_key: str | None = None) -> IssuedKeys | None:
        """Creates the default account, its test account and user on first start (API access approved).

        Fixed keys from configuration then become the default user's keys. Answers the keys generated
        on first start, or None on later starts.
        """
        clock = self.clock
        async with self.db.exclusive(), self.db.transaction() as tx:
            user = await stored.first_user(tx)
            issued = None
            if user is None:
                account = await _insert_account_pair(tx, clock, DEFAULT_ACCOUNT_NAME, approved=True)
                user = await _insert_user(tx, clock, account.id, DEFAULT_EMAIL, "Admin", "User")
                await stored.set_admin(tx, user.id, True)
                issued = IssuedKeys(
                    user,
                    live=None if live_key else await self._issue(tx, user, KeyMode.LIVE),
                    test=None if test_key else await self._issue(tx, user, KeyMode.TEST),
                )
            for mode, fixed in ((KeyMode.LIVE, live_key), (KeyMode.TEST, test_key)):
                if fixed:
                    await self._use_fixed_key(tx, user, mode, fixed)
        return issued

    async def create_account(
        self,
        *,
        name: str,
        email: str,
        first_name: str | None = None,
        last_name: str | None = None,
        approved: bool = False,
    ) -> IssuedKeys:
        """A new live account with its test account and first user, whose keys are answered."""
        async with self.db.transaction() as tx:
            account = await _insert_account_pair(tx, self.clock, name, approved=approved)
            user = await _insert_user(tx, self.clock, account.id, email, first_name, last_name)
            return await self._with_keys(tx, user)

    async def create_user(
        self, *, account_id: int, email: str, first_name: str | None = None, last_name: str | None = None
    ) -> IssuedKeys:
        """A new user of a live account, with a live and a test key."""
        async with self.db.transaction() as tx:
            account = await stored.get_account(tx, account_id)
            if account is None or account.is_test:
                raise errors.NotFound(f"Account {account_id} not found")
            user = await _insert_user(tx, self.clock, account_id, email, first_name, last_name)
            return await self._with_keys(tx, user)

    async def rotate_key(self, user_id: int, mode: KeyMode) -> str:
        """A new key for the user; the old one stops working with this commit."""
        async with self.db.transaction() as tx:
            user = await stored.get_user(tx, user_id)
            if user is None:
                raise errors.NotFound(f"User {user_id} not found")
            await stored.revoke_api_keys(tx, user.id, mode, self.clock.now())
            return await self._issue(tx, user, mode)

    async def add_user(
        self, tx: Connection, account_id: int, email: str, first_name: str | None, last_name: str | None
    ) -> User:
        """A new user of a live account in the caller's transaction, with keys they see in the console."""
        user = await _insert_user(tx, self.clock, account_id, email, first_name, last_name)
        for mode in KeyMode:
            await self._issue(tx, user, mode)
        return user

    async def replace_keys(self, tx: Connection, user: User) -> None:
        """New live and test keys for the user in the caller's transaction; the old ones stay revoked."""
        for mode in KeyMode:
            await stored.revoke_api_keys(tx, user.id, mode, self.clock.now())
            await self._issue(tx, user, mode)

    async def keys(self, user_id: int) -> list[ShownKey]:
        """The user's keys in use, live first, opened for the console."""
        found = await stored.active_api_keys(self.db, user_id)
        return [
            ShownKey(key.mode, self.seal.open(key.key_sealed) if self.seal else None, key.created_at) for key in found
        ]

    async def set_admin(self, user_id: int, is_admin: bool) -> User:
        """Makes the user the instance administrator (who approves API access in the console), or no longer one."""
        async with self.db.transaction() as tx:
            user = await stored.set_admin(tx, user_id, is_admin)
        if user is None:
            raise errors.NotFound(f"User {user_id} not found")
        return user

    async def deactivate_user(self, user_id: int) -> User:
        """Ends a user: their keys and console sessions stop working at once. Deactivating again changes nothing."""
        async with self.db.transaction() as tx:
            user = await stored.get_user(tx, user_id)
            if user is None:
                raise errors.NotFound(f"User {user_id} not found")
            return await stored.archive_user(tx, user.id, self.clock.now()) or user

    async def set_api_access(self, account_id: int, approved: bool) -> Account:
        async with self.db.transaction() as tx:
            account = await stored.set_api_access(tx, account_id, approved)
        if account is None:
            raise errors.NotFound(f"Account {account_id} not found")
        return account

    async def find_user(self, ref: str) -> User:
        """A user named by id or by email address."""
        user = await (
            stored.get_user(self.db, int(ref))
            if ref.isascii() and ref.isdigit()
            else stored.find_user_by_email(self.db, ref.strip().lower())
        )
        if user is None:
            raise errors.NotFound(f"User {ref} not found")
        return user

    async def find_principal(self, token: str | None) -> Principal | None:
        """Who a request with this API key acts as: None for a missing, empty, wrong or revoked key."""
        token = (token or "").strip()
        if not token or not token.isascii():  # keys are ASCII; other bytes cannot name one
            return None
        return await self.known_keys.find(tokens.digest(token))

    async def find_account(self, account_id: int | None) -> Account:
        """A live account by id; the first one (the default account) for None."""
        account = await (
            stored.first_live_account(self.db) if account_id is None else stored.get_account(self.db, account_id)
        )
        if account is None or account.is_test:
            raise errors.NotFound(f"Account {account_id} not found")
        return account

    async def list_accounts(self) -> list[Account]:
        return await stored.list_live_accounts(self.db)

    async def list_users(self, account_id: int, *, limit: int, after: int | None = None) -> list[User]:
        return await stored.list_users(self.db, account_id, limit=limit, after=after)

    async def _with_keys(self, tx: Connection, user: User) -> IssuedKeys:
        return IssuedKeys(user, await self._issue(tx, user, KeyMode.LIVE), await self._issue(tx, user, KeyMode.TEST))

    async def _issue(self, tx: Connection, user: User, mode: KeyMode, key: str | None = None) -> str:
        key = key or tokens.generate()
        await stored.insert_api_key(
            tx,
            user_id=user.id,
            account_id=await _addressed_account(tx, user, mode),
            mode=mode,
            key_hash=tokens.digest(key),
            key_sealed=self._sealed(key),
            now=self.clock.now(),
        )
        return key

    async def _use_fixed_key(self, tx: Connection, user: User, mode: KeyMode, key: str) -> None:
        """Makes a configured key the user's key of `mode`, sealed with the secret key in use."""
        existing = await stored.find_api_key(tx, tokens.digest(key))
        if existing and (existing.user_id, existing.mode) != (user.id, mode):
            raise errors.Invalid(f"the configured {mode.value} key already belongs to another user or mode")
        if existing is None:
            await stored.revoke_api_keys(tx, user.id, mode, self.clock.now())
            await self._issue(tx, user, mode, key)
            return
        if existing.revoked_at is not None:
            await stored.revoke_api_keys(tx, user.id, mode, self.clock.now())
            await stored.restore_api_key(tx, existing.id)
        await self._reseal(tx, existing, key)

    async def _reseal(self, tx: Connection, existing: ApiKey, key: str) -> None:
        """A fixed key made before keys were sealed, or sealed under another secret key, sealed again."""
        if self.seal and self.seal.open(existing.key_sealed) != key:
            await stored.seal_api_key(tx, existing.id, self.seal.seal(key))

    def _sealed(self, key: str) -> str | None:
        return self.seal.seal(key) if self.seal else None


async def _insert_account_pair(tx: Connection, clock: Clock, name: str, *, approved: bool) -> Account:
    live = await stored.insert_account(tx, name=name, is_test=False, approved=approved, now=clock.now())
    test = await stored.insert_account(
        tx, name=f"{name} (test)", is_test=True, approved=approved, now=clock.now(), linked_account_id=live.id
    )
    await stored.link_account(tx, live.id, test.id)
    return live


async def _insert_user(
    tx: Connection, clock: Clock, account_id: int, email: str, first_name: str | None, last_name: str | None
) -> User:
    email = email.strip().lower()
    if not _EMAIL.match(email):
        raise errors.Invalid(f"email {email!r} is not an email address")
    if taken := await stored.find_user_by_email(tx, email):
        # Another account's address is not named as taken: that would tell who else uses the service.
        raise errors.Invalid(
            f"email {email} is already taken"
            if taken.account_id == account_id
            else "This email address can't be invited"
        )
    return await stored.insert_user(
        tx, account_id=account_id, email=email, first_name=first_name, last_name=last_name, now=clock.now()
    )


async def _addressed_account(tx: Connection, user: User, mode: KeyMode) -> int:
    if mode is KeyMode.LIVE:
        return user.account_id
    return (await stored.required_account(tx, user.account_id)).linked_id
