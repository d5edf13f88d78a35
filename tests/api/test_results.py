"""Result documents: each signer's documents, the signed documents, audit log
and combined document of a completed submission, the documents and pdf endpoints, and the completion events."""

import base64
import io
import multiprocessing
import subprocess
from concurrent.futures import ProcessPoolExecutor
from datetime import timedelta
from urllib.parse import unquote, urlsplit

import pypdf
import pytest
from asn1crypto import pem as asn1_pem
from asn1crypto import x509 as asn1_x509
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.validation import async_validate_pdf_signature
from pyhanko_certvalidator import ValidationContext

import storage.results as stored_results
from signsvc.app import create_app
from signsvc.http.appkeys import WORKER
from signsvc.infra.pool import PdfPool
from signsvc.pdf import fonts
from tests.support.app import TEST_KEY, Api
from tests.support.pdf_text import page_texts
from tests.support.results import BOTH_COMPLETED, completed_submission, fetch
from tests.support.signing import ANN_VALUES, BOB_VALUES, act, event_types, send, submission, template
from tests.support.system import CJK_FONT, PDFSIG


async def trusted_roots(db) -> list[asn1_x509.Certificate]:
    pems = [pem for c in await stored_results.certificates(db) for pem in (c.cert_pem, *c.chain_pems)]
    return [asn1_x509.Certificate.load(asn1_pem.unarmor(pem.encode())[2]) for pem in pems]


async def validate(db, data: bytes):
    """pyHanko's own validation with the service's certificates as trust roots."""
    [signature] = PdfFileReader(io.BytesIO(data)).embedded_signatures
    status = await async_validate_pdf_signature(
        signature,
        signer_validation_context=ValidationContext(trust_roots=await trusted_roots(db), allow_fetching=False),
    )
    return status


def text_of(data: bytes) -> str:
    return "\n".join(page_texts(data))


# Completion produces the documents


@CJK_FONT
async def test_a_completed_submission_links_signed_documents_an_audit_log_and_a_combined_document(api, worker, db):
    found = await completed_submission(api, worker)
    assert found["status"] == "completed"
    [document] = found["documents"]
    assert document["name"] == "nda" and "/NDA%20-%20nda.pdf" in document["url"]
    assert "/NDA%20-%20Audit%20Log.pdf" in found["audit_log_url"]
    assert found["combined_document_url"].endswith("/NDA.pdf")
    for url in (document["url"], found["audit_log_url"], found["combined_document_url"]):
        status = await validate(db, await fetch(api, url))
        assert status.intact and status.valid and status.trusted
        assert status.coverage.name == "ENTIRE_FILE"


@CJK_FONT
async def test_signed_documents_hold_every_submitters_values_as_extractable_text(api, worker):
    found = await completed_submission(api, worker)
    text = text_of(await fetch(api, found["documents"][0]["url"]))
    assert "Ann Smith" in text and "Bob Buyer" in text


@CJK_FONT
async def test_the_audit_log_names_envelope_submitters_hashes_and_events_in_utc(api, worker):
    found = await completed_submission(api, worker)
    text = text_of(await fetch(api, found["audit_log_url"]))
    assert found["envelope_id"] in text
    assert "Zoë Łukasz" in text and "山田 太郎" in text and "ann@example.com" in text
    assert "Form of ann@example.com marked completed via API" in text and "UTC" in text
    assert text.index("marked completed via API") < text.index("Submission completed: every signer completed")
    assert "Test document" not in text


@CJK_FONT
async def test_the_combined_document_is_the_documents_then_the_audit_log(api, worker):
    found = await completed_submission(api, worker)
    text = text_of(await fetch(api, found["combined_document_url"]))
    assert text.index("Bob Buyer") < text.index(found["envelope_id"])


@CJK_FONT
@PDFSIG
async def test_pdfsig_reports_every_signed_output_valid_over_the_whole_file(api, worker, tmp_path):
    found = await completed_submission(api, worker)
    for number, url in enumerate(
        (found["documents"][0]["url"], found["audit_log_url"], found["combined_document_url"])
    ):
        path = tmp_path / f"{number}.pdf"
        path.write_bytes(await fetch(api, url))
        report = subprocess.run(["pdfsig", "-nocert", str(path)], capture_output=True, text=True).stdout
        assert "Signature is Valid." in report and "Total document signed" in report


