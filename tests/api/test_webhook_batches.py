"""Webhook deliveries sent in batches (`Deliverer.deliver_batch`, as the running worker calls it): each
delivery sent once and its attempt logged, each answered on its own, and a batch cut short by a crash
neither loses nor repeats a delivery once its jobs are taken over."""

import asyncio
import json
from datetime import timedelta

import storage.jobs as stored_jobs
import storage.submissions as stored_submissions
import storage.webhooks as stored
from signsvc.http.appkeys import DELIVERER, WORKER
from signsvc.infra import retries
from signsvc.webhooks import endpoints
from storage.outbound_records import DeliveryStatus
from tests.api.test_list_statements import FIELDS, complete, ok, send, template
from tests.api.test_webhook_delivery import add_endpoint, create_template, log
from tests.support.documents import b64, png

LEASE = timedelta(minutes=5)


async def pending_deliveries(db, endpoint_id: int) -> list[int]:
    deliveries = await stored.list_deliveries(db, endpoint_id, status=DeliveryStatus.PENDING, limit=100)
    return sorted(delivery.id for delivery in deliveries)


async def test_a_batch_sends_each_delivery_once_and_logs_each_attempt(api, receiver, db, clock):
    receiver.script("/down", *[500] * 4)
    ok, down = await add_endpoint(api, receiver.url("/ok")), await add_endpoint(api, receiver.url("/down"))
    for n in range(4):
        await create_template(api, name=f"NDA {n}")
    ids = await pending_deliveries(db, ok["id"]) + await pending_deliveries(db, down["id"])
    answers = await api.app[DELIVERER].deliver_batch([{"delivery_id": delivery_id} for delivery_id in ids])
    retry_at = clock.now() + retries.WEBHOOKS.delay(1)
    assert answers == [None] * 4 + [retry_at] * 4, "delivered ones are done, failed ones run again at their retry"
    assert sorted(r.path for r in receiver.received) == ["/down"] * 4 + ["/ok"] * 4
    assert len({r.headers["X-Service-Event-Id"] for r in receiver.at("/ok")}) == 4
    assert {r.json["data"]["name"] for r in receiver.at("/ok")} == {f"NDA {n}" for n in range(4)}
    for delivery in await log(api, ok["id"]):
        assert delivery["status"] == "delivered"
        assert [(a["number"], a["response_status"], a["error"]) for a in delivery["attempts"]] == [(1, 200, None)]
    for delivery in await log(api, down["id"]):
        assert (delivery["status"], delivery["next_attempt_at"]) == ("pending", "2026-01-01T12:01:00.000Z")
        assert [(a["number"], a["response_status"], a["error"]) for a in delivery["attempts"]] == [(1, 500, "HTTP 500")]


async def test_a_delivery_deleted_while_its_batch_sends_fails_none_of_the_others(api, receiver, db):
    """Deleting an endpoint deletes its deliveries: one of them in a batch under way is skipped when the batch
    logs its attempts, and the others are logged as sent (not failed, and so not sent again)."""
    receiver.script("/gone", "hang")
    ok, gone = await add_endpoint(api, receiver.url("/ok")), await add_endpoint(api, receiver.url("/gone"))
    await create_template(api)
    ids = await pending_deliveries(db, ok["id"]) + await pending_deliveries(db, gone["id"])
    batch = asyncio.ensure_future(api.app[DELIVERER].deliver_batch([{"delivery_id": i} for i in ids]))
    await receiver.wait_until(lambda received: any(r.path == "/gone" for r in received))
    assert (await api.delete(f"/api/webhooks/{gone['id']}")).status == 200
    receiver.release.set()
    assert await batch == [None, None]
    [delivery] = await log(api, ok["id"])
    assert delivery["status"] == "delivered" and len(delivery["attempts"]) == 1


async def test_deliveries_settled_or_not_yet_due_are_not_sent_by_a_batch(api, receiver, db, clock):
    endpoint = await add_endpoint(api, receiver.url())
    for n in range(3):
        await create_template(api, name=f"NDA {n}")
    first, *rest = await pending_deliveries(db, endpoint["id"])
    deliverer = api.app[DELIVERER]
    assert await deliverer.deliver_batch([{"delivery_id": first}]) == [None]
    receiver.script("/hook", 503)
    [later] = await deliverer.deliver_batch([{"delivery_id": rest[0]}])
    answers = await deliverer.deliver_batch([{"delivery_id": delivery_id} for delivery_id in (first, *rest, 999)])
    assert answers == [None, later, None, None], "settled, not yet due, sent, and one that does not exist"
    assert len(receiver.received) == 3, "one send each; nothing for the settled and the waiting delivery"


