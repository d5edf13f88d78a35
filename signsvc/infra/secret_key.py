"""The secret key behind signed links and cookies: configured, or generated once and kept in the database."""

from __future__ import annotations

import secrets

import storage.settings as stored
from storage import Database


async def load(db: Database, configured: str | None) -> str:
    if configured:
        return configured
    return await stored.get_or_add(db, "secret_key", secrets.token_urlsafe(48))
