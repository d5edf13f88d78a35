"""Retention: webhook deliveries and their attempts, events, emails, failed jobs and public form posts older than
the age are pruned by a periodic job in small batches, while what the API, the events feed and pending work still
need stays. History is made through the API and aged by moving the clock; nothing sleeps."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from datetime import timedelta

import pytest

import storage.emails as stored_emails
import storage.form_posts as form_posts
import storage.jobs as stored_jobs
import storage.retention as stored
from signsvc.app import create_app
from signsvc.http.appkeys import WORKER
from signsvc.infra import jobs, retention
from signsvc.infra.retention import Retention
from signsvc.webhooks.endpoints import EVENT_TYPES
from signsvc.wire.encoding import iso
from tests.support.app import Api
from tests.support.signing import FIELDS, act, event_types, send, template

AGE = timedelta(days=90)
FIRST_PARTY = [field for field in FIELDS if field["role"] == "First Party"]


@dataclass(frozen=True)
class Made:
    """The history one round of use leaves: a template, a completed and a viewed submission, a public form's post
    (with its submission), a failed job, their events, webhook deliveries and emails."""

    template_id: int
    completed_submission_id: int
    completed_submitter_id: int
    viewed_submission_id: int
    viewed_submitter_id: int
    form_token: str
    failed_job_id: int


async def use(api: Api, worker: jobs.Worker, db, clock) -> Made:
    template_id = await template(api, FIRST_PARTY)
    [completed] = await send(api, template_id, {"email": "ann@example.com", "completed": True})
    [viewed] = await send(api, template_id, {"email": "bob@example.com"})
    assert (await act(api, viewed["slug"], "view")).status == 200
    token = await post_public_form(api, template_id)
    async with db.transaction() as tx:
        job = await jobs.enqueue(tx, clock, "nobody.handles", {})
    await worker.drain()
    assert (await stored_jobs.get_job(db, job.id)).status == "failed"
    return Made(
        template_id, completed["submission_id"], completed["id"], viewed["submission_id"], viewed["id"], token, job.id
    )


async def post_public_form(api: Api, template_id: int) -> str:
    """Posts the template's public link form as a browser does; answers the form's token."""
    slug = (await api.get(f"/api/templates/{template_id}")).json["slug"]
    async with api.client.get(f"/d/{slug}", headers={"Accept": "text/html"}) as page:
        token = re.search(r'name="form_token" value="([^"]+)"', await page.text()).group(1)
    async with api.client.post(
        f"/d/{slug}", data={"form_token": token, "name": "Cy", "email": "cy@example.com"}, allow_redirects=False
    ) as reply:
        assert reply.status == 303
    return token


async def add_endpoint(api: Api, url: str) -> int:
    reply = await api.post("/api/webhooks", json={"url": url, "events": list(EVENT_TYPES)})
    assert reply.status == 200, reply.json
    return reply.json["id"]


async def delivery_log(api: Api, endpoint_id: int = 1) -> list[dict]:
    reply = await api.get(f"/api/webhooks/{endpoint_id}/deliveries?limit=100")
    assert reply.status == 200, reply.json
    return reply.json["data"]


async def shown(api: Api, path: str) -> dict:
    reply = await api.get(path)
    assert reply.status == 200, reply.json
    return reply.json


@pytest.fixture
def retention_of(db, clock):
    return lambda **settings: Retention(db, clock, days=90, **settings)


async def test_deliveries_attempts_events_emails_failed_jobs_and_form_posts_older_than_the_age_are_pruned(
    api, worker, receiver, db, clock, retention_of
):
    await add_endpoint(api, receiver.url())
    old = await use(api, worker, db, clock)
    clock.advance(timedelta(days=60))
    young = await use(api, worker, db, clock)
    clock.advance(timedelta(days=31))
    logged = await delivery_log(api)
    aged = [d for d in logged if d["created_at"] < iso(clock.now() - AGE)]
    assert aged and len(aged) < len(logged)

    run = await retention_of().prune()

    assert not run.left
    assert run.pruned["webhook_deliveries"] == len(aged)
    assert (run.pruned["jobs"], run.pruned["form_posts"]) == (1, 1)
    assert await delivery_log(api) == [d for d in logged if d not in aged]
    assert await event_types(db, "template", old.template_id) == []
    assert await event_types(db, "template", young.template_id) == ["template.created"]
    assert await event_types(db, "submitter", old.viewed_submitter_id) == []
    assert await event_types(db, "submitter", young.viewed_submitter_id) == ["form.viewed"]
    assert await stored_jobs.get_job(db, old.failed_job_id) is None
    assert await stored_jobs.get_job(db, young.failed_job_id) is not None
    assert await form_posts.made_by(db, old.form_token, "submission") is None
    assert await form_posts.made_by(db, young.form_token, "submission") is not None
    emails = await stored_emails.list_emails(db, 1, limit=100)
    assert emails and all(email.created_at > clock.now() - AGE for email in emails)
    assert run.pruned["emails"] == len(emails), "as many old as young"


async def test_events_that_record_a_jobs_work_stay_with_their_record(api, worker, receiver, db, clock, retention_of):
    await add_endpoint(api, receiver.url())
    old = await use(api, worker, db, clock)
    clickwrap = await api.post(
        "/api/clickwraps", json={"name": "Terms", "kind": "no_document", "content": "Terms", "publish": True}
    )
    consent = await api.post(f"/api/clickwraps/{clickwrap.json['id']}/consents", json={})
    clock.advance(AGE + timedelta(days=1))
    paths = [
        f"/api/submissions/{old.completed_submission_id}/pdf",
        f"/api/submissions/{old.completed_submission_id}/documents",
    ]
    before = [await shown(api, path) for path in paths]

    await retention_of().prune()

    assert await event_types(db, "submitter", old.completed_submitter_id) == ["form.completed"]
    assert await event_types(db, "submission", old.completed_submission_id) == ["submission.completed"]
    assert await event_types(db, "consent", consent.json["id"]) == ["consent.created"]
    assert await event_types(db, "submission", old.viewed_submission_id) == []
    assert [await shown(api, path) for path in paths] == before


async def test_the_events_feed_and_the_submissions_with_their_audit_trail_answer_the_same_after_pruning(
    api, worker, receiver, db, clock, retention_of
):
    await add_endpoint(api, receiver.url())
    old = await use(api, worker, db, clock)
    clock.advance(AGE + timedelta(days=1))
    paths = [
        "/api/events/form/completed",
        f"/api/submissions/{old.completed_submission_id}",
        f"/api/submissions/{old.viewed_submission_id}",
        f"/api/submitters/{old.viewed_submitter_id}",
    ]
    before = [await shown(api, path) for path in paths]
    assert before[0]["data"] and before[2]["submission_events"] and before[3]["submission_events"]

    await retention_of().prune()

    assert [await shown(api, path) for path in paths] == before


async def test_a_delivery_settled_before_the_age_leaves_the_log_and_can_no_longer_be_resent(
    api, worker, receiver, db, clock, retention_of
):
    await add_endpoint(api, receiver.url())
    await template(api, FIRST_PARTY)
    await worker.drain()
    [delivery] = await delivery_log(api)
    clock.advance(AGE + timedelta(days=1))

    await retention_of().prune()

    assert await delivery_log(api) == []
    assert (await api.get("/api/webhooks")).status == 200
    assert (await api.post(f"/api/webhooks/1/deliveries/{delivery['id']}/resend")).status == 404


async def test_a_delivery_still_retrying_keeps_its_attempts_and_its_event_whatever_their_age(
    api, worker, receiver, db, clock, retention_of
):
    await add_endpoint(api, receiver.url())
    template_id = await template(api, FIRST_PARTY)
    await worker.drain()
    clock.advance(AGE + timedelta(days=1))
    [delivery] = await delivery_log(api)
    receiver.script("/hook", 500)
    assert (await api.post(f"/api/webhooks/1/deliveries/{delivery['id']}/resend")).status == 200
    await worker.drain()
    [retrying] = await delivery_log(api)
    assert (retrying["status"], len(retrying["attempts"])) == ("pending", 2)

    await retention_of().prune()

    assert await delivery_log(api) == [retrying]
    assert await event_types(db, "template", template_id) == ["template.created"]
    clock.advance(timedelta(minutes=1))
    await worker.drain()
    assert (await delivery_log(api))[0]["status"] == "delivered"
    assert [r.json["event_id"] for r in receiver.received] == [delivery["event_id"]] * 3


async def test_an_email_still_to_be_sent_stays_whatever_its_age_and_is_sent(mailing, smtp_server, db, clock):
    template_id = await template(mailing, FIRST_PARTY)
    [submitter] = await send(mailing, template_id, {"email": "ann@example.com"})
    clock.advance(AGE + timedelta(days=1))

    await Retention(db, clock, days=90).prune()

    [email] = await stored_emails.list_emails(db, 1, limit=10)
    assert (email.kind, email.status) == ("invitation", "pending")
    await mailing.app[WORKER].drain()
    assert len(smtp_server.messages) == 1
    assert (await shown(mailing, f"/api/submitters/{submitter['id']}"))["status"] == "sent"


async def test_pending_jobs_stay_whatever_their_age(api, db, clock, retention_of):
    async with db.transaction() as tx:
        job = await jobs.enqueue(tx, clock, "nobody.handles", {}, run_at=clock.now() + 2 * AGE)
    clock.advance(AGE + timedelta(days=1))

    await retention_of().prune()

    assert (await stored_jobs.get_job(db, job.id)).status == "pending"


async def test_more_rows_than_a_run_allows_are_pruned_over_runs_in_batches_of_the_given_size(
    api, db, clock, monkeypatch
):
    template_id = await template(api, FIRST_PARTY)
    for number in range(16):
        assert (await api.put(f"/api/templates/{template_id}", json={"name": f"NDA {number}"})).status == 200
    clock.advance(AGE + timedelta(days=1))
    statements = []
    prune = stored.prune

    async def counted(conn, history, **bounds):
        statements.append((history, count := await prune(conn, history, **bounds)))
        return count

    monkeypatch.setattr(stored, "prune", counted)
    retention = Retention(db, clock, days=90, batch=3, statements=6)

    first = await retention.prune()
    assert (first.pruned["events"], first.left) == (15, True)
    assert statements == [("webhook_deliveries", 0)] + [("events", 3)] * 5
    second = await retention.prune()
    assert (second.pruned["events"], second.left) == (2, False)
    assert max(count for _, count in statements) == 3
    assert await event_types(db, "template", template_id) == []


async def test_the_job_runs_again_a_minute_later_while_rows_are_left_and_else_in_an_hour(api, db, clock):
    template_id = await template(api, FIRST_PARTY)
    for number in range(6):
        await api.put(f"/api/templates/{template_id}", json={"name": f"NDA {number}"})
    clock.advance(AGE + timedelta(days=1))
    [kind] = Retention(db, clock, days=90, batch=2, statements=len(stored.HISTORY) + 1).kinds()
    assert (kind.name, kind.every) == (retention.JOB, timedelta(hours=1))

    assert await kind.handler({}) == clock.now() + timedelta(minutes=1)
    while (again := await kind.handler({})) is not None:
        assert again == clock.now() + timedelta(minutes=1)
    assert await event_types(db, "template", template_id) == []


async def test_the_periodic_job_prunes_once_the_clock_passes_the_age_and_logs_what_it_pruned(
    aiohttp_client, config, db, clock, pdf_pool, caplog
):
    app = create_app(config, clock=clock, db=db, pool=pdf_pool, background=False)
    api = Api(await aiohttp_client(app))
    template_id = await template(api, FIRST_PARTY)
    await app[WORKER].drain()
    clock.advance(AGE - timedelta(hours=1))
    await app[WORKER].drain()
    assert await event_types(db, "template", template_id) == ["template.created"]

    clock.advance(timedelta(hours=2))
    with caplog.at_level(logging.INFO, logger=retention.__name__):
        await app[WORKER].drain()

    assert await event_types(db, "template", template_id) == []
    [line] = [r.getMessage() for r in caplog.records if r.name == retention.__name__]
    assert line == "retention: pruned history older than 90 days (events 1)"


async def test_0_days_keeps_everything(api, worker, receiver, db, clock):
    await add_endpoint(api, receiver.url())
    old = await use(api, worker, db, clock)
    clock.advance(timedelta(days=3650))
    logged = await delivery_log(api)
    keeping = Retention(db, clock, days=0)
    [kind] = keeping.kinds()

    assert await kind.handler({}) is None
    assert (await keeping.prune()).pruned == {}
    assert await delivery_log(api) == logged
    assert await event_types(db, "template", old.template_id) == ["template.created"]
    assert await stored_jobs.get_job(db, old.failed_job_id) is not None


async def test_a_negative_age_is_refused(db, clock):
    with pytest.raises(ValueError, match="0 \\(keep everything\\) or more"):
        Retention(db, clock, days=-1)


async def test_a_run_too_short_to_reach_every_kind_of_history_is_refused(db, clock):
    with pytest.raises(ValueError, match="at least 5 statements"):
        Retention(db, clock, days=90, statements=4)
