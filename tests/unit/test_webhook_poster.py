"""The webhook deliveries' HTTP client (signsvc/webhooks/poster.py) against real local servers that answer as
scripted: how it frames answers, when it keeps a connection, what it refuses."""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncIterator, Callable

import pytest
from aiohttp import web

from signsvc.webhooks.poster import InvalidUrl, NoAddress, NoAnswer, Poster
from tests.support.https import Certificate

OK = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"


class Scripted:
    """A raw HTTP/1.1 server: each request read whole, then `answer(n)` written (n counts the requests);
    `close_after` hangs up after each answer."""

    def __init__(self, answer: Callable[[int], bytes], close_after: bool = False) -> None:
        self.answer, self.close_after = answer, close_after
        self.connections = 0
        self.requests: list[bytes] = []

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = int(
                    next(line.split(b":")[1] for line in head.split(b"\r\n") if line.startswith(b"Content-Length"))
                )
                self.requests.append(head + await reader.readexactly(length))
                writer.write(self.answer(len(self.requests)))
                await writer.drain()
                if self.close_after:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


@pytest.fixture
async def serve() -> AsyncIterator[Callable[..., object]]:
    servers: list[asyncio.Server] = []

    async def start(scripted: Scripted) -> str:
        server = await asyncio.start_server(scripted.handle, "127.0.0.1", 0)
        servers.append(server)
        return f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/hook?a=1"

    yield start
    for server in servers:
        server.close()


async def test_a_connection_is_kept_between_posts_to_one_origin(serve):
    scripted = Scripted(lambda n: OK)
    url = await serve(scripted)
    poster = Poster(public_only=False)
    assert [await poster.post(url, b"{}", {"Content-Type": "application/json"}) for _ in range(3)] == [200] * 3
    assert scripted.connections == 1
    assert scripted.requests[0].startswith(b"POST /hook?a=1 HTTP/1.1\r\nHost: 127.0.0.1:")
    assert b"\r\nContent-Type: application/json\r\nContent-Length: 2\r\n" in scripted.requests[0]
    assert scripted.requests[0].endswith(b"\r\n\r\n{}")
    await poster.close()


@pytest.mark.parametrize(
    "answer",
    [
        b"HTTP/1.1 204 No Content\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n3;x=y\r\n!!!\r\n0\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-Trailer: 1\r\n\r\n",
        b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
        b"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n",
    ],
    ids=["no body", "chunked", "chunked with trailers", "interim answer first", "HTTP/1.0 kept alive"],
)
async def test_an_answer_that_came_whole_leaves_the_connection_for_the_next_post(serve, answer):
    scripted = Scripted(lambda n: answer)
    url = await serve(scripted)
    poster = Poster(public_only=False)
    assert await poster.post(url, b"a", {}) == await poster.post(url, b"b", {})
    assert scripted.connections == 1
    await poster.close()


@pytest.mark.parametrize(
    "answer",
    [
        b"HTTP/1.1 500 Oops\r\nContent-Length: 100000\r\n\r\npartial",
        b"HTTP/1.1 500 Oops\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
        b"HTTP/1.0 500 Oops\r\nContent-Length: 0\r\n\r\n",
        b"HTTP/1.1 500 Oops\r\n\r\nread to the close",
    ],
    ids=["body still coming", "connection: close", "HTTP/1.0", "no length"],
)
async def test_the_status_comes_with_the_head_and_a_connection_not_reusable_is_closed(serve, answer):
    scripted = Scripted(lambda n: answer)
    url = await serve(scripted)
    poster = Poster(public_only=False)
    assert [await poster.post(url, b"{}", {}) for _ in range(2)] == [500, 500]
    assert scripted.connections == 2
    await poster.close()


async def test_a_kept_connection_the_receiver_closed_is_replaced_and_the_post_made_once_on_the_new_one(serve):
    scripted = Scripted(lambda n: OK, close_after=True)  # hangs up without saying so, as idle timeouts do
    url = await serve(scripted)
    poster = Poster(public_only=False)
    await poster.post(url, b"1", {})
    # Whether the hang-up reached the client before the second post (the connection is not taken) or not (the
    # post meets the closed connection and goes again on a new one), it is made once.
    assert await poster.post(url, b"2", {}) == 200
    assert [request[-1:] for request in scripted.requests] == [b"1", b"2"]
    await poster.close()


@pytest.mark.parametrize(
    "answer", [b"SSH-2.0-OpenSSH_9.2\r\n\r\n", b"HTTP/1.1 200 OK\r\n" + b"X: y\r\n" * 20_000], ids=["banner", "head"]
)
async def test_what_is_not_an_http_answer_is_no_answer(serve, answer):
    url = await serve(Scripted(lambda n: answer))
    with pytest.raises(NoAnswer):
        await Poster(public_only=False).post(url, b"{}", {})


