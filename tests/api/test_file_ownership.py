"""A file belongs to its account: a value or a default that names a file by its id (the 32 hex characters every
`/file/` link shows) must name one the account may use, wherever it enters, and no link is ever signed to a file of
another account, even one already stored."""

from __future__ import annotations

import io
import re
from dataclasses import replace
from datetime import timedelta

import pypdf
import pytest

import storage.files as stored_files
import storage.submissions as stored
import storage.templates as stored_templates
from signsvc.accounts.accounts import Accounts
from signsvc.http.appkeys import FILES
from signsvc.infra.files import REMOVAL_GRACE
from tests.support.app import Api
from tests.support.console import signed_in
from tests.support.documents import b64, pdf, png
from tests.support.results import fetch
from tests.support.signing import act, area, submission

_FILE_ID = re.compile(r"/file/([0-9a-f]{32})\.")
FIELDS = [
    {"name": "Full Name", "type": "text", "role": "First Party", "areas": [area(0.1)]},
    {"name": "Photo", "type": "image", "role": "First Party", "required": False, "areas": [area(0.2)]},
    {"name": "Papers", "type": "file", "role": "First Party", "required": False, "areas": [area(0.3)]},
    {"name": "Buyer Photo", "type": "image", "role": "Second Party", "required": False, "areas": [area(0.4)]},
]
ANN = {"email": "ann@example.com", "name": "Ann", "role": "First Party"}
BOB = {"email": "bob@example.com", "name": "Bob", "role": "Second Party"}


def file_id(link: str) -> str:
    found = _FILE_ID.search(link)
    assert found, link
    return found.group(1)


async def make_template(api: Api, fields: list | None = None) -> int:
    reply = await api.post(
        "/api/templates",
        json={"name": "Photo form", "documents": [{"name": "form", "file": b64(pdf()), "fields": fields or FIELDS}]},
    )
    assert reply.status == 201, reply.json
    return reply.json["id"]


async def send(api: Api, template_id: int, *submitters: dict, **body) -> list[dict]:
    reply = await api.post(
        "/api/submissions", json={"template_id": template_id, "submitters": list(submitters) or [ANN, BOB], **body}
    )
    assert reply.status == 200, reply.json
    return reply.json


async def values_of(api: Api, submitter_id: int) -> dict:
    reply = await api.get(f"/api/submitters/{submitter_id}")
    assert reply.status == 200, reply.json
    return {v["field"]: v["value"] for v in reply.json["values"]}


async def uploaded(api: Api, template_id: int | None = None) -> str:
    """The id of a photo the account's signer uploaded on a submission of its own."""
    ann, _ = await send(api, template_id or await make_template(api))
    saved = await act(api, ann["slug"], "values", {"values": {"Photo": b64(png())}})
    assert saved.status == 200, saved.json
    return file_id((await values_of(api, ann["id"]))["Photo"])


@pytest.fixture
async def theirs(api: Api) -> str:
    """A file of account A (the default account), whose id account B has seen somewhere."""
    return await uploaded(api)


@pytest.fixture
def other(api: Api, other_account) -> Api:
    """Account B, acting through the API."""
    return api.with_key(other_account.live)


# Where a file id enters: each refuses a file of another account with a 422 naming the field


async def test_a_template_field_default_naming_another_accounts_file_is_refused(other, theirs):
    fields = [*FIELDS[:1], {**FIELDS[1], "default_value": theirs}]
    reply = await other.post(
        "/api/templates", json={"name": "x", "documents": [{"name": "form", "file": b64(pdf()), "fields": fields}]}
    )
    assert (reply.status, reply.json) == (
        422,
        {"error": f"Photo: default_value must name a file of this account by its id, not {theirs}"},
    )


