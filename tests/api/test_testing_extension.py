"""The testing extension under /api/_testing/ (SIGNSVC_TESTING=1): the clock, the reset, acting as a
submitter, the captured emails and deliveries, and running the jobs that are due."""

from __future__ import annotations

from datetime import timedelta

import pytest

import storage.account_settings as account_settings
import storage.events as stored_events
from signsvc.accounts.accounts import DEFAULT_EMAIL
from tests.api.test_console_users import BOB, invite
from tests.support.app import START, TEST_KEY, Api
from tests.support.console import signed_in
from tests.support.signing import ANN_VALUES, BOB_VALUES, act, event_types, send, submission, template

TESTING = "/api/_testing"


@pytest.fixture
async def kit(aiohttp_client, make_app, receiver) -> Api:
    """The app with the testing extension, sending every event to a local receiver."""
    return Api(
        await aiohttp_client(make_app(testing=True, webhook_url=receiver.url("/all"), allow_private_downloads=True))
    )


async def post(api: Api, path: str, body: dict | None = None):
    reply = await api.post(f"{TESTING}/{path}", json=body or {})
    assert reply.status == 200, reply.json
    return reply.json


async def test_the_extension_is_a_404_unless_signsvc_testing_is_set(api):
    for method, path in (("GET", "clock"), ("POST", "reset"), ("POST", "jobs/drain"), ("GET", "emails")):
        reply = await api.request(method, f"{TESTING}/{path}")
        assert (reply.status, reply.json) == (404, {"error": "Not found"})


async def test_the_extension_needs_an_api_key_like_the_rest_of_the_api(kit):
    reply = await kit.with_key(None).get(f"{TESTING}/clock")
    assert (reply.status, reply.json) == (401, {"error": "Not authenticated"})


async def test_the_clock_can_be_read_advanced_set_frozen_and_unfrozen(kit, clock):
    assert (await kit.get(f"{TESTING}/clock")).json == {"now": "2026-01-01T12:00:00.000Z", "frozen": True}
    assert (await post(kit, "clock/advance", {"seconds": 90}))["now"] == "2026-01-01T12:01:30.000Z"
    assert (await post(kit, "clock/set", {"time": "2027-03-04T05:06:07Z"}))["now"] == "2027-03-04T05:06:07.000Z"
    assert clock.now() == START.replace(year=2027, month=3, day=4, hour=5, minute=6, second=7)
    assert (await post(kit, "clock/unfreeze"))["frozen"] is False
    assert (await post(kit, "clock/freeze"))["frozen"] is True


@pytest.mark.parametrize(
    "path,body,message",
    [
        ("clock/advance", {}, "seconds is required: a number of seconds, 0 or more"),
        ("clock/advance", {"seconds": -1}, "seconds is required: a number of seconds, 0 or more"),
        ("clock/advance", {"seconds": "10"}, "seconds is required: a number of seconds, 0 or more"),
        ("clock/advance", {"seconds": 10**12}, "seconds is too large: at most a hundred years"),
        ("clock/advance", {"seconds": 1e20}, "seconds is too large: at most a hundred years"),
        (
            "clock/set",
            {"time": "soon"},
            "time is required: an RFC 3339 time of a year from 1970 to 8999, as 2026-05-01T12:00:00Z",
        ),
        ("clock/set", {}, "time is required: an RFC 3339 time of a year from 1970 to 8999, as 2026-05-01T12:00:00Z"),
        (
            "clock/set",
            {"time": "9999-12-31T23:59:59Z"},
            "time is required: an RFC 3339 time of a year from 1970 to 8999, as 2026-05-01T12:00:00Z",
        ),
        (
            "clock/set",
            {"time": "2026-02-30T10:00:00Z"},
            "time is required: an RFC 3339 time of a year from 1970 to 8999, as 2026-05-01T12:00:00Z",
        ),
        (
            "clock/set",
            {"time": "2026-01-01 10:00"},
            "time is required: an RFC 3339 time of a year from 1970 to 8999, as 2026-05-01T12:00:00Z",
        ),
    ],
)
async def test_a_clock_move_that_cannot_be_made_is_a_422_naming_what_to_send(kit, path, body, message):
    reply = await kit.post(f"{TESTING}/{path}", json=body)
    assert (reply.status, reply.json) == (422, {"error": message})


