"""Signature formats (`preferences.format` of a signature field): the modes each takes, on the signer's form and
through the API; the account's setting that allows typed signatures; signing reasons and `with_signature_id`
drawn beside the signature in the signed document."""

import hashlib
import io
import re
from datetime import UTC, timedelta
from urllib.parse import urlsplit

import pypdf
import pytest

import storage.signature_modes as stored_modes
from signsvc.pdf import colors
from tests.support.console import signed_in
from tests.support.documents import b64, pdf, png
from tests.support.pdf_text import page_texts
from tests.support.results import fetch
from tests.support.signing import act, send, submission, template

DRAWING = "data:image/png;base64," + b64(png(300, 100))


def sign_field(**preferences) -> list[dict]:
    area = {"x": 0.1, "y": 0.5, "w": 0.3, "h": 0.08, "page": 1}
    return [
        {"name": "Signature", "type": "signature", "role": "First Party", "areas": [area], "preferences": preferences}
    ]


async def signer(api, **preferences) -> dict:
    [ann] = await send(api, await template(api, sign_field(**preferences)), {"email": "ann@example.com", "name": "Ann"})
    return ann


async def stored_origin(db, api, submitter_id: int):
    found = await api.get(f"/api/submitters/{submitter_id}")
    link = next(v["value"] for v in found.json["values"] if v["field"] == "Signature")
    [uuid] = re.findall(r"/file/([0-9a-f]{32})", link)
    return (await stored_modes.origins(db, [uuid])).get(uuid), uuid


async def signed_pdf_text(api, worker, submission_id: int) -> str:
    await worker.drain()
    found = await submission(api, submission_id)
    return "\n".join(page_texts(await fetch(api, found["documents"][0]["url"])))


# Each format takes its modes only


@pytest.mark.parametrize(
    ("format", "typed", "drawn", "uploaded"),
    [
        (None, True, True, True),
        ("drawn", False, True, False),
        ("typed", True, False, False),
        ("drawn_or_typed", True, True, False),
        ("drawn_or_upload", False, True, True),
        ("upload", False, False, True),
        ("typed_or_upload", True, False, True),
    ],
)
async def test_each_signature_format_takes_exactly_the_modes_of_its_table_from_the_signer(
    api, format, typed, drawn, uploaded
):
    preferences = {"format": format} if format else {}
    ann = await signer(api, **preferences)
    for value, mode, allowed in (("Ann Smith", None, typed), (DRAWING, "drawn", drawn), (DRAWING, "upload", uploaded)):
        body = {"values": {"Signature": value}, **({"signatures": {"Signature": {"mode": mode}}} if mode else {})}
        reply = await act(api, ann["slug"], "values", body)
        assert reply.status == (200 if allowed else 422), (format, mode, reply.json)
        if not allowed:
            assert reply.json["error"].startswith("Signature: a"), reply.json
            assert "signature is not allowed here, only" in reply.json["error"]


async def test_the_form_offers_exactly_the_modes_the_format_takes(api):
    offered = {}
    for format in ("drawn", "typed", "drawn_or_typed", "drawn_or_upload", "upload", "typed_or_upload"):
        ann = await signer(api, format=format)
        html = (await api.with_key(None).get(f"/s/{ann['slug']}")).body.decode()
        offered[format] = re.findall(r'data-pane="(\w+)"', html)
    assert offered == {
        "drawn": ["draw"],
        "typed": ["type"],
        "drawn_or_typed": ["draw", "type"],
        "drawn_or_upload": ["draw", "upload"],
        "upload": ["upload"],
        "typed_or_upload": ["type", "upload"],
    }


async def test_a_drawn_only_signature_refuses_typed_text_through_put_submitters_naming_the_field(api):
    ann = await signer(api, format="drawn")
    reply = await api.put(f"/api/submitters/{ann['id']}", json={"values": {"Signature": "Ann"}, "completed": True})
    assert reply.status == 422
    assert reply.json == {"error": "Signature: a typed signature is not allowed here, only drawn in `values`."}
    assert (await api.put(f"/api/submitters/{ann['id']}", json={"values": {"Signature": DRAWING}})).status == 200


