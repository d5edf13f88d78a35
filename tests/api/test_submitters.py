"""Signers: the signer's own actions and the API's changes."""

from datetime import timedelta

from tests.support.signing import (
    ANN_VALUES,
    BOB_VALUES,
    VIC,
    act,
    event_types,
    send,
    submission,
    template,
    template_with_viewer,
)

ANN = {"email": "ann@example.com", "name": "Ann", "role": "First Party"}
BOB = {"email": "bob@example.com", "name": "Bob", "role": "Second Party"}


async def submitter(api, submitter_id: int) -> dict:
    reply = await api.get(f"/api/submitters/{submitter_id}")
    assert reply.status == 200, reply.json
    return reply.json


# Submitter actions: view, values, complete, decline


async def test_view_moves_the_submitter_to_opened_and_emits_form_viewed_on_every_visit(api, db, clock):
    submitters = await send(api, await template(api))
    first = await act(api, submitters[0]["slug"], "view")
    assert (first.status, first.json["status"]) == (200, "opened")
    await act(api, submitters[0]["slug"], "view")
    assert await event_types(db, "submitter", submitters[0]["id"]) == ["form.viewed", "form.viewed"]
    events = (await submission(api, 1))["submission_events"]
    assert [e["event_type"] for e in events] == ["send_email", "view_form", "view_form"]


async def test_opened_at_keeps_the_first_view_while_every_view_emits_form_viewed(api, db, clock):
    submitters = await send(api, await template(api))
    first = await act(api, submitters[0]["slug"], "view")
    assert first.json["opened_at"] == "2026-01-01T12:00:00.000Z"
    clock.advance(timedelta(hours=1))
    again = await act(api, submitters[0]["slug"], "view")
    assert again.json["opened_at"] == "2026-01-01T12:00:00.000Z"
    assert (await submitter(api, submitters[0]["id"]))["opened_at"] == "2026-01-01T12:00:00.000Z"
    assert await event_types(db, "submitter", submitters[0]["id"]) == ["form.viewed", "form.viewed"]
    events = (await submission(api, 1))["submission_events"]
    assert [e["event_timestamp"] for e in events if e["event_type"] == "view_form"] == [
        "2026-01-01T12:00:00.000Z",
        "2026-01-01T13:00:00.000Z",
    ]


async def test_the_first_save_of_values_emits_form_started_once(api, db):
    submitters = await send(api, await template(api))
    reply = await act(api, submitters[0]["slug"], "values", {"values": {"Full Name": "Ann"}})
    assert reply.status == 200 and reply.json["values"] == [{"field": "Full Name", "value": "Ann"}]
    await act(api, submitters[0]["slug"], "values", {"values": {"Newsletter": True}})
    assert await event_types(db, "submitter", submitters[0]["id"]) == ["form.started"]
    assert {v["field"] for v in (await submitter(api, submitters[0]["id"]))["values"]} == {"Full Name", "Newsletter"}


async def test_complete_checks_required_fields(api):
    submitters = await send(api, await template(api))
    reply = await act(api, submitters[0]["slug"], "complete", {"values": {"Full Name": "Ann"}})
    assert (reply.status, reply.json) == (422, {"error": "Signature is required"})
    assert (await submitter(api, submitters[0]["id"]))["status"] == "sent"


async def test_complete_validates_values_per_field_type(api):
    submitters = await send(api, await template(api))
    reply = await act(api, submitters[0]["slug"], "complete", {"values": {**ANN_VALUES, "Newsletter": "perhaps"}})
    assert reply.status == 422 and "Newsletter" in reply.json["error"]


async def test_complete_records_the_callers_ip_and_user_agent_and_emits_form_completed(api, db, worker):
    submitters = await send(api, await template(api))
    reply = await act(api, submitters[0]["slug"], "complete", {"values": ANN_VALUES}, **{"User-Agent": "Signer/1.0"})
    assert (reply.status, reply.json["status"]) == (200, "completed")
    await worker.drain()  # form.completed comes with the submitter's documents
    assert await event_types(db, "submitter", submitters[0]["id"]) == ["form.started", "form.completed"]
    stored = await db.fetch_one("get_submitter", id=submitters[0]["id"])
    assert (stored["ip"], stored["ua"]) == ("127.0.0.1", "Signer/1.0")


async def test_after_completion_every_field_of_the_role_is_listed_empty_ones_as_null(api):
    submitters = await send(api, await template(api))
    await act(api, submitters[0]["slug"], "complete", {"values": ANN_VALUES})
    values = {v["field"]: v["value"] for v in (await submitter(api, submitters[0]["id"]))["values"]}
    assert set(values) == {"Full Name", "Signature", "Newsletter"} and values["Newsletter"] is None


