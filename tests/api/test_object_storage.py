"""Files in S3-compatible object storage (a local emulator): everything the service stores goes to the bucket, file
links serve it (or send the browser to a presigned URL), and an object store that does not answer loses nothing."""

import hashlib
import logging
from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import aiohttp
import pytest

import storage.files as stored_files
from signsvc.http.appkeys import WORKER
from tests.support.app import Api
from tests.support.documents import b64, pdf
from tests.support.results import completed_submission, fetch
from tests.support.s3 import Emulator
from tests.support.signing import send, submission, template

# What an outage of the object store does is the same beside either database, and each costs seconds of retries.
OUTAGE_ON_ONE_DATABASE = pytest.mark.parametrize("backend", ["sqlite"], indirect=True)


def bucket_of(s3_url: str) -> str:
    return s3_url.removeprefix("s3://").split("/")[0]


@pytest.fixture
async def on_s3(aiohttp_client, make_app, s3_url) -> Api:
    return Api(await aiohttp_client(make_app(storage_url=s3_url)))


@pytest.fixture
def outage(s3_emulator, monkeypatch):
    """An emulator of this test's own (sharing the buckets), which the test can stop and start again."""
    own = Emulator()
    monkeypatch.setenv("AWS_ENDPOINT_URL", own.endpoint)
    yield own
    own.stop()


async def test_uploads_previews_signatures_and_result_documents_are_kept_in_the_bucket(
    on_s3, db, s3_emulator, s3_url, config, tmp_path
):
    completed = await completed_submission(on_s3, on_s3.app[WORKER])
    hashes = await stored_files.stored_contents(db, after="", limit=1000)
    keys = s3_emulator.keys(bucket_of(s3_url))
    assert len(hashes) >= 6  # the document, its preview, two signatures, signed documents, audit log, combined
    assert keys == sorted(f"signsvc/{sha[:2]}/{sha[2:4]}/{sha}" for sha in hashes)
    assert not (tmp_path / "data" / "files").exists()
    for url in [completed["audit_log_url"], *(document["url"] for document in completed["documents"])]:
        body = await fetch(on_s3, url)
        assert hashlib.sha256(body).hexdigest() in hashes


async def test_a_range_of_a_file_is_read_from_the_object_store(on_s3):
    template_id = await template(on_s3)
    url = (await on_s3.get(f"/api/templates/{template_id}")).json["documents"][0]["url"]
    whole = await fetch(on_s3, url)
    reply = await on_s3.with_key(None).get(url.removeprefix("http://signsvc.test"), headers={"Range": "bytes=5-9"})
    assert (reply.status, reply.body) == (206, whole[5:10])


async def test_presigned_links_send_the_browser_to_the_object_store_for_the_bytes(
    aiohttp_client, make_app, s3_url, s3_emulator
):
    api = Api(await aiohttp_client(make_app(storage_url=s3_url, storage_presigned_links=True)))
    template_id = await template(api)
    url = (await api.get(f"/api/templates/{template_id}")).json["documents"][0]["url"]
    reply = await api.with_key(None).get(url.removeprefix("http://signsvc.test"), allow_redirects=False)
    assert reply.status == 302
    assert reply.headers["Location"].startswith(f"{s3_emulator.endpoint}/{bucket_of(s3_url)}/signsvc/")
    assert reply.headers["Referrer-Policy"] == "no-referrer"
    async with aiohttp.ClientSession() as session, session.get(reply.headers["Location"]) as stored:
        assert stored.status == 200 and (await stored.read()).startswith(b"%PDF")
        assert stored.headers["Content-Type"] == "application/pdf"
        assert stored.headers["Content-Disposition"].startswith('inline; filename="nda')


