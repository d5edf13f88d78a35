"""An account's extra recipients of completed documents: addresses that get the completed email (the signed
documents and the audit log) of each of the account's submissions that sends email, as its signers do. Kept
with the account's settings (`storage.account_settings`)."""

from __future__ import annotations

import storage.account_settings as stored
from signsvc.infra import errors
from signsvc.submissions.inputs import is_email
from storage import Connection

LIMIT = 5  # a few people who keep the signed copies, not a mailing list


SETTING = "completed_recipients"


async def of(conn: Connection, account_id: int) -> list[str]:
    """The account's extra recipients, as set."""
    found = await stored.get(conn, account_id, SETTING)
    return list(found) if found else []


async def set_from_text(conn: Connection, account_id: int, text: str) -> list[str]:
    """Replaces the account's extra recipients with the addresses in `text` (separated by commas, spaces or
    lines; none clears them); 422 naming an address that is not one, or when there are too many."""
    addresses = parsed(text)
    await stored.put(conn, account_id, SETTING, addresses or None)
    return addresses


def parsed(text: str) -> list[str]:
    """The addresses in `text`, lowercased, each once, in the order given."""
    addresses: list[str] = []
    for word in text.replace(",", " ").replace(";", " ").split():
        if not is_email(word):
            raise errors.Invalid(f"{word[:100]} is not an email address")
        if word.lower() not in addresses:
            addresses.append(word.lower())
    if len(addresses) > LIMIT:
        raise errors.Invalid(f"At most {LIMIT} addresses get copies of completed documents; {len(addresses)} given")
    return addresses
