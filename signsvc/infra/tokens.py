"""API keys (random base58 text shown once, stored only as a SHA-256 hash) and public slugs."""

from __future__ import annotations

import hashlib
import secrets

_BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
KEY_LENGTH = 43


# Random bytes below this map evenly onto the alphabet (4 x 58); the others are dropped.
_EVEN_BELOW = 256 // len(_BASE58) * len(_BASE58)


def generate(length: int = KEY_LENGTH) -> str:
    """Uniformly random base58 text, from one read of the system's randomness (not one per character)."""
    chosen: list[str] = []
    while len(chosen) < length:
        chosen += [_BASE58[byte % len(_BASE58)] for byte in secrets.token_bytes(2 * length) if byte < _EVEN_BELOW]
    return "".join(chosen[:length])


def slug() -> str:
    """The public id of a template or clickwrap in its links (14 base58 characters, as DocuSeal's)."""
    return generate(14)


def digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()
