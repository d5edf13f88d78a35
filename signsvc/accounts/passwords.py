"""Passwords, kept only as argon2id hashes with OWASP's parameters (19 MiB of memory, 2 passes, 1 lane) in the
PHC string format (`$argon2id$v=19$m=19456,t=2,p=1$salt$hash`, base64 without padding), checked in constant time.

Hashes the service made before (`scrypt$n$r$p$salt$hash`, scrypt with N=2^14) still verify; `outdated` says a
hash is not of the current kind and parameters, so that the user's next sign-in stores a new one.
Hashing takes tens of milliseconds of CPU by design, so it runs in a thread, off the event loop.
"""

from __future__ import annotations

import asyncio
import base64
import functools
import hashlib
import hmac
import os

from cryptography.hazmat.primitives.kdf.argon2 import Argon2id

MIN_LENGTH = 10
MAX_LENGTH = 256
MEMORY_KIB, ITERATIONS, LANES = 19456, 2, 1
_CURRENT = f"$argon2id$v=19$m={MEMORY_KIB},t={ITERATIONS},p={LANES}$"
_SCRYPT_MAX_N = 2**17  # what an old hash may ask of scrypt (the service wrote 2^14)


async def hash_password(password: str) -> str:
    salt = os.urandom(16)
    digest = await asyncio.to_thread(_argon2id, password, salt, MEMORY_KIB, ITERATIONS, LANES)
    return f"{_CURRENT}{_b64(salt)}${_b64(digest)}"


async def verify(password: str, stored: str | None) -> bool:
    """Whether the password matches the hash. Without a hash (an unknown email, a user who never set a
    password) a dummy hash of the current kind is checked, so the answer takes as long as a real one."""
    try:
        computed, expected = await asyncio.to_thread(_computed, password, stored or _dummy())
    except (ValueError, KeyError):
        return False
    return stored is not None and hmac.compare_digest(computed, expected)


def outdated(stored: str) -> bool:
    """Whether a hash is not an argon2id hash with the current parameters: hash the password again."""
    return not stored.startswith(_CURRENT)


TOO_SHORT, TOO_LONG = "too_short", "too_long"


def problem(password: str) -> str | None:
    """What is wrong with a new password (TOO_SHORT, TOO_LONG); None when it will do."""
    if len(password) < MIN_LENGTH:
        return TOO_SHORT
    if len(password) > MAX_LENGTH:
        return TOO_LONG
    return None


def _computed(password: str, stored: str) -> tuple[bytes, bytes]:
    """The digest the password gives with the stored hash's salt and parameters, and the stored digest;
    ValueError for a hash that is neither kind."""
    if stored.startswith("$argon2id$v=19$"):
        _, _, _, costs, salt, digest = stored.split("$")
        params = dict(cost.split("=", 1) for cost in costs.split(","))
        memory, iterations, lanes = (int(params[name]) for name in ("m", "t", "p"))
        if not (8 * lanes <= memory <= 1024 * 1024 and 1 <= iterations <= 16 and lanes == 1):
            raise ValueError("argon2id parameters out of range")
        return _argon2id(password, _unb64(salt), memory, iterations, lanes), _unb64(digest)
    kind, n, r, p, salt, digest = stored.split("$")
    if kind != "scrypt" or not 2 <= int(n) <= _SCRYPT_MAX_N:
        raise ValueError("not a password hash")
    return _scrypt(password, _unb64(salt), int(n), int(r), int(p)), _unb64(digest)


def _argon2id(password: str, salt: bytes, memory: int, iterations: int, lanes: int) -> bytes:
    kdf = Argon2id(salt=salt, length=32, iterations=iterations, lanes=lanes, memory_cost=memory)
    return kdf.derive(password.encode("utf-8", "surrogatepass"))


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(
        password.encode("utf-8", "surrogatepass"), salt=salt, n=n, r=r, p=p, dklen=32, maxmem=256 * 1024 * 1024
    )


@functools.cache
def _dummy() -> str:
    return f"{_CURRENT}{_b64(b'0' * 16)}${_b64(b'0' * 32)}"


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