async def test_form_completed_and_submission_completed_are_emitted_once_the_documents_exist(api, worker, db):
    sent = await send(api, await template(api), *BOTH_COMPLETED)
    assert await event_types(db, "submission", sent[0]["submission_id"]) == ["submission.created"]
    assert await event_types(db, "submitter", sent[0]["id"]) == []
    await worker.drain()
    assert await event_types(db, "submission", sent[0]["submission_id"]) == [
        "submission.created",
        "submission.completed",
    ]
    assert await event_types(db, "submitter", sent[0]["id"]) == ["form.completed"]
    assert await event_types(db, "submitter", sent[1]["id"]) == ["form.completed"]


async def test_each_submitter_gets_documents_with_the_values_of_every_submitter_completed_so_far(api, worker):
    sent = await send(api, await template(api), {"email": "ann@example.com"}, {"email": "bob@example.com"})
    assert (await act(api, sent[0]["slug"], "complete", {"values": ANN_VALUES})).status == 200
    await worker.drain()
    ann = (await api.get(f"/api/submitters/{sent[0]['id']}")).json
    [document] = ann["documents"]
    first = await fetch(api, document["url"])
    assert "Ann Smith" in text_of(first) and "Bob Buyer" not in text_of(first)
    assert not PdfFileReader(io.BytesIO(first)).embedded_signatures  # only the final documents are signed
    assert (await submission(api, sent[0]["submission_id"]))["documents"] == []
    assert (await act(api, sent[1]["slug"], "complete", {"values": BOB_VALUES})).status == 200
    await worker.drain()
    bob = (await api.get(f"/api/submitters/{sent[1]['id']}")).json
    found = await submission(api, sent[0]["submission_id"])
    assert [d["name"] for d in bob["documents"]] == ["nda"]
    assert await fetch(api, bob["documents"][0]["url"]) == await fetch(api, found["documents"][0]["url"])


async def test_downloads_are_named_after_the_submission_with_the_signers_copy_and_audit_log_told_apart(api, worker):
    sent = await send(
        api, await template(api), {"email": "ann@example.com", "name": "Ann Smith"}, {"email": "bob@x.org"}
    )
    assert (await act(api, sent[0]["slug"], "complete", {"values": ANN_VALUES})).status == 200
    await worker.drain()
    [copy] = (await api.get(f"/api/submitters/{sent[0]['id']}")).json["documents"]
    assert copy["name"] == "nda" and copy["url"].endswith("/NDA%20-%20nda%20-%20signed%20by%20Ann%20Smith.pdf")
    assert (await act(api, sent[1]["slug"], "complete", {"values": BOB_VALUES})).status == 200
    await worker.drain()
    found = await submission(api, sent[0]["submission_id"])
    names = [unquote(url.rsplit("/", 1)[1]) for url in _result_urls(found)]
    assert names == ["NDA - nda.pdf", "NDA - Audit Log.pdf", "NDA.pdf"]


async def test_a_document_named_as_its_submission_downloads_as_the_signed_one_apart_from_the_combined(api, worker):
    found = await completed_submission(api, worker, template={"name": "nda"})
    names = [unquote(url.rsplit("/", 1)[1]) for url in _result_urls(found)]
    assert names == ["nda - signed.pdf", "nda - Audit Log.pdf", "nda.pdf"]


def _result_urls(found: dict) -> list[str]:
    return [*(d["url"] for d in found["documents"]), found["audit_log_url"], found["combined_document_url"]]


async def test_a_submitters_documents_hold_only_the_submitters_completed_up_to_them_however_late_the_job_runs(
    api, worker, clock
):
    sent = await send(
        api, await template(api), {"email": "ann@example.com"}, {"email": "bob@example.com"}, order="random"
    )
    assert (await act(api, sent[0]["slug"], "complete", {"values": ANN_VALUES})).status == 200
    clock.advance(timedelta(seconds=5))
    assert (await act(api, sent[1]["slug"], "complete", {"values": BOB_VALUES})).status == 200
    await worker.drain()  # Ann's job runs after Bob completed
    ann = (await api.get(f"/api/submitters/{sent[0]['id']}")).json
    text = text_of(await fetch(api, ann["documents"][0]["url"]))
    assert "Ann Smith" in text and "Bob Buyer" not in text


async def test_previews_are_forgotten_once_the_signed_documents_exist(api, worker, db):
    sent = await send(
        api, await template(api), {"email": "ann@example.com", "values": ANN_VALUES}, {"email": "bob@example.com"}
    )
    assert (await api.get(f"/api/submissions/{sent[0]['submission_id']}/documents")).status == 200
    for submitter, values in zip(sent, (ANN_VALUES, BOB_VALUES), strict=True):
        await api.put(f"/api/submitters/{submitter['id']}", json={"values": values, "completed": True})
    await worker.drain()
    kinds = {r.kind for r in await stored_results.results_of(db, sent[0]["submission_id"])}
    assert kinds == {"submitter", "final", "audit_log", "combined"}