async def test_completing_sends_the_submitter_to_the_redirect_url_with_event_completed(api):
    submitters = await send(api, await template(api), completed_redirect_url="https://example.com/done?x=1")
    reply = await act(api, submitters[0]["slug"], "complete", {"values": ANN_VALUES})
    assert reply.json["redirect_url"] == "https://example.com/done?x=1&event=completed"


async def test_decline_needs_a_reason_and_emits_form_declined_with_it(api, db):
    submitters = await send(api, await template(api), completed_redirect_url="https://example.com/done")
    assert (await act(api, submitters[0]["slug"], "decline", {})).json == {
        "error": "reason is required: say why the form is declined"
    }
    reply = await act(api, submitters[0]["slug"], "decline", {"reason": "Wrong amount"})
    assert (reply.status, reply.json["status"]) == (200, "declined")
    assert reply.json["redirect_url"] == "https://example.com/done?event=declined"
    assert await event_types(db, "submitter", submitters[0]["id"]) == ["form.declined"]
    assert (await db.fetch_one("get_submitter", id=submitters[0]["id"]))["decline_reason"] == "Wrong amount"


async def test_a_completed_submitter_can_act_no_more(api):
    submitters = await send(api, await template(api))
    await act(api, submitters[0]["slug"], "complete", {"values": ANN_VALUES})
    for action in ("view", "values", "complete", "decline"):
        reply = await act(api, submitters[0]["slug"], action, {"reason": "x"})
        assert (reply.status, reply.json) == (422, {"error": "Form has been completed already."})


async def test_a_declined_submitter_can_act_no_more_and_nor_can_the_others(api):
    submitters = await send(api, await template(api), order="random")
    await act(api, submitters[0]["slug"], "decline", {"reason": "No"})
    assert (await act(api, submitters[0]["slug"], "view")).json == {"error": "Form has been declined."}
    assert (await act(api, submitters[1]["slug"], "complete", {"values": BOB_VALUES})).json == {
        "error": "Form has been declined."
    }


async def test_in_preserved_order_a_submitter_waits_for_the_submitters_before(api):
    submitters = await send(api, await template(api))
    reply = await act(api, submitters[1]["slug"], "view")
    assert (reply.status, reply.json) == (
        422,
        {"error": "It is not this signer's turn yet: the signers before them have not completed"},
    )
    await act(api, submitters[0]["slug"], "complete", {"values": ANN_VALUES})
    assert (await act(api, submitters[1]["slug"], "view")).status == 200


async def test_in_random_order_every_submitter_may_act_at_once(api):
    submitters = await send(api, await template(api), order="random")
    assert (await act(api, submitters[1]["slug"], "complete", {"values": BOB_VALUES})).status == 200


async def test_a_read_only_field_cannot_be_changed_by_the_submitter(api):
    submitters = await send(
        api,
        await template(api),
        {"email": "ann@example.com", "values": {"Full Name": "Ann"}, "readonly_fields": ["Full Name"]},
    )
    reply = await act(api, submitters[0]["slug"], "values", {"values": {"Full Name": "Eve"}})
    assert (reply.status, reply.json) == (422, {"error": "Full Name is a read-only field"})


# Viewers: a role without fields


async def test_completing_every_submitter_with_fields_completes_the_submission_a_viewer_does_not_hold_it_open(
    api, db, worker
):
    ann, bob, _vic = await send(api, await template_with_viewer(api, at=2), ANN, BOB, VIC, order="random")
    await act(api, ann["slug"], "complete", {"values": ANN_VALUES})
    assert (await submission(api, ann["submission_id"]))["status"] == "pending"
    await act(api, bob["slug"], "complete", {"values": BOB_VALUES})
    found = await submission(api, ann["submission_id"])
    assert found["status"] == "completed" and found["completed_at"] == "2026-01-01T12:00:00.000Z"
    assert [s["status"] for s in found["submitters"]] == ["completed", "completed", "sent"]
    await worker.drain()
    assert await event_types(db, "submission", ann["submission_id"]) == ["submission.created", "submission.completed"]
    assert found["submitters"][2]["uuid"] == vic_role(await api.get(f"/api/templates/{found['template']['id']}"))


def vic_role(template_reply) -> str:
    return next(role["uuid"] for role in template_reply.json["submitters"] if role["name"] == "Viewer")


