"""The writes of a creation and a completion made in fewer statements: the copies of the template's files and
the submitters inserted at once, and a completion that writes its changes with it."""

from datetime import timedelta

import pytest

import storage.files as stored_files
import storage.submissions as stored
import storage.templates as stored_templates
from tests.support.app import Api
from tests.support.documents import b64, pdf
from tests.support.samples import text_pdf
from tests.support.signing import FIELDS, act, area, send, submission, template


async def test_each_document_of_a_submission_owns_copies_of_its_template_files_in_order(api, db):
    reply = await api.post(
        "/api/templates",
        json={
            "name": "Two",
            "documents": [
                {"name": "first", "file": b64(pdf()), "fields": FIELDS},
                {"name": "second", "file": b64(text_pdf("Second document", "Page two")), "fields": []},
            ],
        },
    )
    assert reply.status == 201, reply.json
    originals = await stored_templates.list_documents(db, reply.json["id"])
    submitters = await send(api, reply.json["id"])
    documents = (await stored.get_submission(db, submitters[0]["submission_id"])).documents
    assert [d["name"] for d in documents] == ["first", "second"]
    for original, copy in zip(originals, documents, strict=True):
        assert [p["filename"] for p in copy["previews"]] == [p["filename"] for p in original.previews]
        pairs = [
            (original.blob_id, copy["blob_id"]),
            *((p["id"], c["id"]) for p, c in zip(original.previews, copy["previews"], strict=True)),
        ]
        for source_id, copy_id in pairs:
            source, copied = await stored_files.get_blob(db, source_id), await stored_files.get_blob(db, copy_id)
            assert copy_id != source_id and copied.uuid != source.uuid
            assert (copied.sha256, copied.filename, copied.byte_size) == (
                source.sha256,
                source.filename,
                source.byte_size,
            )
        assert copy["blob_uuid"] == (await stored_files.get_blob(db, copy["blob_id"])).uuid
    copied_ids = [i for d in documents for i in (d["blob_id"], *(p["id"] for p in d["previews"]))]
    assert copied_ids == sorted(copied_ids) and len(set(copied_ids)) == len(copied_ids)


async def test_copies_of_one_file_asked_twice_are_two_files_answered_in_the_order_asked(api, db, clock):
    template_id = await template(api)
    blob_id = (await stored_templates.list_documents(db, template_id))[0].blob_id
    async with db.transaction() as tx:
        copies = await stored.copy_blobs(tx, [(blob_id, "b" * 32), (blob_id, "a" * 32)], clock.now())
    assert [c.uuid for c in copies] == ["b" * 32, "a" * 32] and copies[0].id < copies[1].id
    assert all(c.created_at == clock.now() for c in copies)


async def test_copying_a_file_that_does_not_exist_is_refused(api, db, clock):
    with pytest.raises(LookupError):
        async with db.transaction() as tx:
            await stored.copy_blobs(tx, [(10**9, "c" * 32)], clock.now())


async def test_submitters_inserted_at_once_keep_their_json_and_come_back_in_order_of_position(api, db, clock):
    sent = await stored.get_submission(db, (await send(api, await template(api)))[0]["submission_id"])
    metadata = {"zoë": ["ü", 1.5, None, {"nested": True}], "a": 'quote " and \\'}
    later = clock.now() + timedelta(seconds=1)

    def signer(position: int, **columns) -> dict:
        return {
            "uuid": f"uuid-{position}",
            "slug": f"slug-{position}",
            "role_uuid": f"role-{position}",
            "role": f"Role {position}",
            "position": position,
            "name": None,
            "email": f"{position}@example.com",
            "phone": None,
            "external_id": None,
            "metadata": {},
            "preferences": {"send_email": False},
            "field_values": {},
            **columns,
        }

    async with db.transaction() as tx:
        inserted = await stored.insert_submitters(
            tx,
            submission_id=sent.id,
            account_id=sent.account_id,
            now=later,
            signers=[signer(7, metadata=metadata, name="Seven"), signer(5, field_values={"f": "Ünïcode"})],
        )
    assert [(s.position, s.name) for s in inserted] == [(5, None), (7, "Seven")]
    assert inserted[1].metadata == metadata and inserted[0].field_values == {"f": "Ünïcode"}
    assert inserted[0].id < inserted[1].id and inserted[0].created_at == inserted[0].updated_at == later
    assert [s for s in await stored.submitters_of(db, sent.id) if s.position in (5, 7)] == inserted


