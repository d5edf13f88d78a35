"""Stored accounts, users and API keys."""

from __future__ import annotations

from datetime import datetime

from storage.account_records import Account, ApiKey, KeyMode, Principal, User, UserLink
from storage.database import Connection
from storage.rows import record, records, required

# Notified by every change to who a key acts as (a key revoked or restored, a user deactivated or back, an
# account's API access): processes keep principals only while nothing was notified. Triggers notify too, for
# changes made outside this package (see migration 0012); these calls make this process hear it at once.
PRINCIPALS = "principals"


async def insert_account(
    conn: Connection, *, name: str, is_test: bool, approved: bool, now: datetime, linked_account_id: int | None = None
) -> Account:
    row = await conn.fetch_one(
        "insert_account",
        name=name,
        is_test=is_test,
        linked_account_id=linked_account_id,
        api_access_approved=approved,
        created_at=now,
    )
    return required(Account, row)


async def link_account(conn: Connection, account_id: int, linked_account_id: int) -> None:
    await conn.execute("link_account", id=account_id, linked_account_id=linked_account_id)


async def get_account(conn: Connection, account_id: int) -> Account | None:
    return record(Account, await conn.fetch_one("get_account", id=account_id))


async def required_account(conn: Connection, account_id: int) -> Account:
    """An account that must exist (a record of it names it)."""
    return required(Account, await conn.fetch_one("get_account", id=account_id))


async def default_account(conn: Connection) -> Account:
    """The first live account, made when the service first started."""
    return required(Account, await conn.fetch_one("first_live_account"))


async def first_live_account(conn: Connection) -> Account | None:
    return record(Account, await conn.fetch_one("first_live_account"))


async def list_live_accounts(conn: Connection) -> list[Account]:
    return records(Account, await conn.fetch_all("list_live_accounts"))


async def set_api_access(conn: Connection, account_id: int, approved: bool) -> Account | None:
    account = record(Account, await conn.fetch_one("set_api_access", id=account_id, approved=approved))
    await conn.notify(PRINCIPALS)
    return account


async def insert_user(
    conn: Connection, *, account_id: int, email: str, first_name: str | None, last_name: str | None, now: datetime
) -> User:
    row = await conn.fetch_one(
        "insert_user", account_id=account_id, email=email, first_name=first_name, last_name=last_name, created_at=now
    )
    return required(User, row)


async def get_user(conn: Connection, user_id: int) -> User | None:
    return record(User, await conn.fetch_one("get_user", id=user_id))


async def users_by_ids(conn: Connection, ids: list[int]) -> dict[int, User]:
    """The users among these ids that exist, by id."""
    if not ids:
        return {}
    return {user.id: user for user in records(User, await conn.fetch_all("get_users", ids=ids))}


async def find_user_by_email(conn: Connection, email: str) -> User | None:
    return record(User, await conn.fetch_one("find_user_by_email", email=email))


async def first_user(conn: Connection) -> User | None:
    return record(User, await conn.fetch_one("first_user"))


async def list_users(
    conn: Connection, account_id: int, *, limit: int, after: int | None = None, before: int | None = None
) -> list[User]:
    rows = await conn.fetch_all("list_users", account_id=account_id, limit=limit, after=after, before=before)
    return records(User, rows)


async def insert_api_key(
    conn: Connection,
    *,
    user_id: int,
    account_id: int,
    mode: KeyMode,
    key_hash: str,
    key_sealed: str | None,
    now: datetime,
) -> ApiKey:
    row = await conn.fetch_one(
        "insert_api_key",
        user_id=user_id,
        account_id=account_id,
        mode=mode.value,
        key_hash=key_hash,
        key_sealed=key_sealed,
        created_at=now,
    )
    return required(ApiKey, row)


async def seal_api_key(conn: Connection, key_id: int, key_sealed: str) -> None:
    await conn.execute("seal_api_key", id=key_id, key_sealed=key_sealed)


async def active_api_keys(conn: Connection, user_id: int) -> list[ApiKey]:
    """A user's keys in use: one per mode at most."""
    return records(ApiKey, await conn.fetch_all("active_api_keys", user_id=user_id))


async def revoke_api_keys(conn: Connection, user_id: int, mode: KeyMode, now: datetime) -> None:
    await conn.execute("revoke_api_keys", user_id=user_id, mode=mode.value, revoked_at=now)
    await conn.notify(PRINCIPALS)


async def find_api_key(conn: Connection, key_hash: str) -> ApiKey | None:
    return record(ApiKey, await conn.fetch_one("find_api_key", key_hash=key_hash))


async def restore_api_key(conn: Connection, key_id: int) -> None:
    await conn.execute("restore_api_key", id=key_id)
    await conn.notify(PRINCIPALS)


async def find_principal(conn: Connection, key_hash: str) -> Principal | None:
    return record(Principal, await conn.fetch_one("find_principal", key_hash=key_hash))


async def set_password(conn: Connection, user_id: int, password_hash: str) -> User:
    return required(User, await conn.fetch_one("set_password", id=user_id, password_hash=password_hash))


async def rehash_password(conn: Connection, user_id: int, previous: str, password_hash: str) -> User | None:
    """The user with the new hash of the same password; None when their hash is no longer `previous`."""
    return record(
        User, await conn.fetch_one("rehash_password", id=user_id, previous=previous, password_hash=password_hash)
    )


async def archive_user(conn: Connection, user_id: int, now: datetime) -> User | None:
    """The user deactivated now; None when they were already."""
    user = record(User, await conn.fetch_one("archive_user", id=user_id, archived_at=now))
    await conn.notify(PRINCIPALS)
    return user


async def restore_user(conn: Connection, user_id: int) -> User:
    user = required(User, await conn.fetch_one("restore_user", id=user_id))
    await conn.notify(PRINCIPALS)
    return user


async def set_admin(conn: Connection, user_id: int, is_admin: bool) -> User | None:
    return record(User, await conn.fetch_one("set_admin", id=user_id, is_admin=is_admin))


async def insert_user_link(
    conn: Connection, *, user_id: int, purpose: str, token_hash: str, expires_at: datetime, now: datetime
) -> UserLink:
    await conn.execute("void_user_links", user_id=user_id, purpose=purpose, now=now)
    row = await conn.fetch_one(
        "insert_user_link",
        user_id=user_id,
        purpose=purpose,
        token_hash=token_hash,
        expires_at=expires_at,
        created_at=now,
    )
    return required(UserLink, row)


async def find_user_link(conn: Connection, token_hash: str) -> UserLink | None:
    return record(UserLink, await conn.fetch_one("find_user_link", token_hash=token_hash))


async def use_user_link(conn: Connection, link_id: int, now: datetime) -> UserLink | None:
    """The link marked used; None when another request used it first."""
    return record(UserLink, await conn.fetch_one("use_user_link", id=link_id, now=now))


async def end_sessions(conn: Connection, user_id: int) -> None:
    await conn.execute("end_sessions", id=user_id)


async def void_all_user_links(conn: Connection, user_id: int, now: datetime) -> None:
    await conn.execute("void_all_user_links", user_id=user_id, now=now)
