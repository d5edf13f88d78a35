"""The console's session: one cookie, encrypted and authenticated with a key derived from the service's
secret key (Fernet), holding who signed in, when, a mark of their password, the test mode switch and the
token every console form carries against cross-site requests. A browser that has not signed in gets a
cookie too, so the sign-in form is protected the same way.

A cookie made with another secret key, changed, or older than the session lifetime by the service's
clock reads as no session. Signing out (which ends the user's sessions in every browser), a new password,
a deactivation end a session.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass
from datetime import timedelta

from aiohttp import web
from cryptography.fernet import Fernet, InvalidToken

from signsvc.infra.clock import Clock

COOKIE = "signsvc_console"
CSRF_FIELD = "csrf"
CSRF_HEADER = "X-CSRF-Token"
LIFETIME = timedelta(days=7)
PATH = "/console"  # the cookie goes with console requests only, never with the API's or the signing pages'


@dataclass(frozen=True)
class Session:
    csrf: str
    user_id: int | None = None
    password_mark: str = ""
    epoch: int = 0  # the user's session epoch when they signed in: signing out moves it on
    signed_in_at: float = 0.0  # seconds since the epoch, by the service's clock
    test_mode: bool = False

    def signed_in(self, user_id: int, password_mark: str, epoch: int, now: float) -> Session:
        """A new session for the user: a new CSRF token, test mode off."""
        return Session(csrf=_token(), user_id=user_id, password_mark=password_mark, epoch=epoch, signed_in_at=now)

    def with_test_mode(self, on: bool) -> Session:
        return dataclasses.replace(self, test_mode=on)

    def accepts(self, token: str | None) -> bool:
        """Whether a posted CSRF token is this session's."""
        return bool(token) and hmac.compare_digest(str(token).encode(), self.csrf.encode())


class Sessions:
    """Reads and writes the session cookie; `secure` when the site is served over https."""

    def __init__(self, secret_key: str, clock: Clock, *, secure: bool) -> None:
        key = hashlib.sha256(f"signsvc console session|{secret_key}".encode()).digest()
        self.fernet, self.clock, self.secure = Fernet(base64.urlsafe_b64encode(key)), clock, secure

    def read(self, request: web.Request) -> Session:
        """The browser's session; a new one, signed out, when it has none that is valid now."""
        found = self._decode(request.cookies.get(COOKIE, ""))
        if found is None or (found.user_id is not None and self._expired(found)):
            return Session(csrf=_token())
        return found

    def signed_out(self) -> Session:
        return Session(csrf=_token())

    def now(self) -> float:
        return self.clock.now().timestamp()

    def keep(self, response: web.StreamResponse, session: Session) -> None:
        value = self.fernet.encrypt(json.dumps(dataclasses.asdict(session)).encode()).decode()
        response.set_cookie(
            COOKIE,
            value,
            path=PATH,
            httponly=True,
            samesite="Lax",
            secure=self.secure,
            max_age=int(LIFETIME.total_seconds()),
        )

    def _expired(self, session: Session) -> bool:
        return not 0 <= self.now() - session.signed_in_at < LIFETIME.total_seconds()

    def _decode(self, value: str) -> Session | None:
        try:
            return Session(**json.loads(self.fernet.decrypt(value.encode())))
        except (InvalidToken, ValueError, TypeError):
            return None


def _token() -> str:
    return secrets.token_urlsafe(32)