async def test_a_viewer_may_view_the_form_but_not_save_complete_or_decline_it_as_it_is_view_only(api, db):
    _ann, vic, _bob = await send(api, await template_with_viewer(api), ANN, VIC, BOB, order="random")
    assert (await act(api, vic["slug"], "view")).status == 200
    for action, body in (("values", {"values": {}}), ("complete", {}), ("decline", {"reason": "Not mine"})):
        reply = await act(api, vic["slug"], action, body)
        assert (reply.status, reply.json) == (422, {"error": "Form is view only."}), action
    assert (await submitter(api, vic["id"]))["status"] == "opened"
    assert await event_types(db, "submitter", vic["id"]) == ["form.viewed"]


async def test_in_preserved_order_a_viewer_waits_its_turn_but_holds_up_no_one_after_it(api):
    ann, vic, bob = await send(api, await template_with_viewer(api, at=1), ANN, VIC, BOB)
    assert [s["status"] for s in (ann, vic, bob)] == ["sent", "awaiting", "awaiting"]
    assert (await act(api, vic["slug"], "view")).status == 422
    await act(api, ann["slug"], "complete", {"values": ANN_VALUES})
    assert [(await submitter(api, s["id"]))["status"] for s in (vic, bob)] == ["sent", "sent"]
    assert (await act(api, vic["slug"], "view")).status == 200
    assert (await act(api, bob["slug"], "complete", {"values": BOB_VALUES})).status == 200
    assert (await submission(api, ann["submission_id"]))["status"] == "completed"


async def test_a_viewer_first_in_preserved_order_is_invited_with_the_first_signer(api):
    vic, ann, bob = await send(api, await template_with_viewer(api, at=0), VIC, ANN, BOB)
    assert [s["status"] for s in (vic, ann, bob)] == ["sent", "sent", "awaiting"]


async def test_an_unknown_signing_link_is_404(api):
    reply = await act(api, "nope", "view")
    assert (reply.status, reply.json) == (404, {"error": "Signing link not found"})


async def test_submitter_actions_need_no_api_key_and_ignore_one(api):
    submitters = await send(api, await template(api))
    reply = await api.with_key("wrong").post(f"/s/{submitters[0]['slug']}/view", json={})
    assert reply.status == 200


# GET /submitters/{id}


async def test_get_submitter_has_values_documents_template_and_its_events(api):
    submitters = await send(api, await template(api), {"email": "ann@example.com", "values": {"Full Name": "Ann"}})
    found = await submitter(api, submitters[0]["id"])
    assert found["values"] == [{"field": "Full Name", "value": "Ann"}] and found["documents"] == []
    assert found["template"]["name"] == "NDA"
    assert [e["event_type"] for e in found["submission_events"]] == ["send_email"]


async def test_a_submitters_uuid_is_its_template_roles_uuid_shared_by_every_submission(api):
    template_id = await template(api)
    roles = [role["uuid"] for role in (await api.get(f"/api/templates/{template_id}")).json["submitters"]]
    first, second = await send(api, template_id), await send(api, template_id)
    assert [s["uuid"] for s in first] == [s["uuid"] for s in second] == roles
    assert (await submitter(api, first[1]["id"]))["uuid"] == roles[1]
    assert [s["uuid"] for s in (await submission(api, second[0]["submission_id"]))["submitters"]] == roles
    listed = (await api.get(f"/api/submitters?submission_id={first[0]['submission_id']}")).json["data"]
    assert sorted(s["uuid"] for s in listed) == sorted(roles)


async def test_the_template_of_a_submitter_is_exactly_id_name_created_at_and_updated_at(api):
    template_id = await template(api, external_id="crm-1", folder_name="Sales")
    submitters = await send(api, template_id)
    record = (await api.get(f"/api/templates/{template_id}")).json
    brief = {key: record[key] for key in ("id", "name", "created_at", "updated_at")}
    assert (await submitter(api, submitters[0]["id"]))["template"] == brief
    assert [s["template"] for s in (await api.get("/api/submitters")).json["data"]] == [brief, brief]


async def test_get_submitter_of_another_account_is_403(api, other_account):
    submitters = await send(api, await template(api))
    assert (await api.with_key(other_account.live).get(f"/api/submitters/{submitters[0]['id']}")).status == 403


# PUT /submitters/{id}


