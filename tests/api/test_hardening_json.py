"""JSON the databases and the wire can hold: a lone surrogate, NaN or Infinity is refused at the edge with a
422 naming where it is, before anything is stored; base64 is taken as real clients send it, or refused
with the reason."""

import base64
import math

import pytest

import storage.submissions as stored
from tests.support.app import START, Api
from tests.support.documents import b64, pdf, png
from tests.support.signing import act, send, template

ANN = {"email": "ann@example.com", "name": "Ann"}
NOT_FINITE = "must be a finite number (NaN, Infinity and numbers beyond 1.8e308 cannot be stored)"


async def nothing_stored(api: Api) -> None:
    assert (await api.get("/api/submissions")).json["data"] == []
    assert (await api.get("/api/submitters")).json["data"] == []


async def post_text(api: Api, path: str, text: str) -> dict:
    """JSON text as it is, for what json.dumps would never write."""
    reply = await api.post(
        path, data=text.encode("utf-8", "surrogatepass"), headers={"Content-Type": "application/json"}
    )
    return {"status": reply.status, **reply.json}


# The surrogate


@pytest.mark.parametrize(
    "submitter,where,escape",
    [
        ({**ANN, "name": "Ann \ud800"}, "submitters[0].name", "\\ud800"),
        ({**ANN, "values": {"Full Name": "x\udfffy"}}, "submitters[0].values.Full Name", "\\udfff"),
        ({**ANN, "metadata": {"notes": ["fine", "\udc00"]}}, "submitters[0].metadata.notes[1]", "\\udc00"),
    ],
    ids=["name", "value", "metadata"],
)
async def test_a_lone_surrogate_is_422_naming_the_field_and_nothing_is_stored(api, submitter, where, escape):
    reply = await api.post("/api/submissions", json={"template_id": await template(api), "submitters": [submitter]})
    assert (reply.status, reply.json) == (
        422,
        {"error": f"{where} must be valid Unicode: it holds a lone surrogate ({escape})"},
    )
    await nothing_stored(api)


async def test_a_lone_surrogate_in_a_key_is_422_naming_the_object_that_holds_it(api):
    reply = await api.post(
        "/api/submissions",
        json={"template_id": await template(api), "submitters": [{**ANN, "metadata": {"\ud800": 1}}]},
    )
    assert (reply.status, reply.json) == (
        422,
        {"error": "A key in submitters[0].metadata must be valid Unicode: it holds a lone surrogate (\\ud800)"},
    )
    await nothing_stored(api)


async def test_a_lone_surrogate_sent_as_utf8_bytes_is_refused_as_the_escaped_one_is(api):
    body = f'{{"template_id": {await template(api)}, "submitters": [{{"name": "Ann \ud800", "email": "a@b.co"}}]}}'
    assert await post_text(api, "/api/submissions", body) == {
        "status": 422,
        "error": "submitters[0].name must be valid Unicode: it holds a lone surrogate (\\ud800)",
    }
    await nothing_stored(api)


async def test_a_lone_surrogate_saved_by_a_signer_is_422_and_the_submission_still_reads(api):
    ann = (await send(api, await template(api)))[0]
    reply = await act(api, ann["slug"], "values", {"values": {"Full Name": "Ann \ud800"}})
    assert (reply.status, reply.json) == (
        422,
        {"error": "values.Full Name must be valid Unicode: it holds a lone surrogate (\\ud800)"},
    )
    assert (await api.get(f"/api/submitters/{ann['id']}")).json["values"] == []
    assert (await api.get("/api/submissions/1")).status == 200


async def test_a_surrogate_pair_is_one_character_and_is_kept(api):
    ann = (await send(api, await template(api), {**ANN, "name": "Ann \U0001f58a"}))[0]
    assert ann["name"] == "Ann \U0001f58a"
    reply = await act(api, ann["slug"], "values", {"values": {"Full Name": "Ann \U0001f58a"}})
    assert reply.json["values"] == [{"field": "Full Name", "value": "Ann \U0001f58a"}]


async def test_a_nul_is_refused_naming_the_field(api):
    reply = await api.post(
        "/api/submissions",
        json={"template_id": await template(api), "submitters": [{**ANN, "external_id": "crm\u00007"}]},
    )
    assert (reply.status, reply.json) == (
        422,
        {"error": "submitters[0].external_id must not contain NUL characters (\\u0000)"},
    )


