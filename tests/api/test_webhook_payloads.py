"""What submission and signer events carry, received by a real local receiver."""

from datetime import timedelta

import pytest

import storage.submissions as stored
from signsvc.http.appkeys import FILES, WORKER
from signsvc.loaders import submissions as loaders
from signsvc.webhooks.signature import verify
from signsvc.wire import submission_json
from tests.support.app import START, Api
from tests.support.signing import ANN_VALUES, BOB_VALUES, act, send, submission, template

SECRET = "whsec-" + "s" * 40


@pytest.fixture
async def hooked(make_app, aiohttp_client, receiver) -> Api:
    """A service with SIGNSVC_WEBHOOK_URL pointing at the receiver: every event type, signed."""
    api = Api(
        await aiohttp_client(
            make_app(webhook_url=receiver.url(), webhook_secret_header="X-Secret", webhook_secret=SECRET)
        )
    )
    await api.app[WORKER].drain()
    return api


async def received(api, receiver) -> list[dict]:
    await api.app[WORKER].drain()
    for request in receiver.received:
        Api.checker.check_webhook(request.body)
        verify(SECRET, request.body, request.headers, now=api.app[WORKER].clock.now().timestamp())
    return [request.json for request in receiver.received]


def of_type(envelopes: list[dict], event_type: str) -> list[dict]:
    return [envelope["data"] for envelope in envelopes if envelope["event_type"] == event_type]


async def test_a_submission_signed_to_the_end_sends_every_event_signed(hooked, receiver):
    template_id = await template(hooked)
    submitters = await send(hooked, template_id, order="random")
    await act(hooked, submitters[0]["slug"], "view")
    await act(hooked, submitters[0]["slug"], "complete", {"values": ANN_VALUES})
    await hooked.app[WORKER].drain()  # form.completed comes with the submitter's documents, from a job
    await act(hooked, submitters[1]["slug"], "complete", {"values": BOB_VALUES})
    envelopes = await received(hooked, receiver)
    assert [e["event_type"] for e in envelopes if not e["event_type"].startswith("template.")] == [
        "submission.created",
        "form.viewed",
        "form.started",
        "form.completed",
        "form.started",
        "form.completed",
        "submission.completed",
    ]
    assert len({e["event_id"] for e in envelopes}) == len(envelopes)


async def test_submission_events_carry_the_submission_as_get_answers_it(hooked, receiver):
    submitters = await send(hooked, await template(hooked), {"email": "ann@example.com", "completed": True})
    envelopes = await received(hooked, receiver)
    [created] = of_type(envelopes, "submission.created")
    [completed] = of_type(envelopes, "submission.completed")
    record = await submission(hooked, submitters[0]["submission_id"])
    assert completed == record and completed["status"] == "completed"
    assert created["id"] == record["id"] and "submission_events" in created


async def test_form_events_carry_the_submitter_with_link_slug_order_and_submission_status(hooked, receiver):
    submitters = await send(
        hooked,
        await template(hooked),
        {"email": "ann@example.com", "external_id": "u-1", "metadata": {"deal": 9}},
        {"email": "bob@example.com"},
    )
    await act(hooked, submitters[0]["slug"], "complete", {"values": ANN_VALUES}, **{"User-Agent": "Browser/1"})
    [data] = of_type(await received(hooked, receiver), "form.completed")
    assert data["id"] == submitters[0]["id"] and data["link_slug"] == submitters[0]["slug"]
    assert "slug" not in data and "uuid" not in data and "submission_events" not in data
    assert (data["external_id"], data["metadata"]) == ("u-1", {"deal": 9})
    assert (data["signer_order"], data["total_signers"]) == (1, 2)
    assert data["submission"]["id"] == submitters[0]["submission_id"] and data["submission"]["status"] == "pending"
    assert (data["ip"], data["ua"]) == ("127.0.0.1", "Browser/1")
    assert {v["field"] for v in data["values"]} == {"Full Name", "Signature", "Newsletter"}


async def test_form_events_carry_the_template_with_external_id_and_folder_name(hooked, receiver):
    template_id = await template(hooked, external_id="crm-1", folder_name="Sales")
    submitters = await send(hooked, template_id)
    await act(hooked, submitters[0]["slug"], "view")
    [data] = of_type(await received(hooked, receiver), "form.viewed")
    record = (await hooked.get(f"/api/templates/{template_id}")).json
    assert data["template"] == {
        key: record[key] for key in ("id", "name", "external_id", "folder_name", "created_at", "updated_at")
    }