async def test_a_batch_cut_short_by_a_crash_loses_and_repeats_nothing(api, receiver, db, clock):
    endpoint = await add_endpoint(api, receiver.url())
    for n in range(6):
        await create_template(api, name=f"NDA {n}")
    # A worker claims the six jobs and dies after sending three: the deliveries say so, the jobs stay leased.
    await stored_jobs.claim_jobs(
        db,
        kind=endpoints.DELIVER,
        limit=100,
        worker="a-worker-that-died",
        now=clock.now(),
        lease_until=clock.now() + LEASE,
    )
    ids = await pending_deliveries(db, endpoint["id"])
    await api.app[DELIVERER].deliver_batch([{"delivery_id": delivery_id} for delivery_id in ids[:3]])
    worker = api.app[WORKER]
    if db.single_process:
        await stored_jobs.release_running_jobs(db)  # what a restart does with one process to a database
    else:
        await worker.drain()
        assert len(receiver.received) == 3, "the dead worker's leases still hold"
        clock.advance(LEASE)
    await worker.drain()
    event_ids = [r.headers["X-Service-Event-Id"] for r in receiver.received]
    assert len(event_ids) == len(set(event_ids)) == 6, "each delivery arrived once"
    assert [d["status"] for d in await log(api, endpoint["id"])] == ["delivered"] * 6
    assert all(len(d["attempts"]) == 1 for d in await log(api, endpoint["id"]))
    assert (
        await stored_jobs.claim_jobs(
            db,
            kind=endpoints.DELIVER,
            limit=100,
            worker="w",
            now=clock.now() + LEASE,
            lease_until=clock.now() + 2 * LEASE,
        )
        == []
    ), "no delivery job is left"


SUBMISSION_EVENTS = ("submission.created", "submission.completed", "submission.archived", "form.completed")


async def accounts_with_submissions(api, other, receiver, clock) -> dict[str, tuple]:
    """In each of two accounts, an endpoint (at /a and /b) and two submissions of a template with an image
    field: one completed by its two signers, one archived. Their deliveries failed once (the worker's first
    try, answered 500) and are due again, so that one batch can take all of them."""
    accounts = {}
    for path, account in (("/a", api), ("/b", other)):
        endpoint = await add_endpoint(account, receiver.url(path), events=SUBMISSION_EVENTS)
        template_id = await template(account, FIELDS, "Upload")
        signers = await send(account, template_id, b64(png()))
        await complete(account, clock, signers)
        archived = (await send(account, template_id, b64(png())))[0]["submission_id"]
        await ok(account, "DELETE", f"/api/submissions/{archived}")
        accounts[path] = (account, endpoint["id"], signers[0]["submission_id"], archived)
    for path in accounts:
        receiver.script(path, *[500] * 20)
    await api.app[WORKER].drain()
    for path in accounts:
        receiver.script(path)
    receiver.received.clear()
    clock.advance(retries.WEBHOOKS.delay(1))
    return accounts


async def test_a_batch_of_two_accounts_carries_each_record_as_its_account_reads_it(
    api, other_account, receiver, db, clock
):
    """Records of two accounts, each with an image value, in one batch: each payload is the record as its own
    account's API answers it; a submission's creation and its archiving go in the same batch."""
    other = api.with_key(other_account.live)
    accounts = await accounts_with_submissions(api, other, receiver, clock)
    ids = [d for _, endpoint_id, *_ in accounts.values() for d in await pending_deliveries(db, endpoint_id)]
    assert len(ids) == 2 * 6, "per account: 2 created, 2 form.completed, 1 submission.completed, 1 archived"
    assert await api.app[DELIVERER].deliver_batch([{"delivery_id": delivery_id} for delivery_id in ids]) == [None] * 12
    for path, (account, _, completed_id, archived_id) in accounts.items():
        received = {}
        for request in receiver.at(path):
            received.setdefault(request.json["event_type"], []).append(request.json["data"])
        [completed] = received["submission.completed"]
        assert completed == await ok(account, "GET", f"/api/submissions/{completed_id}")
        assert any(v["field"] == "Photo" and "/file/" in v["value"] for v in completed["submitters"][0]["values"])
        feed = {
            item["data"]["id"]: item["data"]
            for item in (await ok(account, "GET", "/api/events/form/completed"))["data"]
        }
        assert sorted(d["id"] for d in received["form.completed"]) == sorted(feed)
        assert all(data == feed[data["id"]] for data in received["form.completed"])
        created = {data["id"]: data for data in received["submission.created"]}
        assert created[archived_id] == await ok(account, "GET", f"/api/submissions/{archived_id}")
        [archived] = received["submission.archived"]
        assert (archived["id"], archived["archived_at"]) == (archived_id, created[archived_id]["archived_at"])


async def test_a_record_that_cannot_be_read_fails_its_own_delivery_alone_not_another_accounts(
    api, other_account, receiver, db, clock
):
    """Reading a batch's submissions together fails on one broken record (a field without its type): each is
    then read on its own, so the other account's delivery in the batch is sent and only the broken one waits."""
    other = api.with_key(other_account.live)
    broken, fine = (
        await add_endpoint(api, receiver.url("/a"), events=["submission.created"]),
        await add_endpoint(other, receiver.url("/b"), events=["submission.created"]),
    )
    for account in (api, other):
        await send(account, await template(account, FIELDS, "Upload"), b64(png()), signers=1)
    [bad] = await pending_deliveries(db, broken["id"])
    [good] = await pending_deliveries(db, fine["id"])
    submission = await stored_submissions.get_submission(db, (await stored.get_delivery(db, bad)).record_id)
    fields = [{k: v for k, v in f.items() if k != "type"} if f["name"] == "Full Name" else f for f in submission.fields]
    await db.run_script(f"UPDATE submissions SET fields = '{json.dumps(fields)}' WHERE id = {submission.id};")
    answers = await api.app[DELIVERER].deliver_batch([{"delivery_id": bad}, {"delivery_id": good}])
    assert isinstance(answers[0], KeyError) and answers[1] is None, "the broken one's job fails, to run again"
    assert [r.path for r in receiver.received] == ["/b"]
    [delivery] = await log(other, fine["id"])
    assert delivery["status"] == "delivered"
