"""Why a PKCS#12 file would not open: not PKCS#12, a wrong password, a damaged file, or an encryption
this installation's OpenSSL can't decrypt.

OpenSSL (through cryptography) answers all four with one "Invalid password or PKCS12 data". The file's
integrity check tells them apart: its MAC is an HMAC keyed from the password (RFC 7292, appendix B), so
recomputing it says whether the password is right without decrypting anything. When it is right and the
stored MAC still differs, the file was changed after it was made; when the MAC matches and the file still
won't open, the cipher is the problem (RC2-40 where OpenSSL 3's legacy provider is not available).
"""

from __future__ import annotations

import hashlib
import hmac

from asn1crypto import pkcs12 as asn1_pkcs12
from cryptography.hazmat.primitives.serialization import pkcs12

NOT_PKCS12 = "The PKCS#12 file can't be read: it is not a PKCS#12 file"
WRONG_PASSWORD = "The PKCS#12 file can't be read: the password is wrong"
NO_PASSWORD = "The PKCS#12 file can't be read: the password is wrong (none was given)"
BROKEN_MAC = "The PKCS#12 file is damaged: its integrity check (MAC) fails although the password is right"
UNREADABLE = "The PKCS#12 file can't be read: the password is wrong or the file is damaged"
MAX_MAC_ITERATIONS = 1_000_000  # OpenSSL writes 2048; a file asking for more costs seconds per million
_MAC_HASHES = {"sha1": 64, "sha224": 64, "sha256": 64, "sha384": 128, "sha512": 128}  # name: block size
_CIPHER_NAMES = {
    "pkcs12_sha1_rc2_40": "RC2-40",
    "pkcs12_sha1_rc2_128": "RC2-128",
    "pkcs12_sha1_rc4_40": "RC4-40",
    "pkcs12_sha1_rc4_128": "RC4-128",
    "pkcs12_sha1_tripledes_3key": "3DES",
    "pkcs12_sha1_tripledes_2key": "2-key 3DES",
    "pbes2": "PBES2",
}


def diagnose(data: bytes, password: str | None) -> str:
    """The one sentence that says why `data` did not open with `password` (OpenSSL having refused it)."""
    try:
        pfx = asn1_pkcs12.Pfx.load(data, strict=True)
        content = pfx["auth_safe"]["content"].native
        has_mac = bool(pfx["mac_data"].native)
        ciphers = _ciphers(pfx)
    except Exception:  # asn1crypto raises ValueError, TypeError... on anything that is not this structure
        return NOT_PKCS12
    return _judge_mac(pfx, content, password, ciphers) if has_mac else UNREADABLE


def _judge_mac(pfx: asn1_pkcs12.Pfx, content: bytes, password: str | None, ciphers: list[str]) -> str:
    mac_data = pfx["mac_data"]
    name = mac_data["mac"]["digest_algorithm"]["algorithm"].native
    if name not in _MAC_HASHES:  # PBMAC1 (OpenSSL 3.4's option) or a hash OpenSSL refuses itself
        return UNREADABLE
    if not 0 < mac_data["iterations"].native <= MAX_MAC_ITERATIONS:
        return UNREADABLE
    for candidate in _candidates(password):
        digest = _mac(name, candidate, mac_data["mac_salt"].native, mac_data["iterations"].native, content)
        if hmac.compare_digest(digest, mac_data["mac"]["digest"].native):
            return _unsupported(ciphers)
        if _opens_with_mac(pfx, digest, password):
            return BROKEN_MAC
    # The stored MAC differs and the file won't open even with the MAC this password gives: a wrong password, or
    # the right one over damaged encrypted contents; nothing here tells them apart.
    return UNREADABLE if password else NO_PASSWORD


def _mac(name: str, password: bytes, salt: bytes, rounds: int, content: bytes) -> bytes:
    key = _pkcs12_kdf(name, password, salt, rounds, 3, hashlib.new(name).digest_size)
    return hmac.new(key, content, name).digest()


def _opens_with_mac(pfx: asn1_pkcs12.Pfx, digest: bytes, password: str | None) -> bool:
    """Whether the file opens once its MAC is the one this password gives: then the password decrypts the
    contents, so it is right, and the stored MAC is what was damaged."""
    repaired = pfx.copy()
    repaired["mac_data"]["mac"]["digest"] = digest
    try:
        pkcs12.load_key_and_certificates(repaired.dump(force=True), password.encode() if password else None)
    except (ValueError, TypeError):
        return False
    return True


def _unsupported(ciphers: list[str]) -> str:
    """The password is right and the file whole: OpenSSL refused the cipher."""
    named = ", ".join(sorted(set(ciphers))) or "an unknown cipher"
    return (
        f"The PKCS#12 file is encrypted with {named}, which this installation's OpenSSL can't decrypt: "
        "convert it (docs/certificates.md, 'Legacy PKCS#12 files')"
    )


def ciphers_of(data: bytes) -> list[str]:
    """The names of the ciphers a PKCS#12 file is encrypted with (as its messages name them)."""
    return _ciphers(asn1_pkcs12.Pfx.load(data))


def _ciphers(pfx: asn1_pkcs12.Pfx) -> list[str]:
    """The encryption of each encrypted part of the file (the certificates' bag, the key's bag)."""
    found = []
    for info in pfx.authenticated_safe:
        if info["content_type"].native == "encrypted_data":
            algorithm = info["content"]["encrypted_content_info"]["content_encryption_algorithm"]
            found.append(_CIPHER_NAMES.get(algorithm["algorithm"].native, algorithm["algorithm"].dotted))
        else:
            for bag in asn1_pkcs12.SafeContents.load(info["content"].native):
                if bag["bag_id"].native == "pkcs8_shrouded_key_bag":
                    algorithm = bag["bag_value"]["encryption_algorithm"]
                    found.append(_CIPHER_NAMES.get(algorithm["algorithm"].native, algorithm["algorithm"].dotted))
    return found


def _candidates(password: str | None) -> list[bytes]:
    """The password as RFC 7292 keys the MAC: BMPString with two zero bytes. No password is tried both as
    absent and as empty, as OpenSSL does."""
    if password:
        return [password.encode("utf-16-be") + b"\0\0"]
    return [b"", b"\0\0"]


def _pkcs12_kdf(name: str, password: bytes, salt: bytes, rounds: int, purpose: int, size: int) -> bytes:
    """RFC 7292, appendix B.2: the key for `purpose` (3 = the MAC key) from the password and salt."""
    if rounds > MAX_MAC_ITERATIONS:
        raise ValueError("too many MAC iterations")
    v = _MAC_HASHES[name]
    diversifier = bytes([purpose]) * v
    salt_part = _repeat(salt, v)
    password_part = _repeat(password, v)
    block = salt_part + password_part
    out = b""
    while len(out) < size:
        digest = hashlib.new(name, diversifier + block).digest()
        for _ in range(rounds - 1):
            digest = hashlib.new(name, digest).digest()
        out += digest
        filler = int.from_bytes(_repeat(digest, v), "big")
        block = b"".join(
            ((int.from_bytes(block[i : i + v], "big") + filler + 1) % (1 << (8 * v))).to_bytes(v, "big")
            for i in range(0, len(block), v)
        )
    return out[:size]


def _repeat(data: bytes, v: int) -> bytes:
    if not data:
        return b""
    length = v * ((len(data) + v - 1) // v)
    return (data * (length // len(data) + 1))[:length]