async def test_a_job_run_again_produces_nothing_twice(api, worker, db):
    found = await completed_submission(api, worker)
    before = await stored_results.results_of(db, found["id"])
    for submitter in found["submitters"]:
        await worker.kinds["results.produce"].handler(
            {"submission_id": found["id"], "submitter_id": submitter["id"], "last": True}
        )
    assert await stored_results.results_of(db, found["id"]) == before
    assert await event_types(db, "submission", found["id"]) == ["submission.created", "submission.completed"]


@CJK_FONT
async def test_test_mode_documents_and_audit_logs_are_marked_on_every_page(api, worker):
    test_api = api.with_key(TEST_KEY)
    found = await completed_submission(test_api, worker)
    for url in (found["documents"][0]["url"], found["audit_log_url"]):
        for page in pypdf.PdfReader(io.BytesIO(await fetch(api, url))).pages:
            assert "Test document, not legally binding" in page.extract_text()


@CJK_FONT
async def test_a_hundred_page_document_completes(api, worker):
    from tests.support.documents import b64, pdf
    from tests.support.signing import FIELDS

    found = await completed_submission(
        api, worker, template={"documents": [{"name": "long", "file": b64(pdf(100)), "fields": FIELDS}]}
    )
    signed = await fetch(api, found["documents"][0]["url"])
    assert len(pypdf.PdfReader(io.BytesIO(signed)).pages) == 100


@CJK_FONT
async def test_deleting_a_submission_for_good_removes_its_result_files(api, worker, db):
    found = await completed_submission(api, worker)
    url = found["audit_log_url"]
    assert (await api.delete(f"/api/submissions/{found['id']}?permanently=true")).status == 200
    parts = urlsplit(url)
    assert (await api.with_key(None).get(parts.path)).status == 404
    assert await stored_results.results_of(db, found["id"]) == []


# GET /submissions/{id}/documents and /pdf


async def test_documents_while_in_progress_are_previews_with_the_values_so_far(api, worker):
    sent = await send(
        api,
        await template(api),
        {"email": "ann@example.com", "values": {"Full Name": "Ann Draft"}},
        {"email": "bob@example.com"},
    )
    reply = await api.get(f"/api/submissions/{sent[0]['submission_id']}/documents")
    assert reply.status == 200, reply.json
    assert reply.json["id"] == sent[0]["submission_id"] and [d["name"] for d in reply.json["documents"]] == ["nda"]
    preview = await fetch(api, reply.json["documents"][0]["url"])
    assert "Ann Draft" in text_of(preview) and not PdfFileReader(io.BytesIO(preview)).embedded_signatures
    again = await api.get(f"/api/submissions/{sent[0]['submission_id']}/documents")
    assert await fetch(api, again.json["documents"][0]["url"]) == preview  # kept while the values stay
    assert (await act(api, sent[0]["slug"], "values", {"values": {"Full Name": "Ann Final"}})).status == 200
    changed = await api.get(f"/api/submissions/{sent[0]['submission_id']}/documents")
    assert "Ann Final" in text_of(await fetch(api, changed.json["documents"][0]["url"]))


@CJK_FONT
async def test_documents_once_completed_are_the_signed_documents(api, worker, db):
    found = await completed_submission(api, worker)
    reply = await api.get(f"/api/submissions/{found['id']}/documents")
    assert reply.json == {"id": found["id"], "documents": [{"name": "nda", "url": reply.json["documents"][0]["url"]}]}
    assert (await validate(db, await fetch(api, reply.json["documents"][0]["url"]))).intact


async def test_documents_of_an_unknown_submission_is_404(api):
    reply = await api.get("/api/submissions/999/documents")
    assert reply.status == 404 and reply.json == {"error": "Not found"}


async def test_pdf_before_every_submitter_completed_is_422(api):
    sent = await send(api, await template(api))
    reply = await api.get(f"/api/submissions/{sent[0]['submission_id']}/pdf")
    assert reply.status == 422
    assert reply.json == {
        "error": "Submission is not completed: signed documents exist once every signer has completed"
    }


