"""Documents given as URLs, from a real local HTTPS server."""

import asyncio
import socket
import ssl
from dataclasses import dataclass

import pytest
from aiohttp import web

from signsvc.infra import downloads
from signsvc.infra.downloads import PRIVATE, Downloader, DownloadError
from tests.support.https import OTHER_HOST, server_ssl

DOCUMENT = b"%PDF-1.7 a small document"
LIMIT = 1000


def document_app(release: asyncio.Event) -> web.Application:
    """Serves the document and every way a download can go wrong; slow handlers wait for `release`."""

    async def document(request):
        return web.Response(body=DOCUMENT)

    async def redirects(request):
        left = int(request.match_info["left"])
        raise web.HTTPFound(f"/redirects/{left - 1}" if left > 1 else "/document")

    async def to(request):
        raise web.HTTPFound(request.query["location"])

    async def sized(request):
        return web.Response(body=b"x" * int(request.match_info["size"]))

    async def declared_large(request):
        response = web.StreamResponse(headers={"Content-Length": str(LIMIT + 1)})
        await response.prepare(request)
        await release.wait()
        return response

    async def chunked(request):
        response = web.StreamResponse()
        response.enable_chunked_encoding()
        await response.prepare(request)
        for _ in range(int(request.match_info["chunks"])):
            await response.write(b"x" * 100)
        await response.write_eof()
        return response

    async def slow(request):
        await release.wait()
        return web.Response(body=DOCUMENT)

    async def slow_body(request):
        response = web.StreamResponse(headers={"Content-Length": "100"})
        await response.prepare(request)
        await response.write(b"x" * 10)
        await release.wait()
        return response

    app = web.Application()
    app.router.add_routes(
        [
            web.get("/document", document),
            web.get("/redirects/{left}", redirects),
            web.get("/to", to),
            web.get("/sized/{size}", sized),
            web.get("/declared-large", declared_large),
            web.get("/chunked/{chunks}", chunked),
            web.get("/slow", slow),
            web.get("/slow-body", slow_body),
        ]
    )
    return app


@dataclass(frozen=True)
class Server:
    local: str
    other: str
    local_port: int

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"{self.other if host == OTHER_HOST else self.local.replace('127.0.0.1', host)}{path}"


@pytest.fixture
async def server(certificate, tmp_path):
    """One HTTPS server listening on 127.0.0.1 and on 127.0.0.2."""
    release = asyncio.Event()
    runner = web.AppRunner(document_app(release))
    await runner.setup()
    context = server_ssl(certificate, tmp_path)
    for host in ("127.0.0.1", OTHER_HOST):
        await web.TCPSite(runner, host, 0, ssl_context=context).start()
    (_, local_port), (_, other_port) = runner.addresses
    yield Server(f"https://127.0.0.1:{local_port}", f"https://{OTHER_HOST}:{other_port}", local_port)
    release.set()
    await runner.cleanup()


@pytest.fixture
async def downloader(client_ssl):
    """Makes downloaders trusting the test server, private addresses allowed unless told otherwise."""
    made = []

    def make(**settings) -> Downloader:
        made.append(Downloader(**{"max_bytes": LIMIT, "allow_private": True, "ssl_context": client_ssl, **settings}))
        return made[-1]

    yield make
    for each in made:
        await each.close()


async def refused(downloader: Downloader, url: str) -> str:
    with pytest.raises(DownloadError) as failure:
        await downloader.fetch(url)
    assert failure.value.status == 422
    return failure.value.message


async def test_a_document_downloads_from_an_https_url(server, downloader):
    assert await downloader().fetch(server.url("/document")) == DOCUMENT


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
async def test_a_loopback_host_is_refused_unless_private_addresses_are_allowed(server, downloader, host):
    assert await refused(downloader(allow_private=False), server.url("/document", host)) == (
        "The document URL points to a private or local network address; only public addresses are allowed"
    )
    assert await downloader(allow_private=True).fetch(server.url("/document", host)) == DOCUMENT


