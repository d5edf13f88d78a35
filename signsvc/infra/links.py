"""Signed links: to a stored file (`{site}/file/{token}/{filename}`) and to a submission's documents page
(`{site}/e/{token}`). A token carries what it names and its expiry time, signed with the service's secret key, so a
link needs no lookup to check and cannot be forged. Signing reads no database: the wire shapes sign the links
they show with this alone."""

from __future__ import annotations

import base64
import hashlib
import hmac
from datetime import timedelta

from signsvc.infra import errors
from signsvc.infra.clock import Clock
from signsvc.infra.urls import Urls, file_path

LINK_LIFETIME = timedelta(minutes=40)
DOCUMENTS_PAGE = "documents-page:"  # signed apart from file links: one kind of link never opens the other


class Links:
    def __init__(self, secret_key: str, clock: Clock, urls: Urls) -> None:
        self._key = hashlib.sha256(f"file-links:{secret_key}".encode()).digest()
        self.clock, self.urls = clock, urls

    def link(self, blob_uuid: str, filename: str) -> str:
        """A link to the stored file, valid for 40 minutes from now."""
        return self.urls.file(self._token(blob_uuid), filename)

    def path(self, blob_uuid: str, filename: str) -> str:
        """The link's path on the site, for the service's own pages."""
        return file_path(self._token(blob_uuid), filename)

    def documents_page(self, submission_slug: str) -> str:
        """A link to a submission's documents page, valid for 40 minutes from now."""
        payload = f"{submission_slug}.{self._expires()}"
        return self.urls.documents_page(f"{payload}.{self._sign(DOCUMENTS_PAGE + payload)}")

    def open_documents_page(self, token: str) -> str:
        """The submission slug a documents-page link names: 404 for a link not issued here, 403 once it
        expired."""
        return self._opened(token, DOCUMENTS_PAGE)

    def open_file(self, token: str) -> str:
        """The uuid of the file a link names: 404 for a link not issued here, 403 once it expired."""
        return self._opened(token, "")

    @staticmethod
    def expires(token: str) -> int:
        """When a file link's token expires, in seconds since the epoch (a token `open_file` took)."""
        return int(token.rpartition(".")[0].partition(".")[2])

    def _token(self, blob_uuid: str) -> str:
        """The signed token of a link to the file, valid for 40 minutes from now."""
        payload = f"{blob_uuid}.{self._expires()}"
        return f"{payload}.{self._sign(payload)}"

    def _expires(self) -> int:
        return int((self.clock.now() + LINK_LIFETIME).timestamp())

    def _opened(self, token: str, kind: str) -> str:
        payload, _, signature = token.rpartition(".")
        named, _, expires = payload.partition(".")
        if not expires.isdigit() or not _same(signature, self._sign(kind + payload)):
            raise errors.NotFound()
        if int(expires) <= self.clock.now().timestamp():
            raise errors.NotAuthorized()
        return named

    def _sign(self, payload: str) -> str:
        digest = hmac.new(self._key, payload.encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def _same(given: str, expected: str) -> bool:
    """A signature from a link against the one expected, in constant time (a link may hold any text)."""
    return hmac.compare_digest(given.encode(), expected.encode())