async def test_a_template_update_naming_another_accounts_file_in_a_default_is_refused(other, theirs):
    template_id = await make_template(other)
    fields = (await other.get(f"/api/templates/{template_id}")).json["fields"]
    papers = next(f for f in fields if f["name"] == "Papers")
    papers["default_value"] = [theirs]
    reply = await other.put(f"/api/templates/{template_id}", json={"fields": fields})
    assert (reply.status, reply.json) == (
        422,
        {"error": f"Papers: default_value must name a file of this account by its id, not {theirs}"},
    )
    assert "default_value" not in next(
        f for f in (await other.get(f"/api/templates/{template_id}")).json["fields"] if f["name"] == "Papers"
    )


async def test_the_field_editors_save_naming_another_accounts_file_in_a_default_is_refused(other, theirs):
    template_id = await make_template(other)
    fields = (await other.get(f"/api/templates/{template_id}")).json["fields"]
    console = await signed_in(other, "other@example.com")
    await console.get(f"/console/templates/{template_id}")
    edited = [{**f, "default_value": theirs} if f["name"] == "Photo" else f for f in fields]
    reply = await console.post_json(f"/console/templates/{template_id}/fields", {"fields": edited})
    assert (reply.status, reply.json) == (
        422,
        {"error": f"Photo: default_value must name a file of this account by its id, not {theirs}"},
    )
    assert all("default_value" not in f for f in (await other.get(f"/api/templates/{template_id}")).json["fields"])


async def test_a_default_of_an_image_field_must_name_an_image(api):
    document = file_id((await api.get(f"/api/templates/{await make_template(api)}")).json["documents"][0]["url"])
    reply = await api.post(
        "/api/templates",
        json={
            "name": "x",
            "documents": [{"name": "form", "file": b64(pdf()), "fields": [{**FIELDS[1], "default_value": document}]}],
        },
    )
    assert (reply.status, reply.json) == (
        422,
        {"error": f"Photo: default_value must name an image, the file {document} is not one"},
    )


async def test_a_value_of_an_image_field_must_name_an_image(api):
    template_id = await make_template(api)
    document = file_id((await api.get(f"/api/templates/{template_id}")).json["documents"][0]["url"])
    reply = await api.post(
        "/api/submissions",
        json={"template_id": template_id, "submitters": [{**ANN, "values": {"Photo": document, "Papers": [document]}}]},
    )
    assert (reply.status, reply.json) == (
        422,
        {"error": f"Photo: the file {document} is not an image in `submitters[0].values`."},
    )


async def test_a_default_of_a_file_field_must_be_a_file_id_not_other_text(api):
    fields = [*FIELDS[:1], {**FIELDS[1], "default_value": "https://example.com/photo.png"}]
    reply = await api.post(
        "/api/templates", json={"name": "x", "documents": [{"name": "form", "file": b64(pdf()), "fields": fields}]}
    )
    assert reply.status == 422
    assert reply.json["error"].startswith("Photo: default_value must name a file of this account by its id")


async def test_a_template_default_naming_an_own_file_is_kept_and_shown_on_the_form(api):
    own = await uploaded(api)
    template_id = await make_template(api, [{**FIELDS[1], "default_value": own}, *FIELDS[2:]])
    ann, _ = await send(api, template_id)
    page = await api.with_key(None).get(f"/s/{ann['slug']}")
    assert page.status == 200 and f"/file/{own}." in page.body.decode()


async def test_cloning_a_template_whose_stored_default_names_another_accounts_file_is_refused(other, db, theirs):
    template_id = await make_template(other)
    template = await stored_templates.get_template(db, template_id)
    fields = [{**f, "default_value": theirs} if f["name"] == "Photo" else f for f in template.fields]
    async with db.transaction() as tx:  # as if stored before defaults were checked
        await stored_templates.update_template(tx, template, {"fields": fields}, template.updated_at)
    reply = await other.post(f"/api/templates/{template_id}/clone", json={})
    assert reply.status == 422 and reply.json["error"].startswith("Photo: default_value must name a file")


async def test_prefilled_values_naming_another_accounts_file_are_refused(other, theirs):
    template_id = await make_template(other)
    reply = await other.post(
        "/api/submissions", json={"template_id": template_id, "submitters": [{**ANN, "values": {"Photo": theirs}}]}
    )
    assert (reply.status, reply.json) == (
        422,
        {"error": f"Photo: the file {theirs} is not a file of this account in `submitters[0].values`."},
    )