async def test_a_typed_only_signature_refuses_a_picture_through_put_submitters(api):
    ann = await signer(api, format="typed")
    reply = await api.put(f"/api/submitters/{ann['id']}", json={"values": {"Signature": DRAWING}})
    assert reply.status == 422
    assert reply.json == {
        "error": "Signature: a drawn or uploaded signature is not allowed here, only typed in `values`."
    }


async def test_a_stored_signature_carries_how_it_was_made(api, db):
    ann = await signer(api)
    for value, mode, made_as in (("Ann", None, "typed"), (DRAWING, "drawn", "drawn"), (DRAWING, "upload", "upload")):
        body = {"values": {"Signature": value}, **({"signatures": {"Signature": {"mode": mode}}} if mode else {})}
        assert (await act(api, ann["slug"], "values", body)).status == 200
        origin, _ = await stored_origin(db, api, ann["id"])
        assert origin.made_as == made_as


async def test_a_signer_cannot_name_an_uploaded_file_for_a_drawn_only_field(api):
    fields = [
        *sign_field(format="upload"),
        {
            **sign_field(format="drawn")[0],
            "name": "Drawn",
            "areas": [{"x": 0.5, "y": 0.1, "w": 0.3, "h": 0.08, "page": 1}],
        },
    ]
    [ann] = await send(api, await template(api, fields), {"email": "ann@example.com"})
    body = {"values": {"Signature": DRAWING}, "signatures": {"Signature": {"mode": "upload"}}}
    assert (await act(api, ann["slug"], "values", body)).status == 200
    found = await api.get(f"/api/submitters/{ann['id']}")
    [uuid] = re.findall(
        r"/file/([0-9a-f]{32})", next(v["value"] for v in found.json["values"] if v["field"] == "Signature")
    )
    reply = await act(api, ann["slug"], "values", {"values": {"Drawn": uuid}})
    assert reply.status == 422
    assert reply.json["error"] == "Drawn: an uploaded signature is not allowed here, only drawn in `values`."


async def test_a_mode_the_signer_names_must_be_a_known_one_of_a_signature_field(api):
    ann = await signer(api)
    bad = await act(api, ann["slug"], "values", {"values": {}, "signatures": {"Signature": {"mode": "painted"}}})
    assert bad.status == 422 and bad.json["error"].startswith("Signature: mode must be one of")
    unknown = await act(api, ann["slug"], "values", {"values": {}, "signatures": {"nope": {"mode": "drawn"}}})
    assert unknown.status == 422 and unknown.json["error"].startswith("Unknown signature field: nope")


# The account's setting


async def typed_box(console) -> str:
    page = (await console.get("/console/settings/signatures")).body.decode()
    return re.search(r'<input id="typed"[^>]*>', page).group()


async def test_the_typed_signature_setting_turns_typing_off_where_a_field_offers_it_among_others(api):
    console = await signed_in(api)
    assert "checked" in await typed_box(console)
    assert (await console.post("/console/settings/signatures", {})).status == 303  # the box unticked
    assert "checked" not in await typed_box(console)
    unset, either, typed_only = (
        await signer(api),
        await signer(api, format="drawn_or_typed"),
        await signer(api, format="typed"),
    )
    for ann in (unset, either):
        reply = await act(api, ann["slug"], "values", {"values": {"Signature": "Ann"}})
        assert reply.status == 422, reply.json
        html = (await api.with_key(None).get(f"/s/{ann['slug']}")).body.decode()
        assert 'data-pane="type"' not in html
    assert (await act(api, typed_only["slug"], "values", {"values": {"Signature": "Ann"}})).status == 200
    # The API's own values follow the field's format only.
    assert (await api.put(f"/api/submitters/{unset['id']}", json={"values": {"Signature": "Ann"}})).status == 200
    assert (await console.post("/console/settings/signatures", {"typed": "on"})).status == 303
    assert (await act(api, either["slug"], "values", {"values": {"Signature": "Ann"}})).status == 200


# Reasons and the signature id


