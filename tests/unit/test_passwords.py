"""Password hashes: argon2id with OWASP's parameters, the scrypt hashes made before still verifying."""

import base64
import hashlib

from signsvc.accounts import passwords

PASSWORD = "correct horse battery staple"


def scrypt_hash(password: str, n: int = 2**14) -> str:
    """A hash as the service wrote them before argon2id."""
    salt = b"s" * 16
    digest = hashlib.scrypt(password.encode(), salt=salt, n=n, r=8, p=1, dklen=32, maxmem=64 * 1024 * 1024)
    return f"scrypt${n}$8$1${base64.b64encode(salt).decode()}${base64.b64encode(digest).decode()}"


async def test_new_hashes_are_argon2id_with_owasps_parameters():
    stored = await passwords.hash_password(PASSWORD)
    assert stored.startswith("$argon2id$v=19$m=19456,t=2,p=1$")
    assert (passwords.MEMORY_KIB, passwords.ITERATIONS, passwords.LANES) == (19456, 2, 1)
    assert not passwords.outdated(stored)


async def test_a_hash_verifies_its_password_only():
    stored = await passwords.hash_password(PASSWORD)
    assert await passwords.verify(PASSWORD, stored)
    assert not await passwords.verify(PASSWORD + "!", stored)
    assert stored != await passwords.hash_password(PASSWORD), "each hash has its own salt"


async def test_an_old_scrypt_hash_still_verifies_and_is_outdated():
    old = scrypt_hash(PASSWORD)
    assert await passwords.verify(PASSWORD, old) and not await passwords.verify("another password", old)
    assert passwords.outdated(old)
    assert passwords.outdated("$argon2id$v=19$m=4096,t=1,p=1$c2FsdHNhbHQ$ZGlnZXN0ZGlnZXN0")


async def test_no_hash_or_a_garbled_one_never_verifies():
    assert not await passwords.verify(PASSWORD, None)
    for garbled in (
        "",
        "$argon2id$v=19$m=19456,t=2$x$y",
        "scrypt$1$8$1$AA==$AA==",
        "plain text",
        "$argon2id$v=19$m=99999999,t=2,p=1$c2FsdHNhbHQ$ZGlnZXN0",
        "scrypt$16384$8$1$!!$AA==",
    ):
        assert not await passwords.verify(PASSWORD, garbled), garbled