@pytest.mark.parametrize("url", ["ftp://example.com/x", "http:///nohost", "not a url", "http://[::1/x"])
async def test_only_http_and_https_urls_with_a_host_are_posted_to(url):
    with pytest.raises(InvalidUrl):
        await Poster(public_only=False).post(url, b"{}", {})


@pytest.mark.parametrize(
    "headers", [{"X-Secret": "a\r\nX-Injected: 1"}, {"X-Secret\r\nX": "a"}, {"X Secret": "a"}, {"X": "a\nb"}]
)
async def test_a_header_that_would_break_the_request_is_refused_before_anything_is_sent(serve, headers):
    scripted = Scripted(lambda n: OK)
    url = await serve(scripted)
    with pytest.raises(ValueError, match="header"):
        await Poster(public_only=False).post(url, b"{}", headers)
    assert scripted.connections == 0


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "[::1]", "10.1.2.3"])
async def test_public_only_connects_to_no_private_or_local_address(serve, host):
    scripted = Scripted(lambda n: OK)
    url = (await serve(scripted)).replace("127.0.0.1", host)
    with pytest.raises(NoAddress):
        await Poster(public_only=True).post(url, b"{}", {})
    assert scripted.connections == 0


async def test_https_checks_the_receivers_certificate(certificate: Certificate, client_ssl, tmp_path):
    (tmp_path / "cert.pem").write_bytes(certificate.cert_pem)
    (tmp_path / "key.pem").write_bytes(certificate.key_pem)
    server_tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_tls.load_cert_chain(tmp_path / "cert.pem", tmp_path / "key.pem")

    async def accepted(request: web.Request) -> web.Response:
        return web.Response(status=202)

    app = web.Application()
    app.router.add_post("/hook", accepted)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=server_tls)
    await site.start()
    url = f"https://localhost:{runner.addresses[0][1]}/hook"
    try:
        trusting = Poster(public_only=False, tls=client_ssl)
        assert [await trusting.post(url, b"{}", {}) for _ in range(2)] == [202, 202]
        await trusting.close()
        with pytest.raises(ssl.SSLCertVerificationError):
            await Poster(public_only=False).post(url, b"{}", {})
    finally:
        await runner.cleanup()


@pytest.mark.parametrize("size", [b"-6", b"+5", b"0x5", b"5_0", b" ", b"fffffffffffffffff"])
async def test_a_chunk_size_that_is_not_plain_hex_ends_the_connection_without_stalling(serve, size):
    """A receiver's `-6` once sent the parser back where it started, forever, on the event loop."""
    answer = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + size + b"\r\nabcdef\r\n0\r\n\r\n"
    scripted = Scripted(lambda n: answer)
    url = await serve(scripted)
    poster = Poster(public_only=False)
    assert [await asyncio.wait_for(poster.post(url, b"{}", {}), 5) for _ in range(2)] == [200, 200]
    assert scripted.connections == 2
    await poster.close()


@pytest.mark.parametrize(
    "answer",
    [
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nokXX0\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunkedX\r\n\r\n0\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\n0\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok",
        b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
    ],
    ids=["chunk without its CRLF", "not chunked", "chunked not last", "two lengths", "negative length"],
)
async def test_an_answer_framed_in_a_way_this_client_does_not_read_closes_its_connection(serve, answer):
    scripted = Scripted(lambda n: answer)
    url = await serve(scripted)
    poster = Poster(public_only=False)
    assert [await poster.post(url, b"{}", {}) for _ in range(2)] == [200, 200]
    assert scripted.connections == 2
    await poster.close()


async def test_a_status_line_without_a_reason_phrase_is_an_answer(serve):
    url = await serve(Scripted(lambda n: b"HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n"))
    assert await Poster(public_only=False).post(url, b"{}", {}) == 200


async def test_credentials_in_the_url_are_sent_as_basic_authorization(serve):
    scripted = Scripted(lambda n: OK)
    url = (await serve(scripted)).replace("http://", "http://hook%40user:p%3Ass@")
    assert await Poster(public_only=False).post(url, b"{}", {}) == 200
    assert b"\r\nAuthorization: Basic aG9va0B1c2VyOnA6c3M=\r\n" in scripted.requests[0]  # hook@user:p:ss
    with pytest.raises(ValueError, match="Authorization"):
        await Poster(public_only=False).post(url, b"{}", {"Authorization": "Bearer x"})


async def test_an_authorization_header_of_the_endpoint_is_sent_as_given(serve):
    scripted = Scripted(lambda n: OK)
    url = await serve(scripted)
    assert await Poster(public_only=False).post(url, b"{}", {"Authorization": "Bearer x"}) == 200
    assert b"\r\nAuthorization: Bearer x\r\n" in scripted.requests[0]


@pytest.mark.parametrize("name", ["Host", "content-length", "Transfer-Encoding", "Connection"])
async def test_headers_that_frame_the_request_are_the_clients_own(serve, name):
    url = await serve(Scripted(lambda n: OK))
    with pytest.raises(ValueError, match="written by the client"):
        await Poster(public_only=False).post(url, b"{}", {name: "x"})