async def test_a_signing_reason_is_required_and_drawn_with_the_signature_id_in_the_signed_pdf(api, worker, db):
    ann = await signer(api, reasons=["Approved", "Reviewed"], with_signature_id=True)
    body = {"values": {"Signature": DRAWING}, "signatures": {"Signature": {"mode": "drawn"}}}
    assert (await act(api, ann["slug"], "values", body)).status == 200
    missing = await act(api, ann["slug"], "complete", {})
    assert missing.status == 422
    assert missing.json == {"error": "Signature: choose a signing reason in `signatures`."}
    other = await act(api, ann["slug"], "complete", {"signatures": {"Signature": {"reason": "Because"}}})
    assert other.status == 422
    assert other.json["error"] == "Signature: choose a signing reason of: Approved, Reviewed in `signatures`."
    done = await act(api, ann["slug"], "complete", {"signatures": {"Signature": {"reason": "Approved"}}})
    assert done.status == 200, done.json
    origin, uuid = await stored_origin(db, api, ann["id"])
    assert origin.made_as == "drawn"
    text = await signed_pdf_text(api, worker, ann["submission_id"])
    assert f"ID: {uuid}" in text
    assert "Reason: Approved" in text


async def test_with_signature_id_through_put_submitters_draws_who_signed(api, worker, db):
    ann = await signer(api, with_signature_id=True)
    reply = await api.put(f"/api/submitters/{ann['id']}", json={"values": {"Signature": DRAWING}, "completed": True})
    assert reply.status == 200, reply.json
    _, uuid = await stored_origin(db, api, ann["id"])
    text = await signed_pdf_text(api, worker, ann["submission_id"])
    assert f"ID: {uuid}" in text
    assert "Digitally signed by Ann ann@example.com" in text


async def test_without_with_signature_id_no_caption_is_drawn(api, worker):
    ann = await signer(api)
    await api.put(f"/api/submitters/{ann['id']}", json={"values": {"Signature": DRAWING}, "completed": True})
    assert "ID: " not in await signed_pdf_text(api, worker, ann["submission_id"])


async def test_signature_preferences_the_table_does_not_know_are_refused_when_the_template_is_saved(api):
    from tests.support.documents import pdf

    for preferences, message in (
        ({"format": "painted"}, "format must be one of: drawn, typed, drawn_or_typed, drawn_or_upload, upload, "),
        ({"reasons": "Approved"}, "reasons must be an array of at most 20 texts of 1 to 200 characters"),
        ({"with_signature_id": "yes"}, "with_signature_id must be true or false"),
        ({"with_signature_id": 0}, "with_signature_id must be true or false"),  # 0 == False, yet not a boolean
        # HTML reads an option's value back with its line breaks made plain: such a reason could never be chosen.
        ({"reasons": ["Approved\r\nby me"]}, "reasons[0] must not hold control characters (line breaks, tabs)"),
        ({"reasons": ["Approved", "Tab\there"]}, "reasons[1] must not hold control characters (line breaks, tabs)"),
        ({"reasons": ["\x1b[1mBold"]}, "reasons[0] must not hold control characters (line breaks, tabs)"),
    ):
        body = {"name": "NDA", "documents": [{"name": "nda", "file": b64(pdf()), "fields": sign_field(**preferences)}]}
        reply = await api.post("/api/templates", json=body)
        assert reply.status == 422
        assert reply.json["error"].startswith("documents[0].fields[0].preferences." + message), reply.json


async def test_a_typed_only_signature_refuses_a_picture_given_when_the_submission_is_created(api):
    template_id = await template(api, sign_field(format="typed"))
    body = {"template_id": template_id, "submitters": [{"email": "ann@example.com", "values": {"Signature": DRAWING}}]}
    reply = await api.post("/api/submissions", json=body)
    assert reply.status == 422
    assert reply.json["error"].startswith("Signature: a drawn or uploaded signature is not allowed here, only typed")


async def test_a_typed_signature_given_through_put_submitters_is_stored_as_typed(api, db):
    ann = await signer(api)
    assert (await api.put(f"/api/submitters/{ann['id']}", json={"values": {"Signature": "Ann"}})).status == 200
    origin, _ = await stored_origin(db, api, ann["id"])
    assert origin.made_as == "typed"
    assert (await api.put(f"/api/submitters/{ann['id']}", json={"values": {"Signature": DRAWING}})).status == 200
    origin, _ = await stored_origin(db, api, ann["id"])
    assert origin is None  # an image through the API: drawn or uploaded, the API does not say


# A signer's image for a field that takes only one of drawn and uploaded says which it is


