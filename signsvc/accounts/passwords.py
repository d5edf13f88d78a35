"""Passwords, kept only as scrypt hashes (`scrypt$n$r$p$salt$hash`, base64), checked in constant time.

Hashing takes tens of milliseconds of CPU by design, so it runs in a thread, off the event loop.
"""

from __future__ import annotations

import asyncio
import base64
import functools
import hashlib
import hmac
import os

MIN_LENGTH = 10
MAX_LENGTH = 256
_N, _R, _P = 2**14, 8, 1


async def hash_password(password: str) -> str:
    salt = os.urandom(16)
    digest = await asyncio.to_thread(_scrypt, password, salt, _N, _R, _P)
    return f"scrypt${_N}${_R}${_P}${_b64(salt)}${_b64(digest)}"


async def verify(password: str, stored: str | None) -> bool:
    """Whether the password matches the hash. Without a hash (an unknown email, a user who never set a
    password) a dummy hash is checked, so the answer takes as long as a real one."""
    try:
        _, n, r, p, salt, digest = (stored or _dummy()).split("$")
        computed = await asyncio.to_thread(_scrypt, password, base64.b64decode(salt), int(n), int(r), int(p))
    except ValueError:
        return False
    return stored is not None and hmac.compare_digest(computed, base64.b64decode(digest))


TOO_SHORT, TOO_LONG = "too_short", "too_long"


def problem(password: str) -> str | None:
    """What is wrong with a new password (TOO_SHORT, TOO_LONG); None when it will do."""
    if len(password) < MIN_LENGTH:
        return TOO_SHORT
    if len(password) > MAX_LENGTH:
        return TOO_LONG
    return None


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(password.encode("utf-8", "surrogatepass"), salt=salt, n=n, r=r, p=p, dklen=32,
                          maxmem=64 * 1024 * 1024)


@functools.cache
def _dummy() -> str:
    return f"scrypt${_N}${_R}${_P}${_b64(b'0' * 16)}${_b64(b'0' * 32)}"


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()
