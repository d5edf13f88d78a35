"""The service's public addresses: every link it hands out (in API answers, emails, webhook payloads, the console
and the command line) is built here from the site URL (`SIGNSVC_SITE_URL`), which the app gives once.

The site URL may carry a path (`https://example.com/sign`): every address goes under it. The links that need a
token (a file's, the documents page's, a console user's) are signed or issued where they are kept; this only
places the token.
"""

from __future__ import annotations

from urllib.parse import quote, urlsplit


class Urls:
    def __init__(self, site_url: str) -> None:
        self.site = site_url.rstrip("/")

    @property
    def host(self) -> str:
        """The site's host name, for the emails' sender and message ids."""
        return urlsplit(self.site).hostname or "localhost"

    @property
    def secure(self) -> bool:
        """Served over https: cookies are marked secure."""
        return self.site.startswith("https://")

    def api(self) -> str:
        """The API's base address."""
        return f"{self.site}/api"

    def signing_form(self, submitter_slug: str) -> str:
        """A submitter's signing form: whoever holds it can sign."""
        return f"{self.site}/s/{submitter_slug}"

    def phone_handoff(self, token: str) -> str:
        """A one-time page that lets a signer draw one field on a phone."""
        return f"{self.site}/p/{token}"

    def embedded_form(self, submitter_slug: str) -> str:
        """The signing form to embed in another site's page."""
        return f"{self.site}/apiemb/{submitter_slug}"

    def documents_page(self, token: str) -> str:
        """A submission's documents page, by the signed token that names it (`Links.documents_page`)."""
        return f"{self.site}/e/{token}"

    def file(self, token: str, filename: str) -> str:
        """A stored file, by the signed token that names it (`Links.link`)."""
        return self.site + file_path(token, filename)

    def clickwrap(self, clickwrap_slug: str) -> str:
        """A clickwrap's public page."""
        return f"{self.site}/c/{clickwrap_slug}"

    def console_link(self, purpose: str, token: str) -> str:
        """A console user's one-time link (`setup` or `reset`)."""
        return f"{self.site}/console/{purpose}/{token}"


def file_path(token: str, filename: str) -> str:
    """A stored file's path on the site, for the service's own pages."""
    return f"/file/{token}/{quote(filename)}"
