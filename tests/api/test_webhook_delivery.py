"""Webhook deliveries: signed POSTs to a real local receiver, retries on the spec's
schedule with the clock moved (nothing sleeps), the delivery log, resend, and bad receivers."""

import asyncio
import hashlib
import hmac
from datetime import timedelta
from urllib.parse import urlencode

import pytest

import storage.events as stored_events
import storage.webhooks as stored
from signsvc.http.appkeys import DELIVERER, WORKER
from signsvc.infra import jobs
from signsvc.webhooks import events
from signsvc.webhooks.delivery import NO_ANSWER
from signsvc.webhooks.signature import verify
from storage.records import DeliveryStatus
from tests.support.app import START, TEST_KEY, Api
from tests.support.documents import b64, pdf

SECRET = "whsec-" + "k" * 40


async def add_endpoint(api, url, events=("template.created", "template.updated"), **body):
    reply = await api.post("/api/webhooks", json={"url": url, "events": list(events), **body})
    assert reply.status == 200, reply.json
    return reply.json


async def create_template(api, name="NDA"):
    reply = await api.post(
        "/api/templates", json={"name": name, "documents": [{"name": "nda.pdf", "file": b64(pdf())}]}
    )
    assert reply.status == 201, reply.json
    return reply.json


async def log(api, endpoint_id=1, **query):
    """The endpoint's delivery log (its first page)."""
    reply = await api.get(f"/api/webhooks/{endpoint_id}/deliveries?" + urlencode(query))
    assert reply.status == 200, reply.json
    return reply.json["data"]


def deliver_handler(api):
    """The job handler that sends a delivery, as the worker calls it."""
    [kind] = api.app[DELIVERER].kinds()
    return kind.handler


async def test_a_delivery_is_the_signed_envelope_byte_for_byte(api, worker, receiver, db):
    await add_endpoint(api, receiver.url(), secret={"header": "X-Webhook-Secret", "value": SECRET})
    template = await create_template(api)
    await worker.drain()
    [received] = receiver.received
    [event] = await stored_events.list_events_of_record(db, "template", template["id"])
    record = (await api.get(f"/api/templates/{template['id']}")).body
    timestamp = str(int(START.timestamp()))
    assert received.body == (
        b'{"event_id":"%s","event_type":"template.created","timestamp":"2026-01-01T12:00:00.000Z",'
        b'"data":%s}' % (event.uuid.encode(), record)
    )
    signature = hmac.new(SECRET.encode(), f"{timestamp}.".encode() + received.body, hashlib.sha256).hexdigest()
    headers = received.headers
    assert headers["Content-Type"] == "application/json"
    assert (headers["X-Service-Event-Id"], headers["X-Service-Event-Type"]) == (event.uuid, "template.created")
    assert headers["X-Service-Timestamp"] == timestamp
    assert headers["X-Service-Signature"] == f"v1={signature}"
    assert headers["X-Webhook-Secret"] == SECRET
    assert verify(SECRET, received.body, headers, now=START.timestamp()) == int(timestamp)
    Api.checker.check_webhook(received.body)


async def test_without_a_secret_there_is_no_signature(api, worker, receiver):
    await add_endpoint(api, receiver.url())
    await create_template(api)
    await worker.drain()
    [received] = receiver.received
    assert "X-Service-Signature" not in received.headers and received.headers["X-Service-Event-Id"]


async def test_one_event_has_one_event_id_on_every_endpoint_and_only_chosen_types_are_sent(api, worker, receiver):
    await add_endpoint(api, receiver.url("/a"))
    await add_endpoint(api, receiver.url("/b"), events=["template.updated"])
    await add_endpoint(api, receiver.url("/c"), events=["form.completed"])
    template = await create_template(api)
    assert (await api.put(f"/api/templates/{template['id']}", json={"name": "NDA 2"})).status == 200
    await worker.drain()
    a, b = receiver.at("/a"), receiver.at("/b")
    assert [r.json["event_type"] for r in a] == ["template.created", "template.updated"]
    assert [r.json["event_type"] for r in b] == ["template.updated"] and receiver.at("/c") == []
    assert a[1].json["event_id"] == b[0].json["event_id"] == b[0].headers["X-Service-Event-Id"]
    assert a[1].json["data"]["name"] == "NDA 2"


async def test_test_mode_events_go_only_to_test_mode_endpoints(api, worker, receiver):
    await add_endpoint(api, receiver.url("/live"))
    await add_endpoint(api.with_key(TEST_KEY), receiver.url("/test"))
    await create_template(api.with_key(TEST_KEY))
    await worker.drain()
    assert [r.path for r in receiver.received] == ["/test"]


