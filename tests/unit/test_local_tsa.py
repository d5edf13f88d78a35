"""The local timestamp authority (`signsvc.testing.timestamps`, `python run.py tsa`): real RFC 3161 tokens over
HTTP, its certificate and key kept in a directory across restarts."""

from __future__ import annotations

import hashlib

from asn1crypto import x509 as asn1_x509
from cryptography.hazmat.primitives import serialization
from pyhanko.sign.timestamps import HTTPTimeStamper

from signsvc.testing import timestamps
from tests.support.seals import NOW


def test_local_tsa_keeps_its_certificate_and_key_in_its_directory_across_restarts(tmp_path):
    first = timestamps.load_or_create(tmp_path / "tsa")
    again = timestamps.load_or_create(tmp_path / "tsa")
    assert again.cert_pem == first.cert_pem
    assert (tmp_path / "tsa" / timestamps.KEY).stat().st_mode & 0o077 == 0, "the key is readable by its owner only"


async def test_local_tsa_answers_a_timestamp_query_with_a_token_signed_by_its_certificate():
    authority = timestamps.create(now=NOW)
    with timestamps.serving(authority.stamper(lambda: NOW)) as url:
        digest = hashlib.sha256(b"a document").digest()
        token = await HTTPTimeStamper(url).async_timestamp(digest, "sha256")
    info = token["content"]["encap_content_info"]["content"].parsed
    assert info["gen_time"].native == NOW
    assert info["message_imprint"]["hashed_message"].native == digest
    certificate = asn1_x509.Certificate.load(authority.certificate.public_bytes(serialization.Encoding.DER))
    [signer] = [c.chosen for c in token["content"]["certificates"]]
    assert signer.dump() == certificate.dump()


async def test_local_tsa_refuses_a_request_that_is_not_a_timestamp_query(aiohttp_client):
    client = await aiohttp_client(timestamps.app(timestamps.create(now=NOW).stamper()))
    reply = await client.post("/", data=b"hello", headers={"Content-Type": "text/plain"})
    assert (reply.status, await reply.json()) == (400, {"error": "Content-Type must be application/timestamp-query"})
    reply = await client.post("/", data=b"hello", headers={"Content-Type": "application/timestamp-query"})
    assert reply.status == 400 and (await reply.json())["error"].startswith("not an RFC 3161 timestamp query")
