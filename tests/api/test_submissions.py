"""Submissions: creation, status, completion, expiry, archive and delete."""

import asyncio
from datetime import timedelta

from signsvc.http.appkeys import WORKER
from tests.support.app import START, TEST_KEY
from tests.support.signing import (
    ANN_VALUES,
    BOB_VALUES,
    VIC,
    act,
    area,
    event_types,
    send,
    submission,
    template,
    template_with_viewer,
)

# Creation


async def test_create_answers_one_submitter_per_entry_with_id_slug_uuid_embed_src_and_status(api):
    submitters = await send(
        api,
        await template(api),
        {"email": "Ann@Example.com", "name": "Ann", "external_id": "u-7", "metadata": {"crm": {"id": 7}}},
        {"phone": "+15551234567"},
    )
    assert [s["role"] for s in submitters] == ["First Party", "Second Party"]
    ann = submitters[0]
    assert ann["id"] == 1 and ann["submission_id"] == 1 and len(ann["uuid"]) == 36 and ann["slug"]
    assert ann["embed_src"] == f"http://signsvc.test/apiemb/{ann['slug']}"
    assert (ann["email"], ann["external_id"], ann["metadata"]) == ("ann@example.com", "u-7", {"crm": {"id": 7}})
    assert "documents" not in ann and "submission_events" not in ann
    assert submitters[1]["phone"] == "+15551234567" and submitters[1]["status"] == "awaiting"


async def test_the_template_of_a_submission_record_keeps_external_id_and_folder_name(api):
    template_id = await template(api, external_id="crm-1", folder_name="Sales")
    submitters = await send(api, template_id)
    record = (await api.get(f"/api/templates/{template_id}")).json
    summary = {key: record[key] for key in ("id", "name", "external_id", "folder_name", "created_at", "updated_at")}
    assert (await submission(api, submitters[0]["submission_id"]))["template"] == summary
    assert (await api.get("/api/submissions")).json["data"][0]["template"] == summary


async def test_completed_true_for_a_viewer_at_creation_marks_it_completed_and_the_signers_still_sign(api):
    ann, vic, bob = await send(
        api,
        await template_with_viewer(api),
        {"email": "ann@example.com"},
        {**VIC, "completed": True},
        {"email": "bob@example.com"},
    )
    assert [s["status"] for s in (ann, vic, bob)] == ["sent", "completed", "awaiting"]
    found = await submission(api, ann["submission_id"])
    assert found["status"] == "pending" and [e["event_type"] for e in found["submission_events"]] == [
        "api_complete_form",
        "send_email",
    ]


async def test_a_submission_of_signers_completed_at_creation_and_a_viewer_is_completed_at_once(api):
    ann, vic, bob = await send(
        api,
        await template_with_viewer(api),
        {"email": "ann@example.com", "completed": True},
        VIC,
        {"email": "bob@example.com", "completed": True},
    )
    assert [s["status"] for s in (ann, vic, bob)] == ["completed", "awaiting", "completed"]
    assert (await submission(api, ann["submission_id"]))["status"] == "completed"


async def test_init_answers_id_submitters_expire_at_and_created_at(api):
    reply = await api.post(
        "/api/submissions/init",
        json={
            "template_id": await template(api),
            "submitters": [{"email": "ann@example.com"}],
            "expire_at": "2026-02-01 12:00:00 UTC",
        },
    )
    assert reply.status == 200, reply.json
    assert set(reply.json) == {"id", "submitters", "expire_at", "created_at"}
    assert (
        reply.json["expire_at"] == "2026-02-01T12:00:00.000Z" and reply.json["created_at"] == "2026-01-01T12:00:00.000Z"
    )
    assert reply.json["submitters"][0]["embed_src"].endswith(reply.json["submitters"][0]["slug"])


async def test_emails_creates_one_submission_per_address(api):
    reply = await api.post(
        "/api/submissions/emails",
        json={"template_id": await template(api), "emails": "ann@example.com, bob@example.com", "send_email": False},
    )
    assert reply.status == 200, reply.json
    assert [(s["email"], s["submission_id"], s["role"]) for s in reply.json] == [
        ("ann@example.com", 1, "First Party"),
        ("bob@example.com", 2, "First Party"),
    ]


async def test_emails_without_an_address_is_refused_and_checks_the_rest_of_the_request(api):
    # Commas alone created nothing and answered 200 without looking at template_id or send_email.
    reply = await api.post(
        "/api/submissions/emails", json={"template_id": await template(api), "emails": " ,\n,", "send_email": {"x": 1}}
    )
    assert (reply.status, reply.json) == (422, {"error": "emails is required: addresses separated by commas"})


async def test_prefilled_values_are_normalised_per_field_type_and_shown_by_field_name(api):
    submitters = await send(
        api,
        await template(api),
        {
            "email": "ann@example.com",
            "values": {"full_name": "Ann Smith", "newsletter": "yes", "Signature": "Ann Smith"},
        },
        {"email": "bob@example.com"},
    )
    values = {v["field"]: v["value"] for v in submitters[0]["values"]}
    assert values["Full Name"] == "Ann Smith" and values["Newsletter"] is True
    assert values["Signature"].startswith("http://signsvc.test/file/") and values["Signature"].endswith(
        "/signature.png"
    )


