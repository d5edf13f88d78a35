"""The SMTP server of `SIGNSVC_SMTP_URL`, and handing it one message with aiosmtplib."""

from __future__ import annotations

from dataclasses import dataclass, field
from email.message import EmailMessage
from urllib.parse import unquote, urlsplit

# Per connect and per command: a server that accepts and then says nothing fails the attempt
# (the job retries) well before the job's lease runs out.
TIMEOUT_SECONDS = 30.0


@dataclass(frozen=True)
class Server:
    """Where to hand mail over, and how: the login, and TLS from the start or STARTTLS when offered."""

    host: str
    port: int
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    implicit_tls: bool = False


def parse_smtp_url(url: str) -> Server:
    """`smtp://user:pass@host:port` (STARTTLS when offered) or `smtps://...` (TLS from the start).

    Without a port, smtps uses 465, and smtp 587 (message submission) when it logs in, else 25.
    """
    parts = urlsplit(url.strip())
    if parts.scheme not in ("smtp", "smtps"):
        raise ValueError(f"SIGNSVC_SMTP_URL must start with smtp:// or smtps://, not {_safe(url)!r}")
    if not parts.hostname:
        raise ValueError(f"SIGNSVC_SMTP_URL names no host: {_safe(url)!r}")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ValueError(f"SIGNSVC_SMTP_URL takes no path or options: {_safe(url)!r}")
    try:
        port = parts.port
    except ValueError:
        raise ValueError(f"SIGNSVC_SMTP_URL has an invalid port: {_safe(url)!r}") from None
    username = unquote(parts.username) if parts.username else None
    password = unquote(parts.password) if parts.password is not None else None
    if password is not None and username is None:
        raise ValueError("SIGNSVC_SMTP_URL has a password but no user name")
    implicit_tls = parts.scheme == "smtps"
    default_port = 465 if implicit_tls else 587 if username else 25
    return Server(parts.hostname, port or default_port, username, password, implicit_tls)


async def send(server: Server, message: EmailMessage, *, local_hostname: str | None = None) -> None:
    """Hands the message to the server; raises aiosmtplib.SMTPException or OSError when it cannot."""
    import aiosmtplib  # only a service that sends mail needs it

    await aiosmtplib.send(
        message,
        hostname=server.host,
        port=server.port,
        username=server.username,
        password=server.password,
        use_tls=server.implicit_tls,
        start_tls=False if server.implicit_tls else None,
        local_hostname=local_hostname,
        timeout=TIMEOUT_SECONDS,
    )


def _safe(url: str) -> str:
    """The URL without its credentials, for error messages."""
    parts = urlsplit(url.strip())
    return parts._replace(netloc=parts.netloc.rpartition("@")[2]).geturl()
