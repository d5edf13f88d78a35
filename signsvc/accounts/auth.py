"""Who may reach what: a key's access to the API, and a principal's to the records of an account."""

from __future__ import annotations

from typing import Any, TypeVar

import storage.accounts as stored
from signsvc.infra import errors
from storage import Connection
from storage.account_records import Account, KeyMode, Principal, User

R = TypeVar("R", bound=Any)
_KEY_NAMES = {KeyMode.LIVE: "production", KeyMode.TEST: "testing"}


def require_access(principal: Principal | None) -> Principal:
    """401 without a valid key, 403 Forbidden while the account's API access is not approved."""
    if principal is None:
        raise errors.NotAuthenticated()
    if not principal.api_access_approved:
        raise errors.Forbidden()
    return principal


async def on_behalf_of(conn: Connection, account_id: int, user_id: int) -> Principal:
    """The principal a public page acts as when it makes a record (a submission from a public template
    link or a clickwrap): the author of what the page shows, in its account, as though with their key."""
    account = await stored.required_account(conn, account_id)
    user = await stored.get_user(conn, user_id)
    if user is None:
        raise LookupError(f"user {user_id} of account {account_id} no longer exists")
    return Principal(
        key_id=0,
        mode=KeyMode.TEST if account.is_test else KeyMode.LIVE,
        user_id=user.id,
        email=user.email,
        first_name=user.first_name,
        last_name=user.last_name,
        account_id=account.id,
        linked_account_id=account.linked_account_id,
        api_access_approved=account.api_access_approved,
        account_name=account.name,
    )


def console_principal(account: Account, user: User, mode: KeyMode) -> Principal:
    """The principal a console user acts as: as though with their key of `mode` (the live account or its
    test account)."""
    live, test = account.id, account.linked_id
    acting, other = (test, live) if mode is KeyMode.TEST else (live, test)
    return Principal(
        key_id=0,
        mode=mode,
        user_id=user.id,
        email=user.email,
        first_name=user.first_name,
        last_name=user.last_name,
        account_id=acting,
        linked_account_id=other,
        api_access_approved=account.api_access_approved,
        account_name=account.name if mode is KeyMode.LIVE else None,
    )


def owned(principal: Principal, found: R | None, noun: str) -> R:
    """`found` (a record with `id` and `account_id`) when the principal may reach it; 404 when missing."""
    if found is None:
        raise errors.NotFound()
    check_owner(principal, found.account_id, noun, found.id)
    return found


def check_owner(principal: Principal, account_id: int, noun: str, record_id: int, plural: str | None = None) -> None:
    """Lets the principal reach a record of its own account, and nothing else.

    A record of the linked live or test account is 404 with a message naming the key to use;
    a record of any other account is 403 Not authorized.
    """
    if account_id == principal.account_id:
        return
    if account_id == principal.linked_account_id:
        other = KeyMode.LIVE if principal.mode is KeyMode.TEST else KeyMode.TEST
        plural = plural or f"{noun.lower()}s"
        raise errors.NotFound(
            f"{noun} {record_id} not found using {_KEY_NAMES[principal.mode]} API key; "
            f"Use {_KEY_NAMES[other]} API key to access {_KEY_NAMES[other]} {plural}."
        )
    raise errors.NotAuthorized()