async def test_a_submission_keeps_its_own_copy_of_the_template(api):
    template_id = await template(api)
    submitters = await send(api, template_id)
    await api.delete(f"/api/templates/{template_id}?permanently=true")
    found = await submission(api, submitters[0]["submission_id"])
    assert found["template"] is None and [s["role"] for s in found["submitters"]] == ["First Party", "Second Party"]
    assert (await act(api, submitters[0]["slug"], "complete", {"values": ANN_VALUES})).status == 200


async def test_submission_created_is_recorded_with_the_submission(api, db):
    submitters = await send(api, await template(api))
    assert await event_types(db, "submission", submitters[0]["submission_id"]) == ["submission.created"]


# The submission record


async def test_get_submission_shows_status_submitters_values_events_and_template(api):
    submitters = await send(
        api,
        await template(api),
        {"email": "ann@example.com", "values": {"Full Name": "Ann"}},
        {"email": "bob@example.com"},
        order="random",
    )
    found = await submission(api, submitters[0]["submission_id"])
    assert found["status"] == "pending" and found["submitters_order"] == "random" and found["source"] == "api"
    assert found["template"]["name"] == "NDA" and found["created_by_user"]["id"] == 1
    assert found["envelope_id"] and found["documents"] == [] and found["audit_log_url"] is None
    assert found["submitters"][0]["values"] == [{"field": "Full Name", "value": "Ann"}]
    assert [(e["event_type"], e["submitter_id"]) for e in found["submission_events"]] == [
        ("send_email", submitters[0]["id"]),
        ("send_email", submitters[1]["id"]),
    ]


async def test_get_submission_of_another_account_is_403_and_of_the_live_account_with_a_test_key_404(api, other_account):
    submitters = await send(api, await template(api))
    path = f"/api/submissions/{submitters[0]['submission_id']}"
    assert (await api.with_key(other_account.live).get(path)).status == 403
    reply = await api.with_key(TEST_KEY).get(path)
    assert reply.status == 404 and reply.json["error"] == (
        "Submission 1 not found using testing API key; Use production API key to access production submissions."
    )
    assert (await api.get("/api/submissions/99")).status == 404


# Status


async def test_the_last_submitter_completing_completes_the_submission_once(api, db, worker):
    submitters = await send(api, await template(api))
    assert (await act(api, submitters[0]["slug"], "complete", {"values": ANN_VALUES})).status == 200
    assert (await submission(api, 1))["status"] == "pending"
    assert (await act(api, submitters[1]["slug"], "complete", {"values": BOB_VALUES})).status == 200
    found = await submission(api, 1)
    assert found["status"] == "completed" and found["completed_at"] == "2026-01-01T12:00:00.000Z"
    await worker.drain()  # the events come with the documents
    assert await event_types(db, "submission", 1) == ["submission.created", "submission.completed"]


async def test_two_last_submitters_completing_at_the_same_instant_give_one_completion(api, db, worker):
    """Real parallel requests (on Postgres, parallel transactions), ten submissions at once to make them meet."""
    fields = [
        {"name": "A", "role": "First Party", "areas": [area(0.1)]},
        {"name": "B", "role": "Second Party", "areas": [area(0.2)]},
    ]
    template_id = await template(api, fields)
    pairs = [await send(api, template_id, order="random", send_email=False) for _ in range(10)]
    replies = await asyncio.gather(
        *(
            act(api, submitter["slug"], "complete", {"values": {name: "x"}})
            for pair in pairs
            for submitter, name in zip(pair, "AB", strict=True)
        )
    )
    assert {reply.status for reply in replies} == {200}
    await worker.drain()
    for pair in pairs:
        submission_id = pair[0]["submission_id"]
        assert (await submission(api, submission_id))["status"] == "completed"
        assert await event_types(db, "submission", submission_id) == ["submission.created", "submission.completed"]


async def test_a_declined_submitter_makes_the_submission_declined(api):
    submitters = await send(api, await template(api))
    assert (await act(api, submitters[0]["slug"], "decline", {"reason": "Wrong amount"})).status == 200
    found = await submission(api, 1)
    assert found["status"] == "declined" and found["submitters"][0]["status"] == "declined"
    assert found["submission_events"][-1]["event_type"] == "decline_form"
    assert found["submission_events"][-1]["data"] == {"reason": "Wrong amount"}


async def test_completed_true_marks_the_submitter_completed_at_creation_without_checking_required_fields(
    api, db, worker
):
    submitters = await send(
        api, await template(api), {"email": "ann@example.com", "completed": True}, {"email": "bob@example.com"}
    )
    assert submitters[0]["status"] == "completed" and submitters[0]["completed_at"] == "2026-01-01T12:00:00.000Z"
    assert submitters[1]["status"] == "sent", "the next signer in preserved order is invited"
    found = await submission(api, 1)
    assert [e["event_type"] for e in found["submission_events"]] == ["api_complete_form", "send_email"]
    await worker.drain()
    assert await event_types(db, "submitter", submitters[0]["id"]) == ["form.completed"]


