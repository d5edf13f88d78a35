"""A real SMTP server (aiosmtpd) on a local port, keeping every message it receives, for tests."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from typing import Any

from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword, Session


@dataclass(frozen=True)
class Received:
    sender: str
    recipients: list[str]
    login: str | None
    message: EmailMessage


class SmtpServer:
    """Runs in the test's event loop; `stop()` then `start()` again brings it back on the same port.

    With `users` it offers AUTH (without TLS, fine on loopback) and accepts only those logins.
    """

    def __init__(self, users: dict[str, str] | None = None) -> None:
        self.users = users
        self.received: list[Received] = []
        self.port = 0
        self._server: asyncio.Server | None = None

    @property
    def url(self) -> str:
        return f"smtp://127.0.0.1:{self.port}"

    @property
    def messages(self) -> list[EmailMessage]:
        return [received.message for received in self.received]

    async def start(self) -> SmtpServer:
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(self._protocol, "127.0.0.1", self.port)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        if self._server:
            self._server.close()
            await self._server.wait_closed()
            self._server = None

    async def __aenter__(self) -> SmtpServer:
        return await self.start()

    async def __aexit__(self, *exc: Any) -> None:
        await self.stop()

    def _protocol(self) -> SMTP:
        auth: dict[str, Any] = {"authenticator": self._authenticate, "auth_require_tls": False} if self.users else {}
        return SMTP(self, hostname="smtp.test", loop=asyncio.get_running_loop(), **auth)

    def _authenticate(
        self, server: SMTP, session: Session, envelope: Envelope, mechanism: str, data: LoginPassword
    ) -> AuthResult:
        login, password = data.login.decode(), data.password.decode()
        return AuthResult(success=self.users.get(login) == password, auth_data=login)

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        # Lines end in CRLF on the wire; a mail client shows them as plain line breaks.
        message = BytesParser(policy=policy.default).parsebytes(envelope.content.replace(b"\r\n", b"\n"))
        self.received.append(Received(envelope.mail_from, list(envelope.rcpt_tos), session.auth_data, message))
        return "250 Message accepted for delivery"