@pytest.mark.parametrize("format", ["drawn", "upload"])
async def test_a_signers_new_image_for_a_drawn_only_or_upload_only_field_must_declare_its_mode(api, format):
    ann = await signer(api, format=format)
    reply = await act(api, ann["slug"], "values", {"values": {"Signature": DRAWING}})
    assert reply.status == 422
    assert reply.json == {"error": "Signature: say how the signature was made (mode: drawn or upload) in `signatures`."}
    either = await signer(api, format="drawn_or_upload")
    assert (await act(api, either["slug"], "values", {"values": {"Signature": DRAWING}})).status == 200


async def test_a_file_a_signer_uploaded_to_an_image_field_counts_as_uploaded_for_a_drawn_only_field(api):
    fields = [
        *sign_field(format="drawn"),
        {
            "name": "Photo",
            "type": "image",
            "role": "First Party",
            "areas": [{"x": 0.5, "y": 0.1, "w": 0.2, "h": 0.1, "page": 1}],
        },
    ]
    [ann] = await send(api, await template(api, fields), {"email": "ann@example.com"})
    assert (await act(api, ann["slug"], "values", {"values": {"Photo": DRAWING}})).status == 200
    found = await api.get(f"/api/submitters/{ann['id']}")
    [uuid] = re.findall(
        r"/file/([0-9a-f]{32})", next(v["value"] for v in found.json["values"] if v["field"] == "Photo")
    )
    body = {"values": {"Signature": uuid}, "signatures": {"Signature": {"mode": "drawn"}}}
    reply = await act(api, ann["slug"], "values", body)
    assert reply.status == 422
    assert reply.json == {"error": "Signature: an uploaded signature is not allowed here, only drawn in `values`."}


async def test_a_refusal_names_an_unnamed_signature_field_by_its_kind(api):
    unnamed = {**sign_field(reasons=["Approved"])[0], "name": ""}
    [ann] = await send(api, await template(api, [unnamed]), {"email": "a@example.com"})
    body = {"values": {"Signature Field 1": "Ann"}, "signatures": {"Signature Field 1": {"mode": "drawn"}}}
    reply = await act(api, ann["slug"], "values", body)
    assert reply.status == 422
    assert reply.json["error"].startswith("Signature Field 1: text is a typed signature, not drawn in `signatures`")
    body = {"values": {}, "signatures": {"Signature Field 1": {"reason": "Because"}}}
    reply = await act(api, ann["slug"], "values", body)
    assert reply.json == {"error": "Signature Field 1: choose a signing reason of: Approved in `signatures`."}


async def test_a_typed_only_field_takes_back_its_own_stored_typed_signature(api):
    ann = await signer(api, format="typed")
    assert (await api.put(f"/api/submitters/{ann['id']}", json={"values": {"Signature": "Ann"}})).status == 200
    found = await api.get(f"/api/submitters/{ann['id']}")
    [uuid] = re.findall(
        r"/file/([0-9a-f]{32})", next(v["value"] for v in found.json["values"] if v["field"] == "Signature")
    )
    other = await signer(api, format="typed")
    reply = await api.put(f"/api/submitters/{other['id']}", json={"values": {"Signature": uuid}})
    assert reply.status == 200, reply.json
    mine = await api.put(f"/api/submitters/{ann['id']}", json={"values": {"Signature": uuid}, "completed": True})
    assert mine.status == 200, mine.json


# The signing reason is kept per field, shown in the API's values, the webhooks' and the audit log