async def test_the_clock_never_passes_the_year_9000_where_its_arithmetic_would_overflow(kit):
    assert (await post(kit, "clock/set", {"time": "8999-12-31t23:00:00-23:00"}))["now"] == "9000-01-01T22:00:00.000Z"
    reply = await kit.post(f"{TESTING}/clock/advance", json={"seconds": 3600 * 24 * 365})
    assert (reply.status, reply.json) == (
        422,
        {"error": "seconds is too large: the clock cannot pass 9001-01-01T00:00:00Z"},
    )


async def test_moving_the_clock_past_an_expiry_emits_submission_expired_before_it_answers(kit, db):
    submitters = await send(kit, await template(kit), expire_at="2026-01-02T12:00:00Z")
    submission_id = submitters[0]["submission_id"]
    await post(kit, "clock/advance", {"seconds": 3600})
    assert "submission.expired" not in await event_types(db, "submission", submission_id)
    await post(kit, "clock/advance", {"seconds": 24 * 3600})
    assert "submission.expired" in await event_types(db, "submission", submission_id)
    assert (await submission(kit, submission_id))["status"] == "expired"


async def test_moving_the_clock_runs_the_webhook_retries_that_became_due(kit, receiver):
    receiver.script("/hook", 500)
    endpoint = (
        await kit.post("/api/webhooks", json={"url": receiver.url("/hook"), "events": ["template.created"]})
    ).json
    await template(kit)
    await post(kit, "jobs/drain")
    assert len(receiver.at("/hook")) == 1
    await post(kit, "clock/advance", {"seconds": 59})
    assert len(receiver.at("/hook")) == 1, "the retry waits a minute"
    await post(kit, "clock/advance", {"seconds": 1})
    assert len(receiver.at("/hook")) == 2
    [delivery] = (await kit.get(f"/api/webhooks/{endpoint['id']}/deliveries")).json["data"]
    assert delivery["status"] == "delivered"


async def test_fast_retries_come_after_seconds_instead_of_minutes(aiohttp_client, make_app, receiver):
    kit = Api(await aiohttp_client(make_app(testing=True, testing_fast_retries=True)))
    receiver.script("/hook", 500, 500)
    await kit.post("/api/webhooks", json={"url": receiver.url("/hook"), "events": ["template.created"]})
    await template(kit)
    await post(kit, "jobs/drain")
    await post(kit, "clock/advance", {"seconds": 1})
    await post(kit, "clock/advance", {"seconds": 2})
    assert len(receiver.at("/hook")) == 3, "1 s, then 2 s later"


async def test_file_links_expire_as_the_clock_moves(kit):
    template_id = await template(kit)
    url = (await kit.get(f"/api/templates/{template_id}")).json["documents"][0]["url"]
    path = url.removeprefix("http://signsvc.test")
    assert (await kit.with_key(None).get(path)).status == 200
    await post(kit, "clock/advance", {"seconds": 40 * 60})
    assert (await kit.with_key(None).get(path)).status == 403


async def test_rate_limit_windows_follow_the_clock(aiohttp_client, make_app):
    kit = Api(await aiohttp_client(make_app(testing=True, rate_limit_per_key=3)))
    assert (await kit.get(f"{TESTING}/clock")).headers["X-RateLimit-Remaining"] == "2"
    await kit.get("/api/user")
    await kit.post(f"{TESTING}/clock/advance", json={"seconds": 300})
    assert (await kit.get("/api/user")).headers["X-RateLimit-Remaining"] == "2", "a new window"


