"""Webhook endpoints are no tool for server-side request forgery: the test webhook and the delivery log say
how a delivery went (status code, time) but not what answered, and with SIGNSVC_WEBHOOK_PUBLIC_ONLY a URL
of a private or local address is refused when an endpoint is created or changed."""

import asyncio
import dataclasses
import socket
from collections.abc import AsyncIterator

import pytest
from aiohttp import web

from signsvc.app import create_app
from signsvc.http.appkeys import WORKER
from signsvc.infra.config import ConfigError
from signsvc.webhooks.delivery import NO_ANSWER
from tests.support.app import Api
from tests.support.signing import send, template

BANNER = b"SSH-2.0-OpenSSH_9.6 internal-db-01\r\n"
PUBLIC_URL = "https://93.184.215.14/hook"  # an address literal: nothing to resolve


def private(host: str, *, resolves: bool = False) -> str:
    verb = "resolves to" if resolves else "is"
    return (
        f"url must point to a public address: {host} {verb} a private or local network address "
        "(SIGNSVC_WEBHOOK_PUBLIC_ONLY allows only public ones)"
    )


async def add(api, url):
    return await api.post("/api/webhooks", json={"url": url, "events": ["form.completed"]})


async def with_a_completed_signer(api) -> None:
    """The test webhook is built from the account's latest completed signer."""
    await send(api, await template(api), {"email": "ann@example.com", "completed": True})


async def outcome_of_the_test_webhook(api, url) -> dict:
    """The test webhook's answer for a new endpoint at `url`."""
    reply = await add(api, url)
    assert reply.status == 200, reply.json
    reply = await api.post(f"/api/webhooks/{reply.json['id']}/test")
    assert reply.status == 200, reply.json
    return reply.json