async def test_a_signing_reason_is_kept_per_field_and_shown_in_the_api_values_and_the_audit_log(api, worker):
    second = {"x": 0.5, "y": 0.1, "w": 0.3, "h": 0.08, "page": 1}
    fields = [
        *sign_field(reasons=["Approved", "Reviewed"], with_signature_id=True),
        {**sign_field(reasons=["Approved", "Reviewed"], with_signature_id=True)[0], "name": "Again", "areas": [second]},
    ]
    [ann] = await send(api, await template(api, fields), {"email": "ann@example.com"})
    body = {"values": {"Signature": DRAWING}, "signatures": {"Signature": {"mode": "drawn", "reason": "Approved"}}}
    assert (await act(api, ann["slug"], "values", body)).status == 200
    link = next(
        v["value"] for v in (await api.get(f"/api/submitters/{ann['id']}")).json["values"] if v["field"] == "Signature"
    )
    [uuid] = re.findall(r"/file/([0-9a-f]{32})", link)
    # The same file for another field, with another reason: each field keeps its own.
    done = await act(
        api, ann["slug"], "complete", {"values": {"Again": uuid}, "signatures": {"Again": {"reason": "Reviewed"}}}
    )
    assert done.status == 200, done.json
    values = [(v["field"], v["value"]) for v in (await api.get(f"/api/submitters/{ann['id']}")).json["values"]]
    assert [pair for pair in values if pair[0] in ("Reason",)] == [("Reason", "Approved"), ("Reason", "Reviewed")]
    assert values.index(("Reason", "Approved")) == [f for f, _ in values].index("Signature") + 1
    text = await signed_pdf_text(api, worker, ann["submission_id"])
    assert "Reason: Approved" in text and "Reason: Reviewed" in text
    found = await submission(api, ann["submission_id"])
    audit = "\n".join(page_texts(await fetch(api, found["audit_log_url"])))
    assert "Signature: Reason" in audit and "Again: Reason" in audit and "Reviewed" in audit


async def test_the_signature_id_caption_shows_when_the_signature_was_saved_not_when_the_signer_completed(
    api, worker, clock
):
    ann = await signer(api, with_signature_id=True)
    signed_at = clock.now()
    body = {"values": {"Signature": DRAWING}, "signatures": {"Signature": {"mode": "drawn"}}}
    assert (await act(api, ann["slug"], "values", body)).status == 200
    clock.advance(timedelta(hours=2))
    assert (await act(api, ann["slug"], "complete", {})).status == 200
    text = await signed_pdf_text(api, worker, ann["submission_id"])
    assert f"{signed_at.astimezone(UTC):%Y-%m-%d %H:%M}" in text
    assert f"{clock.now().astimezone(UTC):%Y-%m-%d %H:%M}" not in text


async def test_the_phone_page_draws_in_the_fields_colour(api):
    [ann] = await send(api, await template(api, sign_field(color="blue")), {"email": "ann@example.com"})
    page = (await api.with_key(None).get(f"/s/{ann['slug']}")).body.decode()
    uuid = re.search(r'data-field="([^"]+)"', page).group(1)
    started = await api.with_key(None).post(f"/s/{ann['slug']}/phone", json={"field": uuid})
    assert started.status == 201, started.json
    phone = await api.with_key(None).get(urlsplit(started.json["url"]).path, headers={"Accept": "text/html"})
    assert f'"ink": "{colors.hex_of("blue")}"' in phone.body.decode()  # the colour the documents draw


async def test_initials_open_on_typing_as_the_reference(api):
    initials = {**sign_field()[0], "name": "Initials", "type": "initials"}
    [ann] = await send(api, await template(api, [initials]), {"email": "ann@example.com"})
    html = (await api.with_key(None).get(f"/s/{ann['slug']}")).body.decode()
    assert re.search(r'data-mode="type" aria-pressed="true"', html)
    assert re.search(r'<div class="pane" data-pane="draw" hidden', html)


async def test_the_accounts_with_signature_id_setting_draws_ids_unless_the_field_says_otherwise(api, worker):
    console = await signed_in(api)
    assert 'id="ids" name="ids" type="checkbox" ' in (await console.get("/console/settings/signatures")).body.decode()
    settings = {"typed": "on", "ids": "on", "id_reason": "on"}  # the reason line is ticked on the page by default
    assert (await console.post("/console/settings/signatures", settings)).status == 303
    assert (
        "checked"
        in re.search(
            r'<input id="ids"[^>]*>', (await console.get("/console/settings/signatures")).body.decode()
        ).group()
    )
    unset, off = await signer(api), await signer(api, with_signature_id=False)
    for ann in (unset, off):
        reply = await api.put(
            f"/api/submitters/{ann['id']}", json={"values": {"Signature": DRAWING}, "completed": True}
        )
        assert reply.status == 200, reply.json
    assert "Digitally signed by Ann ann@example.com" in await signed_pdf_text(api, worker, unset["submission_id"])
    # the account's setting still stamps the document id; the field's own false draws no signature id
    assert "ID: " not in (await signed_pdf_text(api, worker, off["submission_id"])).replace("Document ID: ", "")