async def test_submission_field_overrides_naming_another_accounts_file_are_refused(other, theirs):
    template_id = await make_template(other)
    reply = await other.post(
        "/api/submissions",
        json={
            "template_id": template_id,
            "submitters": [{**ANN, "fields": [{"name": "Papers", "default_value": theirs}]}],
        },
    )
    assert reply.status == 422
    assert reply.json["error"].startswith(f"Papers: the file {theirs} is not a file of this account")


async def test_put_submitter_values_naming_another_accounts_file_are_refused(other, theirs):
    ann, _ = await send(other, await make_template(other))
    reply = await other.put(f"/api/submitters/{ann['id']}", json={"values": {"Photo": theirs}})
    assert (reply.status, reply.json) == (
        422,
        {"error": f"Photo: the file {theirs} is not a file of this account in `values`."},
    )
    reply = await other.put(
        f"/api/submitters/{ann['id']}",
        json={
            "fields": [{"name": "Photo", "default_value": theirs}],
            "completed": True,
            "values": {"Full Name": "Ann"},
        },
    )
    assert reply.status == 422
    assert await values_of(other, ann["id"]) == {}


async def test_the_signing_form_refuses_another_accounts_file_in_a_saved_value(other, theirs):
    ann, _ = await send(other, await make_template(other))
    reply = await act(other, ann["slug"], "values", {"values": {"Photo": theirs}})
    assert (reply.status, reply.json) == (
        422,
        {
            "error": f"Photo: the file {theirs} is not a file this signer uploaded or one a field default names in "
            "`values`."
        },
    )
    completed = await act(other, ann["slug"], "complete", {"values": {"Full Name": "Ann", "Papers": [theirs]}})
    assert completed.status == 422 and f"the file {theirs} is not a file this signer" in completed.json["error"]
    assert await values_of(other, ann["id"]) == {}


async def test_a_signer_may_not_name_another_file_of_the_same_account_from_outside_the_submission(api):
    elsewhere = await uploaded(api)
    ann, _ = await send(api, await make_template(api))
    reply = await act(api, ann["slug"], "values", {"values": {"Photo": elsewhere}})
    assert (
        reply.status == 422 and "is not a file this signer uploaded or one a field default names" in reply.json["error"]
    )


async def test_the_testing_extensions_complete_refuses_another_accounts_file(aiohttp_client, make_app, db, clock):
    kit = Api(await aiohttp_client(make_app(testing=True)))
    theirs = await uploaded(kit)
    keys = await Accounts(db, clock).create_account(name="Other", email="other@example.com", approved=True)
    other = kit.with_key(keys.live)
    ann, _ = await send(other, await make_template(other))
    reply = await other.post(
        f"/api/_testing/submitters/{ann['id']}/complete", json={"values": {"Full Name": "Ann", "Photo": theirs}}
    )
    assert reply.status == 422 and f"the file {theirs} is not a file this signer" in reply.json["error"]
    assert (await values_of(other, ann["id"])) == {}


# Files an account or a signer may name


async def test_the_api_may_name_any_file_of_its_own_account_and_the_submission_gets_its_own_record(api):
    own = await uploaded(api)
    ann, _ = await send(api, await make_template(api), {**ANN, "values": {"Photo": own}}, BOB)
    shown = file_id((await values_of(api, ann["id"]))["Photo"])
    assert shown != own
    served = await api.with_key(None).get((await values_of(api, ann["id"]))["Photo"].split("signsvc.test")[1])
    assert served.status == 200 and served.body == png()


async def test_a_signer_may_name_again_a_file_they_uploaded_themselves(api):
    ann, _ = await send(api, await make_template(api))
    await act(api, ann["slug"], "values", {"values": {"Photo": b64(png())}})
    photo = file_id((await values_of(api, ann["id"]))["Photo"])
    again = await act(api, ann["slug"], "complete", {"values": {"Full Name": "Ann", "Photo": photo, "Papers": [photo]}})
    assert again.status == 200, again.json
    assert file_id((await values_of(api, ann["id"]))["Photo"]) == photo