async def test_template_events_carry_an_empty_variables_schema(hooked, receiver):
    template_id = await template(hooked)
    await hooked.put(f"/api/templates/{template_id}", json={"name": "NDA 2"})
    envelopes = await received(hooked, receiver)
    assert [data["variables_schema"] for data in of_type(envelopes, "template.created")] == [{}]
    assert [data["variables_schema"] for data in of_type(envelopes, "template.updated")] == [{}]


async def test_form_events_link_the_submissions_documents_page_signed_and_carry_its_variables(hooked, receiver):
    submitters = await send(hooked, await template(hooked), variables={"deal": 42})
    await act(hooked, submitters[0]["slug"], "view")
    await act(hooked, submitters[0]["slug"], "decline", {"reason": "No"})
    envelopes = await received(hooked, receiver)
    page = f"http://signsvc.test/e/{(await submission(hooked, submitters[0]['submission_id']))['slug']}."
    for data in of_type(envelopes, "form.viewed") + of_type(envelopes, "form.declined"):
        assert data["submission_url"] == data["submission"]["url"] and data["submission_url"].startswith(page)
        assert data["submission"]["variables"] == {"deal": 42}


async def test_form_declined_carries_the_decline_reason(hooked, receiver):
    submitters = await send(hooked, await template(hooked))
    await act(hooked, submitters[0]["slug"], "decline", {"reason": "Wrong amount"})
    [data] = of_type(await received(hooked, receiver), "form.declined")
    assert (data["status"], data["decline_reason"]) == ("declined", "Wrong amount")
    assert data["submission"]["status"] == "declined"


async def test_submission_archived_carries_id_slug_and_archived_at(hooked, receiver):
    submitters = await send(hooked, await template(hooked))
    await hooked.delete(f"/api/submissions/{submitters[0]['submission_id']}")
    [data] = of_type(await received(hooked, receiver), "submission.archived")
    record = await submission(hooked, submitters[0]["submission_id"])
    assert data == {"id": record["id"], "slug": record["slug"], "archived_at": "2026-01-01T12:00:00.000Z"}


async def test_submission_expired_is_sent_when_the_timer_runs(hooked, receiver, clock):
    submitters = await send(hooked, await template(hooked), expire_at="2026-01-02T00:00:00Z")
    clock.advance(timedelta(days=1))
    [data] = of_type(await received(hooked, receiver), "submission.expired")
    assert (data["id"], data["status"]) == (submitters[0]["submission_id"], "expired")


async def test_the_test_webhook_is_a_form_completed_of_the_latest_completed_submitter_without_event_id(
    hooked, receiver
):
    submitters = await send(hooked, await template(hooked), {"email": "ann@example.com", "completed": True})
    await received(hooked, receiver)
    receiver.received.clear()
    reply = await hooked.post("/api/webhooks/1/test")
    assert reply.status == 200, reply.json
    [request] = receiver.received
    assert request.json["event_type"] == "form.completed" and "event_id" not in request.json
    assert request.json["data"]["id"] == submitters[0]["id"]
    assert request.json["timestamp"] == START.isoformat()[:19] + ".000Z"


async def test_form_completed_is_retried_for_almost_six_days(api, worker, receiver, clock):
    reply = await api.post("/api/webhooks", json={"url": receiver.url(), "events": ["form.completed"]})
    assert reply.status == 200, reply.json
    receiver.script("/hook", *[503] * 20)
    await send(api, await template(api), {"email": "ann@example.com", "completed": True})
    for _ in range(30):
        await worker.drain()
        [delivery] = (await api.get("/api/webhooks/1/deliveries")).json["data"]
        if delivery["next_attempt_at"] is None:
            break
        clock.set(clock.now().fromisoformat(delivery["next_attempt_at"]))
    assert (delivery["status"], len(delivery["attempts"])) == ("failed", 14)
    assert delivery["attempts"][-1]["attempted_at"] == (START + timedelta(minutes=8191)).isoformat(
        timespec="milliseconds"
    ).replace("+00:00", "Z"), "the last attempt 5.7 days after the first"


async def test_a_signers_payload_built_while_they_act_keeps_their_place_among_the_signers(hooked, db, clock):
    """A delivery reads the signer, then the submission's signers: the signer may act in between (another process
    serves their form), and the payload still says which of the signers they are."""
    sent = await send(hooked, await template(hooked), order="random")
    read_before = await stored.get_submitter(db, sent[1]["id"])
    await act(hooked, sent[1]["slug"], "view")
    files = hooked.app[FILES]
    related = await loaders.submitters(db, files, read_before.account_id, [read_before], siblings=True)
    data = submission_json.webhook_submitter(files.links, clock.now(), related, read_before)
    assert (data["signer_order"], data["total_signers"]) == (2, 2)