@pytest.mark.parametrize(
    "host", ["[::1]", "[::ffff:127.0.0.1]", "[fe80::1%25eth0]", "0x7f000001", "127.1", "2130706433"]
)
async def test_a_loopback_address_in_disguise_is_refused(downloader, host):
    message = await refused(downloader(allow_private=False), f"https://{host}/document")
    assert message in (PRIVATE, "The document URL is not a valid URL")


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/document",
        "ftp://example.com/a.pdf",
        "file:///etc/passwd",
        "example.com/a.pdf",
        "https:///a.pdf",
    ],
)
async def test_only_https_urls_are_downloaded(downloader, url):
    assert await refused(downloader(), url) == "The document URL must be an https:// URL"


async def test_a_redirect_to_http_is_refused(server, downloader):
    url = server.url(f"/to?location=http://127.0.0.1:{server.local_port}/document")
    assert await refused(downloader(), url) == "The document URL redirects to a URL that is not https://"


@pytest.mark.parametrize("target", ["127.0.0.1", "localhost"])
async def test_a_redirect_to_a_private_address_is_refused(server, downloader, monkeypatch, target):
    # 127.0.0.2 stands in for a public server, so the first hop passes the check.
    public = downloads.is_public
    monkeypatch.setattr(downloads, "is_public", lambda address: address == OTHER_HOST or public(address))
    fetcher = downloader(allow_private=False)
    assert await fetcher.fetch(server.url("/document", OTHER_HOST)) == DOCUMENT
    url = server.url(f"/to?location=https://{target}:{server.local_port}/document", OTHER_HOST)
    assert await refused(fetcher, url) == PRIVATE


async def test_five_redirects_are_followed_and_a_sixth_is_refused(server, downloader):
    assert await downloader().fetch(server.url("/redirects/5")) == DOCUMENT
    assert await refused(downloader(), server.url("/redirects/6")) == "The document URL redirects more than 5 times"


async def test_a_document_of_exactly_the_limit_downloads(server, downloader):
    assert len(await downloader().fetch(server.url(f"/sized/{LIMIT}"))) == LIMIT


@pytest.mark.parametrize("path", [f"/sized/{LIMIT + 1}", "/declared-large", f"/chunked/{LIMIT // 100 + 1}"])
async def test_a_document_over_the_limit_is_refused(server, downloader, path):
    """A Content-Length over the limit is refused before the body arrives (/declared-large sends none)."""
    message = await refused(downloader(), server.url(path))
    assert message == "The document at the URL is larger than the limit of 1000 bytes"


async def test_the_limit_is_named_in_megabytes(server, downloader):
    big = downloader(max_bytes=64 * 2**20)
    assert big._too_large() == "The document at the URL is larger than the limit of 64 MB"


@pytest.mark.parametrize("path", ["/slow", "/slow-body"])
async def test_a_slow_server_is_given_up_on(server, downloader, path):
    message = await refused(downloader(timeout=0.2), server.url(path))
    assert message == "The document URL did not deliver the document within 0.2 seconds"


async def test_an_error_status_is_refused_naming_it(server, downloader):
    message = await refused(downloader(), server.url("/missing"))
    assert message == "The document URL answered with HTTP status 404 (Not Found)"


async def test_an_unreachable_server_is_refused(downloader):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    message = await refused(downloader(), f"https://127.0.0.1:{port}/document")
    assert message == "The document URL's server could not be reached"


async def test_a_host_name_that_does_not_resolve_is_refused(downloader):
    message = await refused(downloader(allow_private=False), "https://no-such-host.invalid/document")
    assert message == "The host name of the document URL does not resolve"


async def test_a_server_without_a_trusted_certificate_is_refused(server, downloader):
    message = await refused(downloader(ssl_context=ssl.create_default_context()), server.url("/document"))
    assert message == "The document URL's server has no valid TLS certificate for its name"
