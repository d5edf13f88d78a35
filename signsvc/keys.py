"""API keys: random base58 text shown once, stored only as a SHA-256 hash."""

from __future__ import annotations

import hashlib
import secrets

_BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
KEY_LENGTH = 43


def generate() -> str:
    return "".join(secrets.choice(_BASE58) for _ in range(KEY_LENGTH))


def digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()