async def test_failures_are_retried_after_1_then_2_minutes_and_the_log_shows_the_success(api, worker, receiver, clock):
    receiver.script("/hook", 500, 500, 200)
    await add_endpoint(api, receiver.url())
    await create_template(api)
    await worker.drain()
    assert len(receiver.received) == 1
    [delivery] = await log(api)
    assert (delivery["status"], delivery["next_attempt_at"]) == ("pending", "2026-01-01T12:01:00.000Z")
    clock.advance(timedelta(seconds=59))
    await worker.drain()
    assert len(receiver.received) == 1, "not before the minute is up"
    clock.advance(timedelta(seconds=1))
    await worker.drain()
    clock.advance(timedelta(minutes=2))
    await worker.drain()
    assert len(receiver.received) == 3
    assert len({r.headers["X-Service-Event-Id"] for r in receiver.received}) == 1
    [delivery] = await log(api)
    assert (delivery["status"], delivery["next_attempt_at"]) == ("delivered", None)
    assert [(a["number"], a["attempted_at"], a["response_status"], a["error"]) for a in delivery["attempts"]] == [
        (1, "2026-01-01T12:00:00.000Z", 500, "HTTP 500"),
        (2, "2026-01-01T12:01:00.000Z", 500, "HTTP 500"),
        (3, "2026-01-01T12:03:00.000Z", 200, None),
    ]
    assert all(a["duration_ms"] >= 0 for a in delivery["attempts"])
    clock.advance(timedelta(days=7))
    await worker.drain()
    assert len(receiver.received) == 3


async def test_retries_stop_after_the_last_scheduled_attempt_and_the_delivery_fails(api, worker, receiver, clock):
    receiver.script("/hook", *[503] * 20)
    await add_endpoint(api, receiver.url())
    await create_template(api)
    for _ in range(30):
        await worker.drain()
        [delivery] = await log(api)
        if delivery["next_attempt_at"] is None:
            break
        clock.set(clock.now().fromisoformat(delivery["next_attempt_at"]))
    assert (delivery["status"], len(delivery["attempts"]), len(receiver.received)) == ("failed", 12, 12)
    assert delivery["attempts"][-1]["attempted_at"] == (START + timedelta(minutes=2047)).isoformat(
        timespec="milliseconds"
    ).replace("+00:00", "Z"), "the last attempt 34.1 hours after the first"
    clock.advance(timedelta(days=30))
    await worker.drain()
    assert len(receiver.received) == 12
    assert [d["id"] for d in await log(api, status="failed")] == [delivery["id"]]
    assert await log(api, status="pending") == []


async def test_a_receiver_that_never_answers_is_timed_out_and_retried(make_app, aiohttp_client, receiver, clock):
    api = Api(await aiohttp_client(make_app(webhook_timeout_seconds=1)))
    worker = api.app[WORKER]
    receiver.script("/hook", "hang")
    await add_endpoint(api, receiver.url())
    await create_template(api)
    await worker.drain()
    [delivery] = await log(api)
    [attempt] = delivery["attempts"]
    assert (attempt["response_status"], attempt["error"]) == (None, NO_ANSWER)
    assert delivery["next_attempt_at"] == "2026-01-01T12:01:00.000Z"
    clock.advance(timedelta(minutes=1))
    await worker.drain()
    assert [d["status"] for d in await log(api)] == ["delivered"]


async def test_a_redirect_counts_as_delivered_and_is_not_followed(api, worker, receiver):
    receiver.script("/hook", 302)
    await add_endpoint(api, receiver.url())
    await create_template(api)
    await worker.drain()
    [delivery] = await log(api)
    assert (delivery["status"], delivery["attempts"][0]["response_status"]) == ("delivered", 302)
    assert [r.path for r in receiver.received] == ["/hook"]


@pytest.mark.parametrize("answer", ["huge", "trickle"])
async def test_a_huge_or_trickling_answer_is_read_only_so_far(api, worker, receiver, answer):
    receiver.script("/hook", answer)
    await add_endpoint(api, receiver.url())
    await create_template(api)
    await asyncio.wait_for(worker.drain(), 10)
    [delivery] = await log(api)
    [attempt] = delivery["attempts"]
    assert (attempt["response_status"], attempt["error"]) == (500, "HTTP 500")
    assert delivery["status"] == "pending"


async def test_a_receiver_that_is_not_listening_is_a_connection_failure(api, worker, receiver):
    await add_endpoint(api, "http://127.0.0.1:9/hook")
    await create_template(api)
    await worker.drain()
    [delivery] = await log(api)
    assert delivery["attempts"][0]["error"] == NO_ANSWER
    assert delivery["attempts"][0]["response_status"] is None


async def test_private_addresses_are_refused_when_only_public_ones_are_allowed(api, make_app, aiohttp_client, receiver):
    await add_endpoint(api, receiver.url())  # before the setting was turned on: it is checked again when sent
    await create_template(api)
    public_only = Api(await aiohttp_client(make_app(webhook_public_only=True)))
    await public_only.app[WORKER].drain()
    [delivery] = await log(public_only)
    assert "private or local network address" in delivery["attempts"][0]["error"]
    assert receiver.received == []


