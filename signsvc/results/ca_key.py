"""The generated root CA's private key at rest: encrypted and authenticated (Fernet) with a key derived from the
service's secret key, so a database dump or backup alone does not give it. It is opened only to issue a CRL.

The derivation differs from every other use of the secret key. A key sealed under another secret key
(SIGNSVC_SECRET_KEY changed, or a backup restored without it) can't be opened: the CA's CRL is then not renewed
(logged), and `python run.py signing rotate` gives a new chain.
"""

from __future__ import annotations

import base64
import hashlib

from cryptography.fernet import Fernet, InvalidToken


class CaKeySeal:
    def __init__(self, secret_key: str) -> None:
        key = hashlib.sha256(f"signsvc signing ca key seal|{secret_key}".encode()).digest()
        self.fernet = Fernet(base64.urlsafe_b64encode(key))

    def seal(self, key_pem: str) -> str:
        return self.fernet.encrypt(key_pem.encode()).decode()

    def open(self, sealed: str) -> str | None:
        """The key (PEM); None when it was sealed under another secret key."""
        try:
            return self.fernet.decrypt(sealed.encode()).decode()
        except (InvalidToken, ValueError):
            return None
