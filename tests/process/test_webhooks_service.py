"""Webhooks with real `python run.py` processes: deliveries survive SIGKILL, two processes on one
Postgres share them without concurrent duplicates, and the management commands."""

import asyncio
import re
import time

import aiohttp
import pytest

from signsvc.app import configure_webhooks
from signsvc.infra.clock import ManualClock
from signsvc.infra.config import Config
from signsvc.webhooks.endpoints import WebhookEndpoints
from tests.support import service
from tests.support.databases import BACKENDS, NO_POSTGRES, POSTGRES_URL, open_db
from tests.support.documents import b64, pdf

KEY = "service-test-key-0000000000000000000000000"


def environment(database_url, tmp_path, receiver):
    return {
        "SIGNSVC_DATABASE_URL": database_url,
        "SIGNSVC_DATA_DIR": str(tmp_path / "data"),
        "SIGNSVC_API_KEY": KEY,
        "SIGNSVC_RATE_LIMIT_PER_KEY": "0",
        "SIGNSVC_RATE_LIMIT_PER_IP": "0",
        "SIGNSVC_WEBHOOK_URL": receiver.url("/hook"),
    }


async def create_template(api: str) -> int:
    async with aiohttp.ClientSession(headers={"X-Auth-Token": KEY}) as session:
        body = {"name": "NDA", "documents": [{"name": "nda.pdf", "file": b64(pdf())}]}
        async with session.post(f"{api}/templates", json=body) as response:
            assert response.status == 201, await response.text()
            return (await response.json())["id"]


async def update_template(apis: list[str], template_id: int, count: int) -> None:
    """`count` template.updated events, spread over the given API bases, 25 requests at a time."""
    async with aiohttp.ClientSession(headers={"X-Auth-Token": KEY}) as session:

        async def update(n: int) -> None:
            async with session.put(f"{apis[n % len(apis)]}/templates/{template_id}", json={"name": f"v{n}"}) as reply:
                assert reply.status == 200, await reply.text()

        for start in range(0, count, 25):
            await asyncio.gather(*(update(n) for n in range(start, min(start + 25, count))))


async def pending_and_failed(api: str) -> list[dict]:
    async with aiohttp.ClientSession(headers={"X-Auth-Token": KEY}) as session:
        found = []
        for status in ("pending", "failed"):
            async with session.get(f"{api}/webhooks/1/deliveries?status={status}") as reply:
                found += (await reply.json())["data"]
        return found


async def until_none_pending_or_failed(api: str, timeout: float = 30) -> list[dict]:
    """The deliveries the log shows pending or failed, polled until there are none or `timeout` runs out.
    A delivery's outcome is recorded a moment after the receiver answered it, so right after the receiver
    has seen every event the last ones may still show as pending."""
    deadline = time.monotonic() + timeout
    while (left := await pending_and_failed(api)) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    return left


def event_ids(requests) -> set[str]:
    return {request.headers["X-Service-Event-Id"] for request in requests}


async def test_deliveries_pending_when_the_service_is_killed_go_out_after_a_restart(database_url, tmp_path, receiver):
    env = environment(database_url, tmp_path, receiver)
    # The template comes from an earlier run without the endpoint: the process that is killed then
    # starts no PDF workers, which would outlive it.
    earlier = await service.start(**{**env, "SIGNSVC_WEBHOOK_URL": ""})
    template_id = await create_template(earlier.api)
    await earlier.stop()
    receiver.script("/hook", *["hang"] * 1000)  # nothing is acknowledged: every delivery stays pending
    first = await service.start(**env)
    try:
        await update_template([first.api], template_id, 500)
        await receiver.wait_for(1)
    finally:
        first.process.kill()
        await asyncio.wait_for(first.process.wait(), 30)
    killed_at = len(receiver.received)
    receiver.script("/hook")  # from now on every request is answered 200
    await service.expire_leases(database_url)
    second = await service.start(**env)
    try:
        await receiver.wait_until(lambda received: len(event_ids(received[killed_at:])) == 500, timeout=60)
        assert await until_none_pending_or_failed(second.api) == []
    finally:
        await second.stop()


@pytest.mark.skipif(not POSTGRES_URL, reason=NO_POSTGRES)
@pytest.mark.parametrize("backend", [b for b in BACKENDS if b != "sqlite"], indirect=True)
async def test_two_processes_on_one_postgres_deliver_each_event_once_to_each_endpoint(database_url, tmp_path, receiver):
    env = environment(database_url, tmp_path, receiver)
    receiver.pause = 0.02
    first = await service.start(**env)
    second = await service.start(**env)
    try:
        hook = {"url": receiver.url("/other"), "events": ["template.updated"]}
        async with (
            aiohttp.ClientSession(headers={"X-Auth-Token": KEY}) as session,
            session.post(f"{second.api}/webhooks", json=hook) as reply,
        ):
            assert reply.status == 200
        await update_template([first.api, second.api], await create_template(first.api), 150)
        await receiver.wait_for(151 + 150, timeout=60)
    finally:
        # Stopping lets every attempt under way finish, so a duplicate would be counted below.
        await asyncio.gather(first.stop(), second.stop())
    hook, other = [
        [r.headers["X-Service-Event-Id"] for r in receiver.received if r.path == path] for path in ("/hook", "/other")
    ]
    assert (len(hook), len(set(hook)), len(other), len(set(other))) == (151, 151, 150, 150)
    assert receiver.overlapping == []


