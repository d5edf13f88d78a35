"""Passes: signed proofs that a signer's email address was verified (`require_email_2fa`), so that their form
opens. A browser that typed the right code holds one for `BROWSER_LIFETIME` (in a cookie, and in the page its
form's actions read); an embedding server asks the API for one that lasts `VOUCHED_LIFETIME`, to vouch for its
signer instead of the code.

A pass is `<expiry>.<signature>`: an HMAC of the signer's link, email address and expiry under a key derived
from the service's secret key. Nothing is stored: a pass stops working when it expires, or when the signer's
email address changes.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from datetime import UTC, datetime, timedelta

from signsvc.infra.clock import Clock
from storage.records import Submitter

BROWSER_LIFETIME = timedelta(hours=12)
VOUCHED_LIFETIME = timedelta(hours=1)
LONGEST = 64  # characters of a pass: ten digits, a dot, 43 of base64; anything longer is not one of ours


class Passes:
    def __init__(self, secret_key: str, clock: Clock) -> None:
        self.key = hashlib.sha256(f"signsvc email verification pass|{secret_key}".encode()).digest()
        self.clock = clock

    def issue(self, submitter: Submitter, lifetime: timedelta) -> tuple[str, datetime]:
        """A pass for the submitter that lasts `lifetime` from now, and when it expires."""
        expires = int((self.clock.now() + lifetime).timestamp())
        return f"{expires}.{self._signature(submitter, expires)}", datetime.fromtimestamp(expires, UTC)

    def admits(self, submitter: Submitter, token: str | None) -> bool:
        """Whether `token` is a pass for this submitter, as their email address is now, and has not expired."""
        if not token or len(token) > LONGEST:
            return False
        expires, _, signature = token.partition(".")
        if not expires.isascii() or not expires.isdigit() or int(expires) <= self.clock.now().timestamp():
            return False
        return hmac.compare_digest(signature.encode(), self._signature(submitter, int(expires)).encode())

    def _signature(self, submitter: Submitter, expires: int) -> str:
        signed = f"{submitter.slug}|{(submitter.email or '').lower()}|{expires}".encode()
        return base64.urlsafe_b64encode(hmac.new(self.key, signed, hashlib.sha256).digest()).rstrip(b"=").decode()