# NaN and Infinity


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e400"])
async def test_nan_infinity_or_a_number_beyond_a_float_in_metadata_is_422_naming_it(api, number):
    body = (
        f'{{"template_id": {await template(api)}, "submitters": '
        f'[{{"email": "ann@example.com", "metadata": {{"score": {number}}}}}]}}'
    )
    assert await post_text(api, "/api/submissions", body) == {
        "status": 422,
        "error": f"submitters[0].metadata.score {NOT_FINITE}",
    }
    await nothing_stored(api)


async def test_nan_in_a_signers_value_is_422_naming_it(api):
    ann = (await send(api, await template(api)))[0]
    reply = await api.with_key(None).post(
        f"/s/{ann['slug']}/values",
        data=b'{"values": {"Newsletter": NaN}}',
        headers={"Content-Type": "application/json"},
    )
    assert (reply.status, reply.json) == (422, {"error": f"values.Newsletter {NOT_FINITE}"})


async def test_what_sqlite_stored_before_these_refusals_still_reads(api, db, backend):
    if backend != "sqlite":
        pytest.skip("Postgres never stored them: it refused them (503) before")
    ann = (await send(api, await template(api)))[0]
    submission = await stored.get_submission(db, ann["submission_id"])
    full_name = next(field["uuid"] for field in submission.fields if field["name"] == "Full Name")
    submitter = await stored.get_submitter(db, ann["id"])
    async with db.transaction() as tx:
        await stored.update_submitter(
            tx, stored.changed(submitter, metadata={"score": math.nan}, field_values={full_name: "Ann \ud800"}), START
        )
    reply = await api.get(f"/api/submitters/{ann['id']}")
    assert reply.status == 200
    assert (reply.json["metadata"], reply.json["values"]) == (
        {"score": None},
        [{"field": "Full Name", "value": "Ann \ufffd"}],
    )
    assert (await api.get("/api/submissions/1")).status == 200


# Base64 as real clients send it


def mime(data: bytes) -> str:
    return base64.encodebytes(data).decode().replace("\n", "\r\n")


def url_safe_unpadded(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


@pytest.mark.parametrize(
    "encode",
    [
        mime,
        url_safe_unpadded,
        lambda data: base64.encodebytes(data).decode(),
        lambda data: b64(data).rstrip("="),
        lambda data: f"data:application/pdf;name=nda.pdf;base64,{mime(data)}",
    ],
    ids=["MIME line breaks", "URL-safe without padding", "newlines", "no padding", "data URI with parameters"],
)
async def test_a_document_in_base64_as_real_clients_send_it_is_accepted(api, encode):
    document = pdf()
    assert {"+", "/"} & set(b64(document)), "the alphabets differ in these"
    reply = await api.post("/api/templates", json={"name": "NDA", "documents": [{"file": encode(document)}]})
    assert reply.status == 201, reply.json


async def test_a_signature_in_url_safe_base64_without_padding_is_accepted(api):
    signature = png()
    reply = await api.post(
        "/api/submissions",
        json={
            "template_id": await template(api),
            "submitters": [{**ANN, "values": {"Signature": url_safe_unpadded(signature)}}],
        },
    )
    assert reply.status == 200, reply.json
    [value] = [v for v in reply.json[0]["values"] if v["field"] == "Signature"]
    link = value["value"].removeprefix("http://signsvc.test")
    assert (await api.with_key(None).get(link)).body == signature


@pytest.mark.parametrize(
    "file,reason",
    [
        ("JVBERi0x LjQ=", "' ' at character 9 is not a base64 character"),
        ("JVBERi0x\u00e9", "'\\xe9' at character 9 is not a base64 character"),
        ("JVBE=Ri0x", "padding (=) comes before the end"),
        ("JVBERi0xL", "9 characters (line breaks and padding aside) cannot be base64: one is missing or one too many"),
    ],
    ids=["space", "not an alphabet's", "padding inside", "length"],
)
async def test_base64_that_cannot_be_decoded_is_refused_with_the_reason(api, file, reason):
    reply = await api.post("/api/tools/verify", json={"file": file})
    assert (reply.status, reply.json) == (422, {"error": f"file is not valid base64: {reason}"})
