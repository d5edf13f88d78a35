"""API keys sealed for the console: encrypted and authenticated (Fernet) with a key derived from the service's
secret key, so a user can see their own keys again. Requests are never authenticated this way: an API key is
looked up by its hash alone.

The derivation differs from the console session's, so neither key opens what the other sealed. A key sealed
under another secret key (SIGNSVC_SECRET_KEY changed) cannot be opened; it must be rotated to be seen again.
"""

from __future__ import annotations

import base64
import hashlib

from cryptography.fernet import Fernet, InvalidToken


class KeySeal:
    def __init__(self, secret_key: str) -> None:
        key = hashlib.sha256(f"signsvc api key seal|{secret_key}".encode()).digest()
        self.fernet = Fernet(base64.urlsafe_b64encode(key))

    def seal(self, key: str) -> str:
        return self.fernet.encrypt(key.encode()).decode()

    def open(self, sealed: str | None) -> str | None:
        """The key; None when there is no sealed key or it was sealed under another secret key."""
        if not sealed:
            return None
        try:
            return self.fernet.decrypt(sealed.encode()).decode()
        except (InvalidToken, ValueError):
            return None