@pytest.fixture
async def tcp_services() -> AsyncIterator[dict[str, str]]:
    """What may listen on an internal port, each as a URL: nothing (closed), a service that hangs up at once,
    one that is not HTTP and says so, one that never says anything."""
    done = asyncio.Event()

    async def hang_up(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.close()

    async def banner(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(BANNER)
        await writer.drain()
        writer.close()

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await done.wait()
        writer.close()

    servers = [await asyncio.start_server(handle, "127.0.0.1", 0) for handle in (hang_up, banner, silent)]
    ports = [server.sockets[0].getsockname()[1] for server in servers]
    yield {
        "closed": f"http://127.0.0.1:{closed_port()}/hook",
        "hang_up": f"http://127.0.0.1:{ports[0]}/hook",
        "banner": f"http://127.0.0.1:{ports[1]}/hook",
        "tls_to_banner": f"https://127.0.0.1:{ports[1]}/hook",
        "silent": f"http://127.0.0.1:{ports[2]}/hook",
    }
    done.set()
    for server in servers:
        server.close()


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def test_the_test_webhook_answers_the_status_and_time_but_not_the_body(api, receiver):
    receiver.script("/hook", 500)
    await with_a_completed_signer(api)
    outcome = await outcome_of_the_test_webhook(api, receiver.url())
    assert (outcome["delivered"], outcome["response_status"], outcome["error"]) == (False, 500, "HTTP 500")
    assert outcome["duration_ms"] >= 0
    assert "failure" not in str(outcome), "the receiver's answer was 'failure 500'"


async def test_the_test_webhook_does_not_tell_a_closed_port_from_an_open_one(make_app, aiohttp_client, tcp_services):
    api = Api(await aiohttp_client(make_app(webhook_timeout_seconds=0.5)))
    await with_a_completed_signer(api)
    outcomes = {name: await outcome_of_the_test_webhook(api, url) for name, url in tcp_services.items()}
    assert {name: (o["delivered"], o["response_status"], o["error"]) for name, o in outcomes.items()} == dict.fromkeys(
        tcp_services, (False, None, NO_ANSWER)
    )


async def test_the_delivery_log_does_not_keep_what_a_service_said(api, tcp_services):
    reply = await add(api, tcp_services["banner"])
    await with_a_completed_signer(api)
    await api.app[WORKER].drain()
    [delivery] = (await api.get(f"/api/webhooks/{reply.json['id']}/deliveries")).json["data"]
    assert [(a["response_status"], a["error"]) for a in delivery["attempts"]] == [(None, NO_ANSWER)]


@pytest.mark.parametrize(
    "url,message",
    [
        ("http://127.0.0.1:8080/hook", private("127.0.0.1")),
        ("http://10.0.0.5/hook", private("10.0.0.5")),
        ("http://169.254.169.254/latest/meta-data/", private("169.254.169.254")),
        ("http://[::1]:8080/hook", private("::1")),
        ("http://[::ffff:10.0.0.5]/hook", private("::ffff:a00:5")),
        ("http://[64:ff9b::a9fe:a9fe]/latest/meta-data/", private("64:ff9b::a9fe:a9fe")),
        ("http://[2002:c0a8:10a::]/hook", private("2002:c0a8:10a::")),
        ("http://localhost:8080/hook", private("localhost", resolves=True)),
        ("http://2130706433/hook", private("2130706433", resolves=True)),  # 127.0.0.1 as one number
    ],
)
async def test_public_only_refuses_a_private_url_at_creation_naming_the_rule(make_app, aiohttp_client, url, message):
    api = Api(await aiohttp_client(make_app(webhook_public_only=True)))
    reply = await add(api, url)
    assert (reply.status, reply.json) == (422, {"error": message})
    assert (await api.get("/api/webhooks")).json["data"] == []


async def test_public_only_refuses_a_private_url_in_an_update(make_app, aiohttp_client):
    api = Api(await aiohttp_client(make_app(webhook_public_only=True)))
    endpoint = (await add(api, PUBLIC_URL)).json
    reply = await api.put(f"/api/webhooks/{endpoint['id']}", json={"url": "http://192.168.1.10/hook"})
    assert (reply.status, reply.json) == (422, {"error": private("192.168.1.10")})
    assert (await api.get(f"/api/webhooks/{endpoint['id']}")).json["url"] == PUBLIC_URL


async def test_public_only_refuses_a_name_that_resolves_to_nothing_and_stores_nothing(make_app, aiohttp_client):
    api = Api(await aiohttp_client(make_app(webhook_public_only=True)))
    reply = await add(api, "https://nothing.invalid/hook")
    assert reply.status == 422
    assert reply.json == {
        "error": "url must point to a public address: nothing.invalid does not resolve to any "
        "address (looked up for at most 5 seconds)"
    }
    assert (await api.get("/api/webhooks")).json["data"] == []
    endpoint = (await add(api, PUBLIC_URL)).json
    reply = await api.put(f"/api/webhooks/{endpoint['id']}", json={"url": "https://hooks.nothing.invalid/hook"})
    assert reply.status == 422 and "does not resolve" in reply.json["error"]
    assert (await api.get(f"/api/webhooks/{endpoint['id']}")).json["url"] == PUBLIC_URL


async def public_site(config, clock, db, pdf_pool, aiohttp_client, **changes) -> Api:
    """The app as a deployment starts it: SIGNSVC_WEBHOOK_PUBLIC_ONLY not set."""
    settings = dataclasses.replace(config, webhook_public_only=None, **changes)
    return Api(await aiohttp_client(create_app(settings, clock=clock, db=db, pool=pdf_pool, background=False)))


async def test_public_only_is_on_by_default_for_a_site_that_is_not_on_a_loopback_address(
    config, clock, db, pdf_pool, aiohttp_client
):
    api = await public_site(config, clock, db, pdf_pool, aiohttp_client, site_url="https://sign.example.com")
    reply = await add(api, "http://127.0.0.1:8080/hook")
    assert (reply.status, reply.json) == (422, {"error": private("127.0.0.1")})


@pytest.mark.parametrize(
    "changes",
    [
        {"site_url": "http://127.0.0.1:3000"},
        {"site_url": "http://localhost:3000"},
        {"site_url": "http://[::1]:3000"},
        {"site_url": "https://sign.example.com", "testing": True},
    ],
    ids=["ipv4", "localhost", "ipv6", "testing"],
)
async def test_public_only_is_off_by_default_on_a_loopback_site_or_with_the_testing_extension(
    config, clock, db, pdf_pool, aiohttp_client, changes
):
    api = await public_site(config, clock, db, pdf_pool, aiohttp_client, **changes)
    assert (await add(api, "http://127.0.0.1:8080/hook")).status == 200


async def test_public_only_refuses_a_private_configured_url_at_start(make_app):
    runner = web.AppRunner(make_app(webhook_url="http://127.0.0.1:9/hook", webhook_public_only=True))
    try:
        with pytest.raises(ConfigError) as refused:
            await runner.setup()
    finally:
        await runner.cleanup()
    assert str(refused.value) == f"SIGNSVC_WEBHOOK_* settings: {private('127.0.0.1')}"
