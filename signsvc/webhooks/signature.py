"""Webhook signatures: how signsvc signs a delivery and how a receiver checks one.

The signature is `v1=` followed by the hex HMAC-SHA256 of `<timestamp>.<raw body>`, keyed with
the endpoint's secret value; the timestamp (Unix seconds, when signed) travels in its own header.
This module uses the standard library only, so a receiver can copy it as it is.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Mapping

SIGNATURE_HEADER = "X-Service-Signature"
TIMESTAMP_HEADER = "X-Service-Timestamp"
# A receiver rejects timestamps more than 5 minutes from its own time, either way.
TOLERANCE_SECONDS = 300


class InvalidSignature(ValueError):
    """The delivery is not signed with the secret, or was signed too far from now."""


def sign(secret: str, timestamp: int, body: bytes) -> str:
    """The `X-Service-Signature` value for a body signed at `timestamp`."""
    digest = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return f"v1={digest}"


def verify(
    secret: str,
    body: bytes,
    headers: Mapping[str, str],
    *,
    now: float | None = None,
    tolerance: int = TOLERANCE_SECONDS,
) -> int:
    """Checks a delivery as received: the raw body bytes (not re-encoded JSON) and its headers.

    Answers the signing time in Unix seconds; raises InvalidSignature when the timestamp is missing,
    malformed or more than `tolerance` seconds from `now` (default: this machine's time), or when
    no `v1=` signature in the header matches.
    """
    raw_timestamp, signatures = _header(headers, TIMESTAMP_HEADER), _header(headers, SIGNATURE_HEADER)
    if raw_timestamp is None or signatures is None:
        raise InvalidSignature(f"{TIMESTAMP_HEADER} and {SIGNATURE_HEADER} are required")
    if not raw_timestamp.strip().isdigit():
        raise InvalidSignature(f"{TIMESTAMP_HEADER} is not a Unix time in seconds")
    timestamp = int(raw_timestamp)
    if abs((time.time() if now is None else now) - timestamp) > tolerance:
        raise InvalidSignature(f"{TIMESTAMP_HEADER} is more than {tolerance} seconds from now")
    expected = sign(secret, timestamp, body)
    # Several comma-separated signatures may be sent (for instance while a secret is being rotated).
    if not any(hmac.compare_digest(expected, candidate.strip()) for candidate in signatures.split(",")):
        raise InvalidSignature("the signature does not match the body and the secret")
    return timestamp


def _header(headers: Mapping[str, str], name: str) -> str | None:
    """A header by name in any case: frameworks hand over case-insensitive mappings or plain dicts."""
    value = headers.get(name)
    if value is None:
        value = next((v for k, v in headers.items() if k.lower() == name.lower()), None)
    return value