async def test_a_presigned_url_never_outlives_its_link(aiohttp_client, make_app, s3_url, clock):
    api = Api(await aiohttp_client(make_app(storage_url=s3_url, storage_presigned_links=True)))
    url = (await api.get(f"/api/templates/{await template(api)}")).json["documents"][0]["url"]
    path = url.removeprefix("http://signsvc.test")
    fresh = await api.with_key(None).get(path, allow_redirects=False)
    clock.advance(timedelta(minutes=38))  # two minutes of the link's forty left
    late = await api.with_key(None).get(path, allow_redirects=False)
    assert [parse_qs(urlsplit(reply.headers["Location"]).query)["X-Amz-Expires"] for reply in (fresh, late)] == [
        ["300"],
        ["120"],
    ]


async def test_an_expired_link_is_refused_before_any_presigned_url_is_made(aiohttp_client, make_app, s3_url, clock):
    api = Api(await aiohttp_client(make_app(storage_url=s3_url, storage_presigned_links=True)))
    url = (await api.get(f"/api/templates/{await template(api)}")).json["documents"][0]["url"]
    clock.advance(timedelta(minutes=41))
    reply = await api.with_key(None).get(url.removeprefix("http://signsvc.test"), allow_redirects=False)
    assert reply.status == 403 and "Location" not in reply.headers


@OUTAGE_ON_ONE_DATABASE
async def test_an_upload_while_the_object_store_does_not_answer_is_503_and_records_nothing(
    aiohttp_client, make_app, s3_url, outage
):
    api = Api(await aiohttp_client(make_app(storage_url=s3_url)))
    outage.stop()
    body = {"name": "NDA", "documents": [{"name": "nda", "file": b64(pdf())}]}
    reply = await api.post("/api/templates", json=body)
    assert (reply.status, reply.json) == (
        503,
        {"error": "Service unavailable: the file store does not answer; try again later"},
    )
    assert (await api.get("/api/templates")).json["data"] == []
    outage.start()
    assert (await api.post("/api/templates", json=body)).status == 201


@OUTAGE_ON_ONE_DATABASE
async def test_documents_of_a_completion_while_the_object_store_does_not_answer_are_made_once_it_answers(
    aiohttp_client, make_app, s3_url, outage, clock
):
    api = Api(await aiohttp_client(make_app(storage_url=s3_url)))
    worker = api.app[WORKER]
    sent = await send(
        api,
        await template(api),
        {
            "email": "ann@example.com",
            "name": "Ann",
            "completed": True,
            "values": {"Full Name": "Ann", "Signature": "Ann"},
        },
        {"email": "bob@example.com", "name": "Bob", "completed": True, "values": {"Buyer Name": "Bob"}},
    )
    outage.stop()
    await worker.drain()
    submission_id = sent[0]["submission_id"]
    assert (await api.get(f"/api/submissions/{submission_id}/pdf")).status == 422
    outage.start()
    clock.advance(timedelta(minutes=10))
    await worker.drain()
    completed = await submission(api, submission_id)
    assert completed["status"] == "completed" and len(completed["documents"]) == 1
    assert (await fetch(api, completed["combined_document_url"])).startswith(b"%PDF")


async def test_a_file_whose_content_is_missing_from_the_bucket_is_410_and_logged_once(
    on_s3, s3_emulator, s3_url, caplog
):
    template_id = await template(on_s3)
    url = (await on_s3.get(f"/api/templates/{template_id}")).json["documents"][0]["url"]
    bucket = bucket_of(s3_url)
    for key in s3_emulator.keys(bucket):
        s3_emulator.client().delete_object(Bucket=bucket, Key=key)
    with caplog.at_level(logging.ERROR, logger="signsvc.infra.files"):
        replies = [await on_s3.with_key(None).get(url.removeprefix("http://signsvc.test")) for _ in range(2)]
    assert [(reply.status, reply.json) for reply in replies] == [
        (410, {"error": "The file's content is missing from the file store"})
    ] * 2
    assert len([r for r in caplog.records if "missing from the file store" in r.getMessage()]) == 1