async def test_every_submitter_completed_at_creation_completes_the_submission(api, db, worker):
    submitters = await send(
        api,
        await template(api),
        {"email": "ann@example.com", "completed": True},
        {"email": "bob@example.com", "completed": True},
    )
    assert [s["status"] for s in submitters] == ["completed", "completed"]
    assert (await submission(api, 1))["status"] == "completed"
    await worker.drain()
    assert await event_types(db, "submission", 1) == ["submission.created", "submission.completed"]


# Expiry


async def test_expire_at_passing_first_makes_the_submission_expired_and_emits_submission_expired_once(
    api, db, clock, worker
):
    submitters = await send(api, await template(api), expire_at="2026-01-02T12:00:00Z")
    await worker.drain()
    assert await event_types(db, "submission", 1) == ["submission.created"]
    clock.advance(timedelta(days=1))
    assert (await submission(api, 1))["status"] == "expired"
    await worker.drain()
    await worker.drain()
    assert await event_types(db, "submission", 1) == ["submission.created", "submission.expired"]
    reply = await act(api, submitters[0]["slug"], "view")
    assert (reply.status, reply.json) == (422, {"error": "Form has been expired."})


async def test_a_changed_expire_at_reschedules_the_expiry(api, db, clock, worker):
    await send(api, await template(api), expire_at="2026-01-02T12:00:00Z")
    reply = await api.put("/api/submissions/1", json={"expire_at": "2026-01-05T12:00:00Z"})
    assert reply.status == 200 and reply.json["expire_at"] == "2026-01-05T12:00:00.000Z"
    clock.advance(timedelta(days=1, minutes=1))
    await worker.drain()
    assert (await submission(api, 1))["status"] == "pending"
    assert await event_types(db, "submission", 1) == ["submission.created"]
    clock.advance(timedelta(days=3))
    await worker.drain()
    assert await event_types(db, "submission", 1) == ["submission.created", "submission.expired"]


async def test_an_expiry_timer_survives_a_restart(api, db, clock, aiohttp_client, make_app):
    await send(api, await template(api), expire_at="2026-01-02T12:00:00Z")
    restarted = (await aiohttp_client(make_app())).app
    clock.advance(timedelta(days=2))
    await restarted[WORKER].drain()
    assert await event_types(db, "submission", 1) == ["submission.created", "submission.expired"]


async def test_a_completed_submission_never_expires(api, db, clock, worker):
    submitters = await send(
        api, await template(api), {"email": "ann@example.com", "completed": True}, expire_at="2026-01-02T12:00:00Z"
    )
    assert submitters[0]["status"] == "completed"
    clock.advance(timedelta(days=2))
    await worker.drain()
    assert (await submission(api, 1))["status"] == "completed"
    assert "submission.expired" not in await event_types(db, "submission", 1)


# Update, archive, delete


async def test_put_submission_renames_and_archives_with_submission_archived(api, db):
    await send(api, await template(api))
    reply = await api.put("/api/submissions/1", json={"name": "Q3 NDA", "archived": True})
    assert reply.status == 200, reply.json
    assert reply.json["name"] == "Q3 NDA" and reply.json["archived_at"] == START.isoformat()[:19] + ".000Z"
    assert "submission_events" not in reply.json
    assert await event_types(db, "submission", 1) == ["submission.created", "submission.archived"]


async def test_delete_archives_and_answers_id_envelope_id_and_archived_at(api, db):
    submitters = await send(api, await template(api))
    reply = await api.delete("/api/submissions/1")
    assert reply.status == 200
    assert reply.json == {
        "id": 1,
        "envelope_id": (await submission(api, 1))["envelope_id"],
        "archived_at": "2026-01-01T12:00:00.000Z",
    }
    assert await event_types(db, "submission", 1) == ["submission.created", "submission.archived"]
    reply = await act(api, submitters[0]["slug"], "view")
    assert (reply.status, reply.json) == (422, {"error": "Form has been archived."})


async def test_delete_permanently_removes_the_submission_its_submitters_and_files(api, db):
    submitters = await send(api, await template(api), {"email": "ann@example.com", "values": {"Signature": "Ann"}})
    file_link = submitters[0]["values"][0]["value"]
    reply = await api.delete("/api/submissions/1?permanently=true")
    assert reply.status == 200 and reply.json["archived_at"] is None
    assert (await api.get("/api/submissions/1")).status == 404
    assert (await api.get(f"/api/submitters/{submitters[0]['id']}")).status == 404
    assert (await api.client.get(file_link.removeprefix("http://signsvc.test"))).status == 404
    assert (await act(api, submitters[0]["slug"], "view")).status == 404


async def test_an_id_in_a_path_beyond_64_bits_is_404(api):
    for path in (
        "/api/submissions/99999999999999999999",
        "/api/submitters/99999999999999999999",
        "/api/templates/99999999999999999999/submissions",
    ):
        reply = await api.get(path)
        assert (reply.status, reply.json) == (404, {"error": "Not found"}), path