async def test_a_signer_may_not_name_a_file_another_signer_of_the_submission_gave(api):
    ann, bob = await send(api, await make_template(api))
    completed = await act(api, ann["slug"], "complete", {"values": {"Full Name": "Ann", "Photo": b64(png())}})
    assert completed.status == 200, completed.json
    photo = file_id((await values_of(api, ann["id"]))["Photo"])
    reply = await act(api, bob["slug"], "values", {"values": {"Buyer Photo": photo}})
    assert (reply.status, reply.json) == (
        422,
        {
            "error": f"Buyer Photo: the file {photo} is not a file this signer uploaded or one a field default "
            "names in `values`."
        },
    )
    assert await values_of(api, bob["id"]) == {}


SIGNED = [
    {"name": "Seller Signature", "type": "signature", "role": "First Party", "areas": [area(0.1)]},
    {"name": "Buyer Signature", "type": "signature", "role": "Second Party", "areas": [area(0.5)]},
    {"name": "Buyer Initials", "type": "initials", "role": "Second Party", "required": False, "areas": [area(0.6)]},
]


async def test_a_signer_may_name_the_file_a_field_default_names_and_gets_a_copy(api, db):
    own = await uploaded(api)
    template_id = await make_template(api, [FIELDS[0], {**FIELDS[1], "default_value": own}, *FIELDS[2:]])
    ann, _ = await send(api, template_id)
    completed = await act(api, ann["slug"], "complete", {"values": {"Full Name": "Ann", "Photo": own}})
    assert completed.status == 200, completed.json
    photo = file_id((await values_of(api, ann["id"]))["Photo"])
    assert photo != own and photo in {a.uuid for a in await stored.attachments_of(db, ann["submission_id"])}


async def test_the_next_signer_may_not_sign_with_the_first_signers_signature(api):
    ann, bob = await send(api, await make_template(api, SIGNED))
    signed = await act(api, ann["slug"], "complete", {"values": {"Seller Signature": b64(png())}})
    assert signed.status == 200, signed.json
    signature = file_id((await values_of(api, ann["id"]))["Seller Signature"])
    form = await api.with_key(None).get(f"/s/{bob['slug']}")
    assert f"/file/{signature}." in form.body.decode()  # the next signer sees the id
    for action in ("values", "complete"):
        for name in ("Buyer Signature", "Buyer Initials"):
            reply = await act(api, bob["slug"], action, {"values": {"Buyer Signature": b64(png()), name: signature}})
            assert reply.status == 422, reply.json
            assert reply.json["error"].startswith(f"{name}: the file {signature} is not a file this signer uploaded")
    assert await values_of(api, bob["id"]) == {}


async def test_the_api_may_still_give_a_signer_a_file_of_another_signer(api):
    ann, bob = await send(api, await make_template(api))
    await act(api, ann["slug"], "complete", {"values": {"Full Name": "Ann", "Photo": b64(png())}})
    photo = file_id((await values_of(api, ann["id"]))["Photo"])
    reply = await api.put(f"/api/submitters/{bob['id']}", json={"values": {"Buyer Photo": photo}})
    assert reply.status == 200, reply.json
    assert file_id((await values_of(api, bob["id"]))["Buyer Photo"]) == photo
    # What the signer's values already name, the signer may send back.
    assert (await act(api, bob["slug"], "values", {"values": {"Buyer Photo": photo}})).status == 200


# Links: never to a file of another account, even one already stored


async def test_a_stored_value_naming_another_accounts_file_is_never_linked(other, db, theirs):
    ann, _ = await send(other, await make_template(other))
    submitter = await stored.get_submitter(db, ann["id"])
    photo = next(f["uuid"] for f in (await stored.submission_of(db, submitter)).fields if f["name"] == "Photo")
    papers = next(f["uuid"] for f in (await stored.submission_of(db, submitter)).fields if f["name"] == "Papers")
    async with db.transaction() as tx:
        await stored.update_submitter(
            tx, replace(submitter, field_values={photo: theirs, papers: [theirs]}), submitter.updated_at
        )
    assert await values_of(other, ann["id"]) == {"Photo": None, "Papers": []}
    page = await other.with_key(None).get(f"/s/{ann['slug']}")
    assert page.status == 200 and theirs not in page.body.decode()


