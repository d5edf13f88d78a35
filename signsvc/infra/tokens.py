"""API keys (random base58 text shown once, stored only as a SHA-256 hash) and public slugs."""

from __future__ import annotations

import hashlib
import secrets

_BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
KEY_LENGTH = 43


def generate(length: int = KEY_LENGTH) -> str:
    return "".join(secrets.choice(_BASE58) for _ in range(length))


def slug() -> str:
    """The public id of a template or clickwrap in its links (14 base58 characters, as DocuSeal's)."""
    return generate(14)


def digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()
