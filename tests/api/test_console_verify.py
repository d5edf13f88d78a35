"""The console's verify page: a signed PDF uploaded in a plain form shows, per signature, what
`POST /api/tools/verify` reports (level, signing time and its source, offline chain, issued by the service,
what is missing), in the catalogue's words; a missing file or one that is not a PDF is named on the form."""

from __future__ import annotations

import html
import io
import re

import pytest

import storage.timestamp_authorities as stored_stampers
from signsvc.pdf import certificates
from tests.support import pades_levels as levels
from tests.support.console import signed_in
from tests.support.documents import pdf
from tests.support.seals import SIGNED_AT


@pytest.fixture(scope="module")
def archived(tsa) -> bytes:
    ca = levels.test_ca()
    return levels.with_document_timestamp(levels.with_dss(levels.signed(ca, tsa["stamper"]), ca), tsa["stamper"])


def text(reply) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", reply.body.decode())))


def upload(data: bytes, filename: str = "contract.pdf") -> dict:
    file = io.BytesIO(data)
    file.name = filename
    return {"file": file}


async def test_the_verify_page_shows_each_signature_with_its_level_time_source_and_what_is_missing(
    api, archived, db, tsa
):
    await stored_stampers.remember(db, certificates.fingerprint(tsa["cert_pem"]), tsa["cert_pem"], SIGNED_AT)
    console = await signed_in(api)
    page = await console.get("/console/verify")
    assert page.status == 200 and 'aria-current="page"' in page.body.decode() and "Verify a signed PDF" in text(page)
    reply = await console.post("/console/verify", upload(archived))
    assert reply.status == 200
    shown = text(reply)
    assert "What contract.pdf carries" in shown and "Not issued by this service" in shown
    assert "Signature 1 PAdES B-LTA" in shown and "Signature 2 No PAdES level" in shown
    assert "2026-01-02 09:30:17 UTC (proven by a timestamp)" in shown
    assert "Chain validates offline No" in shown  # the test CA is foreign to this service
    assert "A certificate chain that validates offline to this service's certificates" in shown
    assert "Document timestamp" in shown


async def test_the_verify_page_names_a_missing_file_and_a_file_that_is_not_a_pdf(api):
    console = await signed_in(api)
    await console.get("/console/verify")
    missing = await console.post("/console/verify", {"file": ""})
    assert missing.status == 422 and "Choose a PDF file to verify." in text(missing)
    await console.get("/console/verify")
    not_pdf = await console.post("/console/verify", upload(b"hello, not a PDF", "notes.txt"))
    assert not_pdf.status == 422 and 'role="alert"' in not_pdf.body.decode()
    await console.get("/console/verify")
    unsigned = await console.post("/console/verify", upload(pdf()))
    assert unsigned.status == 200 and "The file holds no signatures." in text(unsigned)


async def test_the_verify_page_needs_a_signed_in_user(api):
    from tests.support.console import Console

    reply = await Console(api).get("/console/verify", allow_redirects=False)
    assert reply.status in (302, 303) and "/console/sign-in" in reply.headers["Location"]


async def test_the_verify_result_takes_the_focus_its_heading_focusable_and_the_page_script_loaded(api, archived):
    console = await signed_in(api)
    await console.get("/console/verify")
    body = (await console.post("/console/verify", upload(archived))).body.decode()
    assert '<h2 id="result-heading" tabindex="-1">' in body
    assert re.search(r'<script type="module" src="[^"]*console-verify[^"]*\.js"', body)