async def test_a_put_with_changes_and_completed_writes_both(api):
    submitters = await send(api, await template(api))
    reply = await api.put(
        f"/api/submitters/{submitters[0]['id']}",
        json={
            "name": "Ann Changed",
            "metadata": {"k": "v"},
            "completed": True,
            "values": {"Full Name": "Ann Smith", "Signature": "Ann Smith"},
        },
    )
    assert reply.status == 200, reply.json
    found = (await submission(api, submitters[0]["submission_id"]))["submitters"][0]
    for shown in (reply.json, found):
        assert (shown["name"], shown["metadata"], shown["status"]) == ("Ann Changed", {"k": "v"}, "completed")
        assert {v["field"]: v["value"] for v in shown["values"]}["Full Name"] == "Ann Smith"


async def test_a_form_submitted_at_its_first_save_records_start_then_complete_and_keeps_the_values(api):
    submitters = await send(api, template_id := await template(api))
    fields = {f["name"]: f["uuid"] for f in (await api.get(f"/api/templates/{template_id}")).json["fields"]}
    reply = await act(
        api, submitters[0]["slug"], "complete", {"values": {fields["Full Name"]: "Ann", fields["Signature"]: "Ann"}}
    )
    assert reply.status == 200, reply.json
    found = (await api.get(f"/api/submitters/{submitters[0]['id']}")).json
    assert found["status"] == "completed" and found["opened_at"] == found["completed_at"]
    assert [e["event_type"] for e in found["submission_events"]] == ["send_email", "start_form", "complete_form"]
    assert {v["field"]: v["value"] for v in found["values"]}["Full Name"] == "Ann"


async def test_a_submission_that_sends_no_email_answers_its_submitters_as_stored(api):
    submitters = await send(
        api,
        await template(api),
        {"email": "ann@example.com", "values": {"Full Name": "Ann"}},
        {"email": "bob@example.com", "metadata": {"k": 1}},
        send_email=False,
    )
    for answered in submitters:
        stored_one = (await api.get(f"/api/submitters/{answered['id']}")).json
        for key in (
            "id",
            "slug",
            "uuid",
            "email",
            "status",
            "metadata",
            "preferences",
            "values",
            "sent_at",
            "created_at",
            "updated_at",
        ):
            assert answered[key] == stored_one[key], key
    assert [s["preferences"]["send_email"] for s in submitters] == [False, False]


PLAIN_FIELDS = [
    {"name": "Full Name", "type": "text", "role": "First Party", "areas": [area(0.1)]},
    {"name": "Buyer Name", "type": "text", "role": "Second Party", "areas": [area(0.4)]},
]


async def test_a_signer_completed_through_the_api_is_read_with_its_submission_at_once_and_nothing_after_the_commit(
    aiohttp_client, make_app, db
):
    """The named statements of `PUT /api/submitters/{id}` with `completed` and plain values, rate limits lifted:
    get_submitter_with_submission; in the transaction lock_submission, list_submitters_of, list_attachments (for
    the bound on the signer's files), update_submitter, insert_submission_event, insert_job, and for the first the
    next signer's invitation (insert_email, update_submitter, insert_submission_event), for the last
    complete_submission. The answer is made of what the transaction read: nothing after the commit."""
    api = Api(await aiohttp_client(make_app(rate_limit_per_key=0, rate_limit_per_ip=0)))
    submitters = await send(api, await template(api, PLAIN_FIELDS))
    costs = []
    for signer, values in zip(submitters, ({"Full Name": "Ann"}, {"Buyer Name": "Bob"}), strict=True):
        before = db.statements
        reply = await api.put(f"/api/submitters/{signer['id']}", json={"completed": True, "values": values})
        assert reply.status == 200 and reply.json["status"] == "completed", reply.json
        costs.append(db.statements - before)
        stored_one = (await api.get(f"/api/submitters/{signer['id']}")).json
        shared = reply.json.keys() - {"embed_src"}  # the one key a GET does not show
        assert {k: reply.json[k] for k in shared} == {k: stored_one[k] for k in shared}, "answered as stored"
    assert costs == [10, 8]