async def test_a_stored_default_naming_another_accounts_file_is_never_linked_on_the_form(other, db, theirs):
    template_id = await make_template(other)
    template = await stored_templates.get_template(db, template_id)
    fields = [{**f, "default_value": theirs} if f["name"] == "Photo" else f for f in template.fields]
    async with db.transaction() as tx:  # as if stored before defaults were checked
        await stored_templates.update_template(tx, template, {"fields": fields}, template.updated_at)
    ann, _ = await send(other, template_id)
    page = await other.with_key(None).get(f"/s/{ann['slug']}")
    assert page.status == 200 and theirs not in page.body.decode()
    completed = await act(other, ann["slug"], "complete", {"values": {"Full Name": "Ann"}})
    assert completed.status == 200, completed.json
    assert (await values_of(other, ann["id"]))["Photo"] is None


# Replaced uploads go; a submitter's uploads have a bound


async def test_an_upload_replaced_by_the_signer_is_deleted_with_its_record(api, db, clock):
    ann, _ = await send(api, await make_template(api))
    await act(api, ann["slug"], "values", {"values": {"Photo": b64(png(300, 200))}})
    first = file_id((await values_of(api, ann["id"]))["Photo"])
    content = (await stored_files.find_blob(db, first)).sha256
    for size in range(301, 310):
        assert (await act(api, ann["slug"], "values", {"values": {"Photo": b64(png(size, 200))}})).status == 200
    last = file_id((await values_of(api, ann["id"]))["Photo"])
    held = await stored.attachments_of(db, ann["submission_id"])
    assert [a.uuid for a in held] == [last]
    assert await stored_files.find_blob(db, first) is None
    files = api.app[FILES]
    clock.advance(REMOVAL_GRACE + timedelta(seconds=1))
    [sweep] = files.kinds()
    await sweep.handler({})
    assert await files.contents.get(content) is None


async def test_a_replaced_upload_another_value_still_names_is_kept(api, db):
    ann, bob = await send(api, await make_template(api))
    await act(api, ann["slug"], "values", {"values": {"Photo": b64(png())}})
    photo = file_id((await values_of(api, ann["id"]))["Photo"])
    assert (await api.put(f"/api/submitters/{bob['id']}", json={"values": {"Buyer Photo": photo}})).status == 200
    await act(api, ann["slug"], "values", {"values": {"Photo": b64(png(310, 200))}})
    assert photo in {a.uuid for a in await stored.attachments_of(db, ann["submission_id"])}
    assert file_id((await values_of(api, bob["id"]))["Buyer Photo"]) == photo


async def test_files_in_a_file_field_replaced_through_the_api_are_deleted(api, db):
    ann, _ = await send(api, await make_template(api))
    first = await api.put(f"/api/submitters/{ann['id']}", json={"values": {"Papers": [b64(pdf()), b64(png())]}})
    assert first.status == 200, first.json
    old = [file_id(link) for link in (await values_of(api, ann["id"]))["Papers"]]
    assert (await api.put(f"/api/submitters/{ann['id']}", json={"values": {"Papers": [b64(pdf(2))]}})).status == 200
    held = {a.uuid for a in await stored.attachments_of(db, ann["submission_id"])}
    assert len(held) == 1 and not held & set(old)
    assert [await stored_files.find_blob(db, uuid) for uuid in old] == [None, None]