async def test_reset_forgets_what_every_account_made_and_keeps_accounts_users_and_keys(kit, db, clock):
    template_id = await template(kit)
    await send(kit, template_id)
    await kit.post("/api/webhooks", json={"url": "http://127.0.0.1:9/hook"})
    await kit.post(
        "/api/clickwraps", json={"name": "Terms", "kind": "no_document", "content": "Be nice", "publish": True}
    )
    await kit.with_key(TEST_KEY).post("/api/webhooks", json={"url": "http://127.0.0.1:9/test"})
    assert await post(kit, "reset") == {"reset": True}
    for path in ("/api/templates", "/api/submissions", "/api/submitters", "/api/clickwraps"):
        assert (await kit.get(path)).json["data"] == [], path
    assert [e["configured"] for e in (await kit.get("/api/webhooks")).json["data"]] == [True], (
        "the endpoint configured at start stays"
    )
    assert (await kit.with_key(TEST_KEY).get("/api/webhooks")).json["data"] == []
    assert (await kit.get(f"{TESTING}/emails")).json["data"] == []
    assert await stored_events.list_events_of_record(db, "template", template_id) == []
    assert (await kit.get("/api/user")).status == 200 and (await kit.with_key(TEST_KEY).get("/api/user")).status == 200


async def test_reset_forgets_the_accounts_settings_so_defaults_apply_again(kit, db):
    await account_settings.put(db, 1, "submitter_reminders", {"first_duration": "one_hour"})
    await account_settings.put(db, 1, "completed_recipients", ["keeper@example.com"])
    assert await post(kit, "reset") == {"reset": True}
    assert [await account_settings.get(db, 1, name) for name in ("submitter_reminders", "completed_recipients")] == [
        None,
        None,
    ]


async def test_after_a_reset_ids_start_again_from_1_and_files_are_served(kit):
    await template(kit)
    await template(kit)
    await post(kit, "reset")
    template_id = await template(kit)
    assert template_id == 1
    url = (await kit.get(f"/api/templates/{template_id}")).json["documents"][0]["url"]
    assert (await kit.with_key(None).get(url.removeprefix("http://signsvc.test"))).status == 200


async def test_acting_as_submitters_gives_the_events_a_browser_submitter_would(kit, db):
    ann, bob = await send(kit, await template(kit))
    await post(kit, f"submitters/{ann['id']}/view")
    await post(kit, f"submitters/{ann['id']}/start", {"values": {"Full Name": "Ann Smith"}})
    completed = await post(kit, f"submitters/{ann['id']}/complete", {"values": ANN_VALUES})
    assert completed["status"] == "completed" and completed["id"] == ann["id"]
    await post(kit, f"submitters/{bob['id']}/decline", {"reason": "Wrong amount"})
    await post(kit, "jobs/drain")
    assert await event_types(db, "submitter", ann["id"]) == ["form.viewed", "form.started", "form.completed"]
    assert await event_types(db, "submitter", bob["id"]) == ["form.declined"]
    trail = [e["event_type"] for e in (await submission(kit, ann["submission_id"]))["submission_events"]]
    assert trail == ["send_email", "view_form", "start_form", "complete_form", "send_email", "decline_form"]


async def test_completing_as_the_last_submitter_produces_the_signed_documents(kit):
    ann, bob = await send(kit, await template(kit))
    await post(kit, f"submitters/{ann['id']}/complete", {"values": ANN_VALUES})
    await post(kit, f"submitters/{bob['id']}/complete", {"values": BOB_VALUES})
    await post(kit, "jobs/drain")
    found = await submission(kit, ann["submission_id"])
    assert found["status"] == "completed" and found["documents"] and found["audit_log_url"]


async def test_acting_as_a_submitter_follows_the_signing_forms_rules(kit, other_account):
    ann, bob = await send(kit, await template(kit))
    reply = await kit.post(f"{TESTING}/submitters/{bob['id']}/complete", json={"values": BOB_VALUES})
    assert reply.status == 422 and reply.json["error"].startswith("It is not this signer's turn yet")
    reply = await kit.post(f"{TESTING}/submitters/{ann['id']}/complete", json={"values": {}})
    assert (reply.status, reply.json) == (422, {"error": "Full Name is required"})
    reply = await kit.with_key(other_account.live).post(f"{TESTING}/submitters/{ann['id']}/view", json={})
    assert (reply.status, reply.json) == (403, {"error": "Not authorized"})
    assert (await kit.post(f"{TESTING}/submitters/999/view", json={})).status == 404


