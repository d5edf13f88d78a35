"""Documents fetched from public https:// URLs, refusing private networks, slow servers and oversized files."""

from __future__ import annotations

import asyncio
import socket
import ssl
from dataclasses import dataclass
from http import HTTPStatus

import aiohttp
from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.resolver import DefaultResolver
from yarl import URL

from signsvc.infra import errors
from signsvc.infra.addresses import is_ip, is_public

MAX_REDIRECTS = 5
REDIRECT_STATUSES = {301, 302, 303, 307, 308}
PRIVATE = "The document URL points to a private or local network address; only public addresses are allowed"


@dataclass(frozen=True)
class Download:
    """A downloaded body and its Content-Type as the server sent it (`text/css; charset=utf-8`; empty: none)."""

    data: bytes
    content_type: str


class DownloadError(errors.Invalid):
    """The document could not be downloaded; the message says why in words an API user can act on."""


class Refused(OSError):
    """A host name with no public address (an OSError, as aiohttp expects of a resolver)."""


class PublicResolver(AbstractResolver):
    """Answers only the public addresses of a host name.

    The connector connects to exactly the addresses its resolver answers, with the host name kept
    for SNI, certificate checks and the Host header. Filtering here checks the address that is
    used: a name that resolves to a public address for a check and to a private one for the
    connection (DNS rebinding) has no second lookup to slip through.
    """

    def __init__(self) -> None:
        self._resolver = DefaultResolver()

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        answers = [answer for answer in await self._resolver.resolve(host, port, family) if is_public(answer["host"])]
        if not answers:
            raise Refused(f"{host} has no public address")
        return answers

    async def close(self) -> None:
        await self._resolver.close()


class Downloader:
    """One client for every document download: https only, a size cap, one time limit for all hops.

    `allow_private` lets URLs reach private and local addresses, for test suites that serve their
    documents from localhost. `ssl_context` verifies servers (the system's trusted CAs by default).
    `plain_http` also takes http:// URLs: revocation information (CRLs) is signed, and published over http.
    """

    def __init__(
        self,
        *,
        max_bytes: int,
        timeout: float = 30,
        allow_private: bool = False,
        ssl_context: ssl.SSLContext | None = None,
        plain_http: bool = False,
    ) -> None:
        self.schemes = ("https", "http") if plain_http else ("https",)
        self.max_bytes = max_bytes
        self.timeout = timeout
        self.allow_private = allow_private
        self._ssl = ssl_context if ssl_context is not None else True
        self._client: aiohttp.ClientSession | None = None

    async def fetch(self, url: str) -> bytes:
        """The body of the document at `url`, following up to `MAX_REDIRECTS` redirects."""
        return (await self.download(url)).data

    async def download(self, url: str, *, max_bytes: int | None = None) -> Download:
        """`fetch`, with the media type the server gave (HTML renders need it: a stylesheet must say text/css);
        `max_bytes`, when given, a lower size cap than the downloader's."""
        limit = self.max_bytes if max_bytes is None else min(max_bytes, self.max_bytes)
        try:
            async with asyncio.timeout(self.timeout):
                return await self._follow(_parse(url, "The document URL is not a valid URL"), limit)
        except TimeoutError:
            raise DownloadError(
                f"The document URL did not deliver the document within {self.timeout:g} seconds"
            ) from None
        except aiohttp.ClientError as exc:
            raise DownloadError(_explain(exc)) from None

    async def close(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

    async def __aenter__(self) -> Downloader:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _follow(self, url: URL, limit: int) -> Download:
        for hop in range(MAX_REDIRECTS + 1):
            self._check(url, redirected=hop > 0)
            async with self._session().get(url, allow_redirects=False) as response:
                location = response.headers.get("Location")
                if response.status in REDIRECT_STATUSES and location:
                    url = response.url.join(_parse(location, "The document URL redirects to an invalid URL"))
                    continue
                if not 200 <= response.status < 300:
                    raise DownloadError(f"The document URL answered with HTTP status {_status(response.status)}")
                return Download(await self._read(response, limit), response.headers.get("Content-Type", ""))
        raise DownloadError(f"The document URL redirects more than {MAX_REDIRECTS} times")

    def _check(self, url: URL, *, redirected: bool) -> None:
        if url.scheme not in self.schemes or not url.host:
            raise DownloadError(
                "The document URL redirects to a URL that is not https://"
                if redirected
                else "The document URL must be an https:// URL"
            )
        # An address written in the URL is never resolved, so the resolver never sees it.
        if not self.allow_private and is_ip(url.host) and not is_public(url.host):
            raise DownloadError(PRIVATE)

    async def _read(self, response: aiohttp.ClientResponse, limit: int) -> bytes:
        if response.content_length is not None and response.content_length > limit:
            raise DownloadError(self._too_large(limit))
        body = bytearray()
        async for chunk in response.content.iter_chunked(64 * 1024):
            body += chunk
            if len(body) > limit:
                raise DownloadError(self._too_large(limit))
        return bytes(body)

    def _too_large(self, limit: int | None = None) -> str:
        limit = self.max_bytes if limit is None else limit
        size = f"{limit / 2**20:g} MB" if limit >= 2**20 else f"{limit} bytes"
        return f"The document at the URL is larger than the limit of {size}"

    def _session(self) -> aiohttp.ClientSession:
        if self._client is None:
            connector = aiohttp.TCPConnector(ssl=self._ssl, resolver=None if self.allow_private else PublicResolver())
            # No cookie jar: one account's download must not carry cookies another account's set.
            # No trust_env: a proxy would resolve and connect on its own, past the address check.
            self._client = aiohttp.ClientSession(
                connector=connector,
                cookie_jar=aiohttp.DummyCookieJar(),
                trust_env=False,
                timeout=aiohttp.ClientTimeout(total=None),
            )
        return self._client


def _parse(url: str, invalid: str) -> URL:
    try:
        return URL(url)
    except (ValueError, TypeError):
        raise DownloadError(invalid) from None


def _status(status: int) -> str:
    try:
        return f"{status} ({HTTPStatus(status).phrase})"
    except ValueError:
        return str(status)


def _explain(exc: aiohttp.ClientError) -> str:
    """A plain message for a failed download, naming no internals (addresses, library errors)."""
    if isinstance(exc, aiohttp.ClientConnectorDNSError):
        return PRIVATE if isinstance(exc.os_error, Refused) else "The host name of the document URL does not resolve"
    if isinstance(exc, aiohttp.ClientSSLError):
        return "The document URL's server has no valid TLS certificate for its name"
    if isinstance(exc, aiohttp.ClientConnectorError):
        return "The document URL's server could not be reached"
    if isinstance(exc, aiohttp.InvalidURL):
        return "The document URL is not a valid URL"
    return "The document URL's server broke off the download"