@CJK_FONT
async def test_pdf_of_a_completed_submission_links_everything(api, worker):
    found = await completed_submission(api, worker)
    reply = await api.get(f"/api/submissions/{found['id']}/pdf")
    assert reply.status == 200, reply.json
    body = reply.json
    assert set(body) == {
        "id",
        "envelope_id",
        "pdf_url",
        "filename",
        "documents",
        "combined_document_url",
        "audit_log_url",
    }
    assert body["envelope_id"] == found["envelope_id"] and body["filename"] == "NDA - nda.pdf"
    assert await fetch(api, body["pdf_url"]) == await fetch(api, body["documents"][0]["url"])
    assert body["combined_document_url"].endswith("/NDA.pdf") and "Audit%20Log" in body["audit_log_url"]


async def test_pdf_of_an_unknown_submission_is_404(api):
    assert (await api.get("/api/submissions/999/pdf")).status == 404


# Webhook payloads carry working links


@CJK_FONT
async def test_the_last_form_completed_and_submission_completed_carry_document_links(api, worker, receiver):
    reply = await api.post(
        "/api/webhooks", json={"url": receiver.url(), "events": ["form.completed", "submission.completed"]}
    )
    assert reply.status in (200, 201), reply.json
    await completed_submission(api, worker)
    await worker.drain()
    bodies = {request.json["event_type"]: request.json["data"] for request in receiver.received}
    last = bodies["form.completed"]
    assert last["documents"] and last["audit_log_url"] and last["submission"]["audit_log_url"]
    assert bodies["submission.completed"]["documents"] and bodies["submission.completed"]["combined_document_url"]
    for url in (last["documents"][0]["url"], last["audit_log_url"]):
        assert (await fetch(api, url)).startswith(b"%PDF-")


# Any signer's name, on a machine without the CJK fallback font


class ForkedPool(PdfPool):
    """One worker forked from the test process, so that it sees the font lookup the test monkeypatched."""

    def _new_executor(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("fork"))


@pytest.mark.parametrize(
    "name, note", [("山田 太郎", "replaced with ?: U+592A, U+5C71, U+7530, U+90CE"), ("Zoë Łukasz", None)]
)
async def test_a_signer_named_in_any_script_gets_documents_without_the_fallback_fonts(
    aiohttp_client, db, clock, config, monkeypatch, name, note
):
    monkeypatch.setattr(fonts, "fallback_fonts", lambda font_dir=None: ())
    pool = ForkedPool(workers=1)
    try:
        api = Api(await aiohttp_client(create_app(config, clock=clock, db=db, pool=pool, background=False)))
        found = await completed_submission(api, api.app[WORKER], BOTH_COMPLETED[0], {**BOTH_COMPLETED[1], "name": name})
        assert found["documents"] and found["combined_document_url"]
        for url in (found["documents"][0]["url"], found["combined_document_url"]):
            assert (await fetch(api, url)).startswith(b"%PDF-")
        audit = " ".join(text_of(await fetch(api, found["audit_log_url"])).split())
        assert (note in audit) if note else "no installed font" not in audit
    finally:
        pool.close()


# Start-up


async def test_a_server_without_a_usable_text_font_refuses_to_start_naming_what_to_install(
    make_app, monkeypatch, tmp_path
):
    from aiohttp import web

    from signsvc.infra.config import ConfigError
    from signsvc.pdf import font_files

    monkeypatch.setattr(font_files, "PACKAGED_TEXT", ("fontpkg_not_installed", "None.ttf"))
    runner = web.AppRunner(make_app(font_dir=str(tmp_path)))
    try:
        with pytest.raises(
            ConfigError,
            match=f"put DejaVuSans.ttf in {tmp_path}, or install the fontpkg-noto-sans "
            r"package \(pip install fontpkg-noto-sans\)",
        ):
            await runner.setup()
    finally:
        await runner.cleanup()


# Timestamps (PAdES B-T)


@CJK_FONT
async def test_with_a_timestamp_server_every_signature_carries_its_timestamp(aiohttp_client, make_app, tsa):
    from signsvc.http.appkeys import WORKER
    from tests.support.app import Api

    stamped = Api(await aiohttp_client(make_app(tsa_url=tsa["url"])))
    found = await completed_submission(stamped, stamped.app[WORKER])
    for url in (found["documents"][0]["url"], found["audit_log_url"], found["combined_document_url"]):
        data = base64.b64encode(await fetch(stamped, url)).decode()
        # The certification signature, then the document timestamp over the DSS (PAdES B-LTA).
        signature, archive = (await stamped.post("/api/tools/verify", json={"file": data})).json["signatures"]
        assert signature["timestamp"] and archive["type"] == "timestamp"
        assert signature["issued_by_service"] and signature["pades_level"] == "B-LTA"