async def test_put_submitter_fixes_contact_details_merges_values_and_replaces_metadata(api):
    submitters = await send(
        api, await template(api), {"email": "ann@exmaple.com", "values": {"Full Name": "Ann"}, "metadata": {"a": 1}}
    )
    reply = await api.put(
        f"/api/submitters/{submitters[0]['id']}",
        json={
            "email": "ann@example.com",
            "name": "Ann Smith",
            "values": {"Newsletter": "yes"},
            "metadata": {"b": 2},
            "external_id": "u-9",
        },
    )
    assert reply.status == 200, reply.json
    assert (reply.json["email"], reply.json["name"], reply.json["metadata"], reply.json["external_id"]) == (
        "ann@example.com",
        "Ann Smith",
        {"b": 2},
        "u-9",
    )
    assert reply.json["values"] == [{"field": "Full Name", "value": "Ann"}, {"field": "Newsletter", "value": True}]
    assert reply.json["embed_src"].endswith(submitters[0]["slug"])


async def test_put_submitter_completed_true_marks_it_completed_without_checking_required_fields(api, db, worker):
    submitters = await send(api, await template(api))
    reply = await api.put(f"/api/submitters/{submitters[0]['id']}", json={"completed": True})
    assert (reply.status, reply.json["status"]) == (200, "completed")
    await worker.drain()
    assert await event_types(db, "submitter", submitters[0]["id"]) == ["form.completed"]
    assert (await submitter(api, submitters[1]["id"]))["status"] == "sent", "the next signer is invited"


async def test_put_submitter_completed_true_marks_a_viewer_completed_without_completing_the_submission(api, db, worker):
    ann, vic, bob = await send(api, await template_with_viewer(api), ANN, VIC, BOB, order="random")
    reply = await api.put(f"/api/submitters/{vic['id']}", json={"completed": True})
    assert (reply.status, reply.json["status"]) == (200, "completed")
    await worker.drain()
    assert await event_types(db, "submitter", vic["id"]) == ["form.completed"]
    assert (await submission(api, ann["submission_id"]))["status"] == "pending"
    for signer, values in ((ann, ANN_VALUES), (bob, BOB_VALUES)):
        await act(api, signer["slug"], "complete", {"values": values})
    assert (await submission(api, ann["submission_id"]))["status"] == "completed"


async def test_a_viewer_of_a_completed_submission_cannot_be_changed(api):
    ann, vic, bob = await send(api, await template_with_viewer(api), ANN, VIC, BOB, order="random")
    for signer, values in ((ann, ANN_VALUES), (bob, BOB_VALUES)):
        await act(api, signer["slug"], "complete", {"values": values})
    for body in ({"completed": True}, {"name": "Eve"}, {"send_email": True}):
        reply = await api.put(f"/api/submitters/{vic['id']}", json=body)
        assert (reply.status, reply.json) == (422, {"error": "Submitter has already completed the submission."})


async def test_a_completed_submitter_cannot_be_changed(api):
    submitters = await send(api, await template(api))
    await api.put(f"/api/submitters/{submitters[0]['id']}", json={"completed": True})
    reply = await api.put(f"/api/submitters/{submitters[0]['id']}", json={"name": "Eve"})
    assert (reply.status, reply.json) == (422, {"error": "Submitter has already completed the submission."})


async def test_put_submitter_send_email_invites_only_when_no_invitation_was_sent(api):
    submitters = await send(api, await template(api), send_email=False)
    assert submitters[0]["status"] == "awaiting"
    reply = await api.put(f"/api/submitters/{submitters[0]['id']}", json={"send_email": True})
    assert (reply.json["status"], reply.json["sent_at"]) == ("sent", "2026-01-01T12:00:00.000Z")
    await api.put(f"/api/submitters/{submitters[0]['id']}", json={"send_email": True})
    events = (await submission(api, 1))["submission_events"]
    assert [e["event_type"] for e in events] == ["send_email"], "a second request sends nothing"


async def test_put_submitter_refuses_bad_input_with_a_clear_message(api):
    submitters = await send(api, await template(api))
    path = f"/api/submitters/{submitters[0]['id']}"
    for body, error in [
        ({"email": "nope"}, "email is invalid"),
        ({"metadata": "x"}, "metadata must be a Object"),
        ({"values": {"Nope": 1}}, "Unknown field: Nope in `values`."),
        ({"completed": "yes"}, "completed must be true or false"),
        ({"colour": 1}, "Unknown key: colour"),
    ]:
        reply = await api.put(path, json=body)
        assert (reply.status, reply.json) == (422, {"error": error}), body


async def test_put_submitter_prefills_through_fields_default_value_too(api):
    submitters = await send(api, await template(api))
    reply = await api.put(
        f"/api/submitters/{submitters[0]['id']}", json={"fields": [{"name": "Full Name", "default_value": "Ann F"}]}
    )
    assert reply.status == 200 and reply.json["values"] == [{"field": "Full Name", "value": "Ann F"}]