async def test_resend_sends_the_same_event_again(api, worker, receiver):
    await add_endpoint(api, receiver.url())
    await create_template(api)
    await worker.drain()
    [delivery] = await log(api)
    reply = await api.post(f"/api/webhooks/1/deliveries/{delivery['id']}/resend")
    assert reply.status == 200
    assert (reply.json["status"], reply.json["next_attempt_at"]) == ("pending", "2026-01-01T12:00:00.000Z")
    await worker.drain()
    first, second = receiver.received
    assert first.body == second.body and first.headers["X-Service-Event-Id"] == second.headers["X-Service-Event-Id"]
    [delivery] = await log(api)
    assert (delivery["status"], [a["number"] for a in delivery["attempts"]]) == ("delivered", [1, 2])


async def test_resend_of_a_delivery_waiting_for_its_retry_sends_it_once_now(api, worker, receiver, clock):
    receiver.script("/hook", 500)
    await add_endpoint(api, receiver.url())
    await create_template(api)
    await worker.drain()
    await api.post("/api/webhooks/1/deliveries/1/resend")
    await worker.drain()
    assert len(receiver.received) == 2
    clock.advance(timedelta(minutes=5))
    await worker.drain()
    assert len(receiver.received) == 2, "the retry that was waiting does not run as well"
    assert [d["status"] for d in await log(api)] == ["delivered"]


async def test_resend_of_another_endpoints_delivery_is_not_found(api, worker, receiver):
    await add_endpoint(api, receiver.url("/a"))
    await add_endpoint(api, receiver.url("/b"))
    await create_template(api)
    assert (await api.post("/api/webhooks/2/deliveries/1/resend")).status == 404
    assert (await api.post("/api/webhooks/1/deliveries/99/resend")).status == 404


async def test_the_delivery_log_pages_newest_first(api, worker, receiver):
    await add_endpoint(api, receiver.url())
    template = await create_template(api)
    for n in range(3):
        await api.put(f"/api/templates/{template['id']}", json={"name": f"v{n}"})
    page = (await api.get("/api/webhooks/1/deliveries?limit=2")).json
    assert [d["id"] for d in page["data"]] == [4, 3] and page["pagination"]["next"] == 3
    assert [d["event_type"] for d in await log(api, after=3)] == ["template.updated", "template.created"]
    assert [d["status"] for d in await log(api)] == ["pending"] * 4
    await worker.drain()
    assert [d["status"] for d in await log(api, status="delivered")] == ["delivered"] * 4


async def test_deleting_an_endpoint_drops_its_pending_deliveries(api, worker, receiver, db):
    await add_endpoint(api, receiver.url())
    await create_template(api)
    assert (await api.delete("/api/webhooks/1")).status == 200
    await worker.drain()
    assert receiver.received == [] and await stored.get_delivery(db, 1) is None


async def test_a_record_deleted_before_its_delivery_is_logged_not_sent(api, worker, receiver):
    await add_endpoint(api, receiver.url())
    template = await create_template(api)
    assert (await api.delete(f"/api/templates/{template['id']}?permanently=true")).status == 200
    await worker.drain()
    [delivery] = await log(api)
    assert delivery["status"] == "failed" and receiver.received == []
    assert delivery["attempts"][0]["error"] == f"Not sent: the template {template['id']} no longer exists"


async def test_an_event_and_its_deliveries_commit_together_or_not_at_all(api, worker, receiver, db, clock):
    await add_endpoint(api, receiver.url())
    with pytest.raises(RuntimeError):
        async with db.transaction() as tx:
            event = await events.record(
                tx, clock, account_id=1, event_type="template.created", record_type="template", record_id=1
            )
            assert await stored.list_deliveries(tx, 1, status=None, limit=10)
            raise RuntimeError("the change failed")
    assert await stored.list_deliveries(db, 1, status=None, limit=10) == []
    await worker.drain()
    assert receiver.received == [] and event.id == 1


async def test_a_delivery_starts_when_its_commit_wakes_the_worker(api, receiver, db, clock):
    worker = jobs.Worker(db, clock, api.app[DELIVERER].kinds(), poll_seconds=3600)
    await add_endpoint(api, receiver.url())
    await worker.start()
    try:
        await asyncio.sleep(0.05)  # the worker is idle, waiting
        await create_template(api)
        await receiver.wait_for(1, timeout=5)
    finally:
        await worker.stop()
    [delivery] = await log(api)
    assert delivery["status"] == "delivered"


async def test_a_delivery_whose_job_runs_again_after_a_crash_is_not_sent_again(api, worker, receiver, db, clock):
    """A job that ran but died before it was released runs again; the delivery row decides."""
    receiver.script("/hook", 500)
    await add_endpoint(api, receiver.url())
    await create_template(api)
    await worker.drain()
    assert await deliver_handler(api)({"delivery_id": 1}) == START + timedelta(minutes=1)
    assert len(receiver.received) == 1, "not due yet: the job just waits for its time"
    assert (await stored.get_delivery(db, 1)).status is DeliveryStatus.PENDING