async def test_the_accounts_with_signature_id_setting_stamps_the_document_id_on_every_page_and_in_the_pdf_info(
    api, worker
):
    console = await signed_in(api)
    assert (await console.post("/console/settings/signatures", {"typed": "on", "ids": "on"})).status == 303
    made = await api.post(
        "/api/templates",
        json={"name": "Two pages", "documents": [{"name": "two", "file": b64(pdf(2)), "fields": sign_field()}]},
    )
    assert made.status == 201, made.json
    [ann] = await send(api, made.json["id"], {"email": "ann@example.com", "name": "Ann"})
    reply = await api.put(f"/api/submitters/{ann['id']}", json={"values": {"Signature": DRAWING}, "completed": True})
    assert reply.status == 200, reply.json
    await worker.drain()
    found = await submission(api, ann["submission_id"])
    expected = hashlib.md5(found["slug"].encode()).hexdigest().upper()
    signed = await fetch(api, found["documents"][0]["url"])
    texts = page_texts(signed)
    assert len(texts) == 2
    assert all(f"Document ID: {expected}" in text for text in texts)
    assert pypdf.PdfReader(io.BytesIO(signed)).metadata["/DocumentID"] == expected


async def test_without_the_accounts_with_signature_id_setting_no_document_id_is_stamped(api, worker):
    ann = await signer(api)
    reply = await api.put(f"/api/submitters/{ann['id']}", json={"values": {"Signature": DRAWING}, "completed": True})
    assert reply.status == 200, reply.json
    await worker.drain()
    signed = await fetch(api, (await submission(api, ann["submission_id"]))["documents"][0]["url"])
    assert "Document ID" not in "\n".join(page_texts(signed))
    assert "/DocumentID" not in (pypdf.PdfReader(io.BytesIO(signed)).metadata or {})


async def test_the_accounts_caption_settings_drop_the_reason_line_use_the_completion_time_and_show_seconds(
    api, worker, clock
):
    console = await signed_in(api)
    page = (await console.get("/console/settings/signatures")).body.decode()
    assert re.search(r'<input id="id_reason" name="id_reason" type="checkbox" checked>', page)  # on by default
    assert re.search(r'<input id="id_seconds" name="id_seconds" type="checkbox" >', page)
    settings = {"ids": "on", "id_completed_at": "on", "id_seconds": "on"}
    assert (await console.post("/console/settings/signatures", settings)).status == 303
    page = (await console.get("/console/settings/signatures")).body.decode()
    assert re.search(r'<input id="id_reason" name="id_reason" type="checkbox" >', page)
    assert re.search(r'<input id="id_completed_at" name="id_completed_at" type="checkbox" checked>', page)
    ann = await signer(api)
    saved_at = clock.now()
    body = {"values": {"Signature": DRAWING}, "signatures": {"Signature": {"mode": "drawn"}}}
    assert (await act(api, ann["slug"], "values", body)).status == 200
    clock.advance(timedelta(hours=2, seconds=7))
    assert (await act(api, ann["slug"], "complete", {})).status == 200
    text = await signed_pdf_text(api, worker, ann["submission_id"])
    assert f"{clock.now().astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC" in text
    assert f"{saved_at.astimezone(UTC):%Y-%m-%d %H:%M}" not in text
    assert "Digitally signed by" not in text and "Reason:" not in text


async def test_by_default_the_signature_id_caption_shows_the_time_without_seconds(api, worker, clock):
    clock.advance(timedelta(seconds=7))
    ann = await signer(api, with_signature_id=True)
    saved_at = clock.now()
    reply = await api.put(f"/api/submitters/{ann['id']}", json={"values": {"Signature": DRAWING}, "completed": True})
    assert reply.status == 200, reply.json
    text = await signed_pdf_text(api, worker, ann["submission_id"])
    assert f"{saved_at.astimezone(UTC):%Y-%m-%d %H:%M} UTC" in text
    assert f"{saved_at.astimezone(UTC):%H:%M:%S}" not in text
    assert "Digitally signed by Ann ann@example.com" in text