async def test_management_commands_for_webhook_endpoints(database_url, tmp_path):
    env = {"SIGNSVC_DATABASE_URL": database_url, "SIGNSVC_DATA_DIR": str(tmp_path / "data")}
    run = service.run
    code, out, err = await run(
        "webhooks", "create", "https://hooks.example.com/a", "--secret-header", "X-Secret", "--secret", "s" * 20, **env
    )
    assert code == 0, err
    assert "webhook endpoint 1 created: https://hooks.example.com/a (form.viewed, form.started" in out
    assert err == "warning: secret.value has 20 characters; 32 or more random characters are recommended\n"
    code, out, _ = await run("webhooks", "create", "https://hooks.example.com/t", "--test", "--events", "all", **env)
    assert code == 0 and "webhook endpoint 2 created" in out
    code, out, _ = await run("webhooks", "update", "1", "--events", "form.completed,template.updated", **env)
    assert code == 0 and "(form.completed, template.updated)" in out
    code, out, _ = await run("webhooks", "list", **env)
    assert re.findall(r"^\d+\t.*$", out, re.MULTILINE) == [
        "1\thttps://hooks.example.com/a\tform.completed,template.updated\tsecret in X-Secret"
    ]
    code, out, _ = await run("webhooks", "list", "--test", **env)
    assert out.startswith("2\thttps://hooks.example.com/t\tform.viewed,")
    code, out, _ = await run("webhooks", "deliveries", "1", **env)
    assert (code, out) == (0, "")
    code, _, err = await run("webhooks", "resend", "1", "9", **env)
    assert (code, err) == (1, "signsvc: Delivery 9 of webhook endpoint 1 not found\n")
    code, _, err = await run("webhooks", "test", "1", **env)
    assert code == 1 and err.startswith("signsvc: No signer of this account has completed yet")
    code, _, err = await run("webhooks", "create", "ftp://hooks.example.com/a", **env)
    assert code == 1 and err.startswith("signsvc: url must be an http:// or https:// URL with a host (RFC 3986")
    code, out, _ = await run("webhooks", "delete", "1", **env)
    assert (code, out) == (0, "webhook endpoint 1 (https://hooks.example.com/a) deleted\n")
    code, _, err = await run("webhooks", "delete", "1", **env)
    assert (code, err) == (1, "signsvc: Webhook endpoint 1 not found\n")


async def test_the_commands_refuse_a_private_url_when_only_public_ones_are_allowed(tmp_path):
    env = {"SIGNSVC_DATABASE_URL": f"sqlite:///{tmp_path / 'signsvc.sqlite3'}", "SIGNSVC_WEBHOOK_PUBLIC_ONLY": "true"}
    code, _, err = await service.run("webhooks", "create", "http://10.0.0.5/hook", **env)
    assert (code, err) == (
        1,
        "signsvc: url must point to a public address: 10.0.0.5 is a private or local network "
        "address (SIGNSVC_WEBHOOK_PUBLIC_ONLY allows only public ones)\n",
    )
    code, _, _ = await service.run("webhooks", "create", "https://93.184.215.14/hook", **env)
    assert code == 0
    code, _, err = await service.run("webhooks", "update", "1", "--url", "http://localhost/hook", **env)
    assert (code, err) == (
        1,
        "signsvc: url must point to a public address: localhost resolves to a private or local "
        "network address (SIGNSVC_WEBHOOK_PUBLIC_ONLY allows only public ones)\n",
    )


async def test_a_management_command_leaves_the_configured_endpoint_alone(database_url, tmp_path):
    """Only a serving process applies SIGNSVC_WEBHOOK_URL; a command run without it removes nothing."""
    env = {"SIGNSVC_DATABASE_URL": database_url, "SIGNSVC_DATA_DIR": str(tmp_path / "data")}
    assert (await service.run("migrate", **env))[0] == 0
    db = await open_db(database_url)
    try:
        await configure_webhooks(WebhookEndpoints(db, ManualClock()), Config(webhook_url="http://127.0.0.1:9/hook"))
    finally:
        await db.close()
    code, out, _ = await service.run("webhooks", "list", **env)
    assert code == 0 and out.startswith("1\thttp://127.0.0.1:9/hook\tform.viewed,") and "configured at start" in out