async def test_the_bound_holds_for_files_given_through_the_api_too(aiohttp_client, make_app, db):
    bounded = Api(await aiohttp_client(make_app(submitter_uploads_bytes=len(png()) + 10)))
    ann, _ = await send(bounded, await make_template(bounded))
    reply = await bounded.put(
        f"/api/submitters/{ann['id']}", json={"values": {"Photo": b64(png()), "Papers": [b64(png())]}}
    )
    assert reply.status == 413 and "remove or replace some" in reply.json["error"]
    assert await stored.attachments_of(db, ann["submission_id"]) == []
    unbounded = Api(await aiohttp_client(make_app(submitter_uploads_bytes=0)))
    reply = await unbounded.put(
        f"/api/submitters/{ann['id']}", json={"values": {"Photo": b64(png()), "Papers": [b64(png())]}}
    )
    assert reply.status == 200, reply.json


async def test_a_submitters_uploads_have_a_total_bound(aiohttp_client, make_app, db):
    size = len(png(300, 200))
    bounded = Api(await aiohttp_client(make_app(submitter_uploads_bytes=size * 2 + 10)))
    ann, _ = await send(bounded, await make_template(bounded))
    assert (await act(bounded, ann["slug"], "values", {"values": {"Photo": b64(png(300, 200))}})).status == 200
    # Replacing the photo again and again frees what it replaced.
    assert (await act(bounded, ann["slug"], "values", {"values": {"Photo": b64(png(300, 200))}})).status == 200
    over = await act(bounded, ann["slug"], "values", {"values": {"Papers": [b64(png(300, 200)), b64(png(300, 200))]}})
    assert over.status == 413
    assert over.json["error"].startswith("The files given for this signer would take")
    assert "remove or replace some" in over.json["error"]
    assert {v for v in await values_of(bounded, ann["id"])} == {"Photo"}
    assert len(await stored.attachments_of(db, ann["submission_id"])) == 1


# A default that names a file is the submission's own once applied, like a value naming it


def images_on(data: bytes) -> list[bytes]:
    return [image.data for page in pypdf.PdfReader(io.BytesIO(data)).pages for image in page.images]


async def test_an_image_default_the_signer_left_is_recorded_for_the_submission_and_drawn_on_the_signed_pdf(
    api, db, worker
):
    own = await uploaded(api)
    template_id = await make_template(api, [FIELDS[0], {**FIELDS[1], "default_value": own}, *FIELDS[2:]])
    ann, bob = await send(api, template_id)
    assert (await act(api, ann["slug"], "complete", {"values": {"Full Name": "Ann"}})).status == 200
    photo = file_id((await values_of(api, ann["id"]))["Photo"])
    assert photo != own and photo in {a.uuid for a in await stored.attachments_of(db, ann["submission_id"])}
    assert (await act(api, bob["slug"], "complete", {"values": {}})).status == 200
    await worker.drain()
    found = await submission(api, ann["submission_id"])
    [document] = found["documents"]
    assert len(images_on(await fetch(api, document["url"]))) == 1
    assert len(images_on(await fetch(api, found["audit_log_url"]))) >= 1


async def test_a_signature_default_is_drawn_on_the_signed_pdf_when_completed_through_the_api(api, db, worker):
    own = await uploaded(api)
    template_id = await make_template(api, [{**SIGNED[0], "default_value": own}])
    [ann] = await send(api, template_id, ANN)
    completed = await api.put(f"/api/submitters/{ann['id']}", json={"completed": True})
    assert completed.status == 200, completed.json
    signature = file_id((await values_of(api, ann["id"]))["Seller Signature"])
    assert signature in {a.uuid for a in await stored.attachments_of(db, ann["submission_id"])}
    await worker.drain()
    [document] = (await submission(api, ann["submission_id"]))["documents"]
    assert len(images_on(await fetch(api, document["url"]))) == 1


async def test_a_one_off_submission_field_default_naming_another_accounts_file_is_refused(other, theirs):
    fields = [*FIELDS[:1], {**FIELDS[1], "default_value": theirs}]
    reply = await other.post(
        "/api/submissions/pdf",
        json={
            "documents": [{"name": "form", "file": b64(pdf()), "fields": fields}],
            "submitters": [{"email": "ann@example.com"}],
        },
    )
    assert (reply.status, reply.json) == (
        422,
        {"error": f"Photo: default_value must name a file of this account by its id, not {theirs}"},
    )
