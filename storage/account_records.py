"""The records of accounts, their users, API keys and password links, who a request acts as, and the files an
account keeps (blobs): what a server reads before its ready line (the default account's bootstrap, the files'
store) and every request with a key. Apart from the other records, which a start need not make (each frozen record
class costs about a millisecond to create); `storage/records.py` offers them with the rest."""

from __future__ import annotations

import dataclasses
import enum
from datetime import datetime


class KeyMode(enum.StrEnum):
    LIVE = "live"
    TEST = "test"


@dataclasses.dataclass(frozen=True, slots=True)
class Account:
    id: int
    name: str
    is_test: bool
    linked_account_id: int | None  # set right after the pair is inserted
    api_access_approved: bool
    created_at: datetime

    @property
    def linked_id(self) -> int:
        """The linked test account of a live account, or the live account of a test account."""
        if self.linked_account_id is None:
            raise LookupError(f"account {self.id} has no linked account")
        return self.linked_account_id


@dataclasses.dataclass(frozen=True, slots=True)
class User:
    id: int
    account_id: int
    email: str
    first_name: str | None
    last_name: str | None
    created_at: datetime
    archived_at: datetime | None
    password_hash: str | None
    is_admin: bool
    session_epoch: int


@dataclasses.dataclass(frozen=True, slots=True)
class UserLink:
    """A one-time link that sets a user's password: `setup` (first start, invitations) or `reset`."""

    id: int
    user_id: int
    purpose: str
    token_hash: str
    expires_at: datetime
    used_at: datetime | None
    created_at: datetime


@dataclasses.dataclass(frozen=True, slots=True)
class ApiKey:
    """A key of a user for one mode: found by its hash; `key_sealed` is the key encrypted with a key derived from
    the service's secret key, for the console to show it again (None for keys made before keys were sealed)."""

    id: int
    user_id: int
    account_id: int
    mode: KeyMode
    key_hash: str
    created_at: datetime
    revoked_at: datetime | None
    key_sealed: str | None


@dataclasses.dataclass(frozen=True, slots=True)
class Principal:
    """Who a request acts as: a user through one of their keys, addressing one account."""

    key_id: int
    mode: KeyMode
    user_id: int
    email: str
    first_name: str | None
    last_name: str | None
    account_id: int
    linked_account_id: int | None
    api_access_approved: bool
    # The addressed account's name (accounts are never renamed), where it was read with the principal.
    account_name: str | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class Blob:
    id: int
    uuid: str
    account_id: int
    sha256: str
    filename: str
    content_type: str
    byte_size: int
    created_at: datetime