async def test_emails_show_what_was_sent_with_their_links(kit):
    ann, _ = await send(kit, await template(kit))
    [email] = (await kit.get(f"{TESTING}/emails")).json["data"]
    assert (email["to"], email["kind"], email["status"]) == ("ann@example.com", "invitation", "kept")
    assert email["subject"] == "You are invited to sign a document"
    assert email["links"] == [f"http://signsvc.test/s/{ann['slug']}"] and email["attachments"] == []
    assert (await kit.get(f"{TESTING}/emails/{email['id']}")).json == email
    assert (await kit.with_key(TEST_KEY).get(f"{TESTING}/emails/{email['id']}")).status == 404


async def test_the_completed_email_lists_its_attachments(kit):
    ann, bob = await send(kit, await template(kit))
    await post(kit, f"submitters/{ann['id']}/complete", {"values": ANN_VALUES})
    await post(kit, f"submitters/{bob['id']}/complete", {"values": BOB_VALUES})
    await post(kit, "jobs/drain")
    completed = [e for e in (await kit.get(f"{TESTING}/emails")).json["data"] if e["kind"] == "completed_copy"]
    assert {e["to"] for e in completed} == {"ann@example.com", "bob@example.com"}
    assert sorted(completed[0]["attachments"]) == ["NDA - Audit Log.pdf", "NDA - nda.pdf"]


async def test_deliveries_are_listed_by_event_type_and_wait_for_one_to_exist(kit):
    reply = await kit.get(f"{TESTING}/webhooks/deliveries?event_type=template.created&wait=1")
    assert reply.json["data"] == []
    await template(kit)
    await post(kit, "jobs/drain")
    [delivery] = (await kit.get(f"{TESTING}/webhooks/deliveries?event_type=template.created&wait=5")).json["data"]
    assert (delivery["event_type"], delivery["status"]) == ("template.created", "delivered")
    assert (await kit.get(f"{TESTING}/webhooks/deliveries?event_type=form.completed")).json["data"] == []
    reply = await kit.get(f"{TESTING}/webhooks/deliveries?status=lost")
    assert (reply.status, reply.json) == (422, {"error": "status must be one of: pending, delivered, failed"})


async def test_drain_runs_every_due_job_and_answers_how_many(kit, receiver):
    await template(kit)
    assert (await post(kit, "jobs/drain"))["ran"] >= 1
    assert len(receiver.received) == 1
    assert (await post(kit, "jobs/drain"))["ran"] == 0


async def test_the_testing_clock_is_the_clock_of_every_rule(kit, clock):
    await post(kit, "clock/advance", {"seconds": 3600})
    assert clock.now() == START + timedelta(hours=1)
    ann, _ = await send(kit, await template(kit))
    assert ann["created_at"] == "2026-01-01T13:00:00.000Z"


async def test_a_signer_action_by_slug_and_by_id_reach_the_same_submitter(kit):
    ann, _ = await send(kit, await template(kit))
    viewed = await post(kit, f"submitters/{ann['id']}/view")
    assert viewed["status"] == "opened"
    assert (await act(kit, ann["slug"], "complete", {"values": ANN_VALUES})).status == 200


async def test_emails_never_show_another_users_console_setup_or_reset_link_and_show_the_callers_own(kit):
    admin = await signed_in(kit)
    assert (await invite(admin)).status == 303  # Bob's setup link, emailed to him
    await admin.get("/console/reset")
    await admin.post("/console/reset", {"email": DEFAULT_EMAIL})  # the key's user's own reset link
    await post(kit, "jobs/drain")
    listed = {email["kind"]: email for email in (await kit.get(f"{TESTING}/emails")).json["data"]}
    bobs, own = listed["console_setup"], listed["console_reset"]
    assert bobs["to"] == BOB and (bobs["text"], bobs["html"], bobs["links"]) == ("", "", [])
    assert (await kit.get(f"{TESTING}/emails/{bobs['id']}")).json == bobs
    assert (
        own["to"] == DEFAULT_EMAIL and own["links"] and own["links"][0].startswith("http://signsvc.test/console/reset/")
    )