@CJK_FONT
async def test_without_an_answer_from_the_timestamp_server_documents_are_signed_without_a_timestamp(
    aiohttp_client, make_app, caplog
):
    from signsvc.http.appkeys import WORKER
    from tests.support.app import Api

    unreachable = Api(await aiohttp_client(make_app(tsa_url="http://127.0.0.1:9/tsa")))
    found = await completed_submission(unreachable, unreachable.app[WORKER])
    data = base64.b64encode(await fetch(unreachable, found["documents"][0]["url"])).decode()
    [signature] = (await unreachable.post("/api/tools/verify", json={"file": data})).json["signatures"]
    assert signature["timestamp"] is None and signature["issued_by_service"]
    errors = [r for r in caplog.records if r.levelname == "ERROR" and "signed without a timestamp" in r.getMessage()]
    assert len(errors) == 1, "after a failure the server is left alone for a while, not asked for every seal"


async def test_documents_with_merge_true_answer_several_documents_in_one_pdf(api, worker):
    from tests.support.documents import b64, pdf

    fields = [
        {
            "name": "Full Name",
            "type": "text",
            "role": "First Party",
            "areas": [{"x": 0.1, "y": 0.1, "w": 0.3, "h": 0.05, "page": 1}],
        }
    ]
    reply = await api.post(
        "/api/templates",
        json={
            "name": "Pack",
            "documents": [
                {"name": "one", "file": b64(pdf(1, text="First")), "fields": fields},
                {"name": "two", "file": b64(pdf(2, text="Second"))},
            ],
        },
    )
    assert reply.status == 201, reply.json
    sent = await send(
        api, reply.json["id"], {"email": "ann@example.com", "values": {"Full Name": "Ann"}, "completed": True}
    )
    await worker.drain()
    submission_id = sent[0]["submission_id"]
    separate = (await api.get(f"/api/submissions/{submission_id}/documents")).json["documents"]
    assert [d["name"] for d in separate] == ["one", "two"]
    merged = (await api.get(f"/api/submissions/{submission_id}/documents?merge=true")).json["documents"]
    assert [d["name"] for d in merged] == ["Pack"]
    data = await fetch(api, merged[0]["url"])
    assert len(pypdf.PdfReader(io.BytesIO(data)).pages) == 3 and "Second" in text_of(data)
    again = (await api.get(f"/api/submissions/{submission_id}/documents?merge=true")).json["documents"]
    assert await fetch(api, again[0]["url"]) == data


# Bad signature values: a clear 422 at the door, or documents that still complete


def _image(size, mode="1", **save) -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new(mode, size).save(buffer, save.pop("format", "PNG"), **save)
    return buffer.getvalue()


async def test_an_enormous_signature_image_is_a_422_naming_the_field(api):
    huge = base64.b64encode(_image((12000, 12000))).decode()
    reply = await api.post(
        "/api/submissions",
        json={
            "template_id": await template(api),
            "submitters": [{"email": "ann@example.com", "values": {"Signature": huge}}],
        },
    )
    assert reply.status == 422 and reply.json["error"].startswith(
        "Signature: The image is 12000x12000 pixels (144.0 megapixels); at most 50 megapixels are allowed"
    )


async def test_a_broken_signature_image_is_a_422_naming_the_field(api):
    broken = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 64).decode()
    reply = await api.post(
        "/api/submissions",
        json={
            "template_id": await template(api),
            "submitters": [{"email": "ann@example.com", "values": {"Signature": broken}}],
        },
    )
    assert reply.status == 422 and reply.json["error"].startswith("Signature:"), reply.json


async def test_a_signature_image_with_exif_rotation_completes(api, worker):
    from PIL import Image

    photo = Image.new("RGB", (300, 100), "white")
    exif = photo.getexif()
    exif[0x0112] = 6  # shown rotated 90 degrees
    buffer = io.BytesIO()
    photo.save(buffer, "JPEG", exif=exif)
    found = await completed_submission(
        api,
        worker,
        {
            "email": "ann@example.com",
            "completed": True,
            "values": {"Full Name": "Ann", "Signature": base64.b64encode(buffer.getvalue()).decode()},
        },
        {"email": "bob@example.com", "values": BOB_VALUES, "completed": True},
    )
    assert found["status"] == "completed" and found["documents"] and found["audit_log_url"]


async def test_an_empty_signature_is_a_422_naming_the_field(api):
    reply = await api.post(
        "/api/submissions",
        json={
            "template_id": await template(api),
            "submitters": [{"email": "ann@example.com", "values": {"Signature": ""}}],
        },
    )
    assert reply.status == 422 and reply.json["error"].startswith("Signature: Invalid value"), reply.json
