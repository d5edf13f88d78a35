"""POST /tools/verify: whether the service issued a PDF, and its signatures."""

import asyncio
import base64

import pytest
from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import ec

from signsvc.pdf import seal
from tests.support.documents import b64, pdf
from tests.support.results import completed_submission, fetch
from tests.support.samples import encrypted
from tests.support.seals import NOW, pem_of, self_signed, signed_positions
from tests.support.system import CJK_FONT


async def verify(api, data: bytes):
    return await api.post("/api/tools/verify", json={"file": base64.b64encode(data).decode()})


@pytest.fixture
async def issued(api, worker) -> bytes:
    """A signed document as the service delivered it."""
    return await fetch(api, (await completed_submission(api, worker))["documents"][0]["url"])


@CJK_FONT
async def test_a_document_the_service_signed_is_issued_by_it_with_its_signature_reported(api, issued):
    reply = await verify(api, issued)
    assert reply.status == 200, reply.json
    body = reply.json
    assert (body["issued_by_service"], body["checksum_status"]) == (True, "verified")
    [signature] = body["signatures"]
    assert signature["type"] == "certification" and signature["reason"] == "Signed with signsvc"
    assert signature["signer_name"] == "signsvc" and signature["signing_time"] == "2026-01-01T12:00:00.000Z"
    assert (
        signature["intact"],
        signature["valid"],
        signature["trusted"],
        signature["coverage"],
        signature["issued_by_service"],
    ) == (True, True, True, "entire_file", True)


@CJK_FONT
async def test_the_audit_log_and_combined_document_are_issued_by_the_service(api, worker):
    found = await completed_submission(api, worker)
    for url in (found["audit_log_url"], found["combined_document_url"]):
        assert (await verify(api, await fetch(api, url))).json["issued_by_service"] is True


@CJK_FONT
async def test_flipping_a_signed_byte_makes_the_file_not_issued_and_not_intact(api, issued):
    positions = signed_positions(issued)
    for position in (positions[0], positions[len(positions) // 2], positions[-1]):
        tampered = bytearray(issued)
        tampered[position] ^= 0x01
        reply = await verify(api, bytes(tampered))
        assert reply.status in (200, 422), position
        if reply.status == 200:
            assert reply.json["issued_by_service"] is False and reply.json["checksum_status"] == "not_found"
            assert not any(s["intact"] for s in reply.json["signatures"]), position


async def test_a_pdf_signed_with_a_foreign_self_signed_certificate_is_not_issued_by_the_service(api):
    key = ec.generate_private_key(ec.SECP256R1())
    usage = x509.KeyUsage(
        digital_signature=True,
        content_commitment=True,
        key_encipherment=False,
        data_encipherment=False,
        key_agreement=False,
        key_cert_sign=False,
        crl_sign=False,
        encipher_only=False,
        decipher_only=False,
    )
    foreign = await asyncio.to_thread(  # pyHanko runs its own event loop
        seal.sign,
        pdf(),
        pem_of(key, self_signed(key, "signsvc", (usage, True))),
        reason="Mine",
        name=None,
        signing_time=NOW,
    )
    body = (await verify(api, foreign)).json
    assert body["issued_by_service"] is False and body["checksum_status"] == "not_found"
    [signature] = body["signatures"]
    assert (signature["intact"], signature["trusted"], signature["issued_by_service"]) == (True, False, False)


async def test_a_pdf_without_signatures_answers_an_empty_list(api):
    body = (await verify(api, pdf())).json
    assert body["signatures"] == [] and body["issued_by_service"] is False


async def test_an_unsigned_document_the_service_produced_is_known_by_its_checksum(api, worker):
    from tests.support.signing import ANN_VALUES, act, send, template

    sent = await send(api, await template(api), {"email": "ann@example.com"}, {"email": "bob@example.com"})
    await act(api, sent[0]["slug"], "complete", {"values": ANN_VALUES})
    await worker.drain()
    first = (await api.get(f"/api/submitters/{sent[0]['id']}")).json["documents"][0]["url"]
    body = (await verify(api, await fetch(api, first))).json
    assert (body["issued_by_service"], body["checksum_status"], body["signatures"]) == (True, "verified", [])


@pytest.mark.parametrize(
    "body, error",
    [
        ({}, "file is required: a PDF as base64"),
        ({"file": 7}, "file is required: a PDF as base64"),
        ({"file": "not base64!"}, "file is not valid base64: ' ' at character 4 is not a base64 character"),
        ({"file": b64(b"hello, world")}, "The file is not a PDF"),
        (
            {"file": b64(encrypted(pdf(), user="secret"))},
            "The PDF is protected by a password; upload it without the password",
        ),
    ],
)
async def test_verify_refuses_bad_input_with_a_422_that_names_the_problem(api, body, error):
    reply = await api.post("/api/tools/verify", json=body)
    assert (reply.status, reply.json) == (422, {"error": error})
