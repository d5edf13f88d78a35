"""The page images of a template made from HTML: the first page's in the answer, the others made after it by the
`templates.page_images` job, and made at once by whatever copies or shows every page before the job has run."""

from __future__ import annotations

import asyncio
import hashlib
import re
from typing import Any

import asyncpg
import pytest

import storage.files as stored_files
import storage.metrics as stored_metrics
import storage.submissions as stored_submissions
import storage.templates as stored_templates
from signsvc.http.appkeys import FILES, WORKER
from signsvc.infra.files import NewFile
from signsvc.pdf import previews
from signsvc.templates import page_images
from signsvc.templates.page_images import PageImages
from storage import Database
from storage.records import TemplateDocument
from tests.support.app import Api
from tests.support.console import signed_in
from tests.support.databases import POSTGRES_URL
from tests.support.documents import b64, pdf
from tests.support.results import fetch
from tests.support.system import PANGO

pytestmark = PANGO

PAGES = 3
SIGNER = {"email": "ann@example.com", "name": "Ann"}


def lease_html(pages: int = PAGES, title: str = "Lease") -> str:
    """`pages` pages of different text, each starting a page; a text field on the first, a signature on the last."""
    parts = [f'<h1>{title}</h1><p>Page 1: the parties.</p><text-field name="Full Name" role="Tenant"></text-field>']
    for page in range(2, pages + 1):
        words = " ".join(f"clause {page}.{n}" for n in range(page * 20))
        parts.append(f'<section style="break-before: page"><h2>Page {page}</h2><p>{words}</p></section>')
    parts.append('<signature-field name="Signature" role="Tenant"></signature-field>')
    return "".join(parts)


async def create(api: Api, status: int = 201, **body: Any) -> dict[str, Any]:
    reply = await api.post("/api/templates/html", json={"name": "Lease", "html": lease_html(), **body})
    assert reply.status == status, reply.json
    return reply.json


async def documents(db: Database, template_id: int) -> list[TemplateDocument]:
    return await stored_templates.list_documents(db, template_id)


async def image(api: Api, preview: dict[str, Any]) -> bytes:
    reply = await api.with_key(None).get(api.app[FILES].links.path(preview["uuid"], preview["filename"]))
    assert reply.status == 200 and reply.headers["Content-Type"] == "image/jpeg"
    return reply.body


async def assert_every_page_pictured(api: Api, pdf_url: str, pictures: list[dict[str, Any]]) -> None:
    """Each picture is the JPEG of its page of the PDF behind `pdf_url`, as an upload's page images are made."""
    expected = previews.render_pages(await fetch(api, pdf_url))
    assert len(pictures) == len(expected)
    for number, (picture, made) in enumerate(zip(pictures, expected, strict=True)):
        assert picture["filename"] == f"{number}.jpg"
        assert await image(api, picture) == made, f"page {number + 1}"


async def page_image_jobs(db: Database, clock) -> dict[str, int]:
    """The queue's page image jobs: due, running and failed."""
    for counts in (await stored_metrics.queues(db, clock.now())).jobs:
        if counts.kind == page_images.JOB:
            return {"due": counts.due, "running": counts.running, "failed": counts.failed}
    return {"due": 0, "running": 0, "failed": 0}


async def blob_count(db: Database, sha256: str) -> int:
    row = await db.fetch_one("count_blobs_with_content", sha256=sha256)
    assert row is not None
    return int(row["count"])


async def test_the_answer_has_the_first_pages_image_and_the_stored_document_lists_every_page(api, db, clock):
    template = await create(api)
    [document] = await documents(db, template["id"])
    assert len(document.pages) == PAGES and len(document.previews) == 1 and page_images.pending(document)
    # Each page's text (the alternative of its image for screen readers) comes with its image.
    assert "Page 1: the parties." in document.pages[0]["text"] and [p["text"] for p in document.pages[1:]] == ["", ""]
    first = await image(api, document.previews[0])
    assert await fetch(api, template["documents"][0]["preview_image_url"]) == first
    assert first == previews.render_pages(await fetch(api, template["documents"][0]["url"]), pages=[0])[0]
    assert await page_image_jobs(db, clock) == {"due": 1, "running": 0, "failed": 0}


async def test_the_job_makes_every_other_pages_image_each_a_jpeg_of_its_page(api, db, worker, clock):
    template = await create(api)
    first = (await documents(db, template["id"]))[0].previews[0]
    await worker.drain()
    [document] = await documents(db, template["id"])
    assert not page_images.pending(document) and document.previews[0] == first
    assert [page["text"].split(" clause")[0] for page in document.pages[1:]] == ["Page 2", "Page 3"]
    await assert_every_page_pictured(api, template["documents"][0]["url"], document.previews)
    assert await page_image_jobs(db, clock) == {"due": 0, "running": 0, "failed": 0}


@pytest.mark.parametrize("form", ["html", "documents"])
async def test_both_forms_and_the_external_id_update_leave_the_other_pages_to_the_job(api, db, worker, form):
    def body(title: str) -> dict[str, Any]:
        given = [{"html": lease_html(2, title), "name": "one"}, {"html": lease_html(3, title), "name": "two"}]
        return {"html": lease_html(2, title)} if form == "html" else {"html": None, "documents": given}

    created = await create(api, external_id="lease-1", **body("First"))
    updated = await create(api, 200, external_id="lease-1", **body("Second"))
    assert updated["id"] == created["id"]
    stored = await documents(db, created["id"])
    assert [(len(d.pages), len(d.previews)) for d in stored] == ([(2, 1)] if form == "html" else [(2, 1), (3, 1)])
    await worker.drain()
    for document, shown in zip(await documents(db, created["id"]), updated["documents"], strict=True):
        await assert_every_page_pictured(api, shown["url"], document.previews)


async def test_other_intakes_still_make_every_pages_image_in_the_request(api, db, clock):
    reply = await api.post("/api/templates", json={"name": "Pdf", "documents": [{"file": b64(pdf(3))}]})
    assert reply.status == 201, reply.json
    [document] = await documents(db, reply.json["id"])
    assert (len(document.pages), len(document.previews)) == (3, 3)
    changed = await api.put(
        f"/api/templates/{reply.json['id']}/documents", json={"documents": [{"html": lease_html(), "name": "Annex"}]}
    )
    assert changed.status == 200, changed.json
    assert [len(d.previews) for d in await documents(db, reply.json["id"])] == [3, PAGES]
    assert await page_image_jobs(db, clock) == {"due": 0, "running": 0, "failed": 0}


async def test_the_job_survives_a_restart_as_a_row_of_the_queue(api, db, aiohttp_client, make_app):
    template = await create(api)
    restarted = Api(await aiohttp_client(make_app()))
    assert await restarted.app[WORKER].drain() >= 1
    [document] = await documents(db, template["id"])
    await assert_every_page_pictured(api, template["documents"][0]["url"], document.previews)


async def test_a_submission_made_before_the_job_ran_has_every_pages_image_and_its_form_shows_each(api, db, clock):
    template = await create(api)
    reply = await api.post("/api/submissions", json={"template_id": template["id"], "submitters": [SIGNER]})
    assert reply.status == 200, reply.json
    [signer] = reply.json
    [copy] = (await stored_submissions.get_submission(db, signer["submission_id"])).documents
    await assert_every_page_pictured(api, template["documents"][0]["url"], copy["previews"])
    body = (await api.with_key(None).get(f"/s/{signer['slug']}", headers={"Accept": "text/html"})).body.decode()
    shown = re.findall(r'<img src="(/file/[^"]+)" width="\d+" height="\d+" alt="Page (\d) of Lease"', body)
    assert [number for _, number in shown] == [str(n) for n in range(1, PAGES + 1)]
    assert '<div class="visually-hidden">Page 3 clause 3.0' in body  # each page's text with its image
    # The template's own document was completed on the way, so the job has nothing left to do.
    assert not page_images.pending((await documents(db, template["id"]))[0])


async def test_a_one_off_submission_of_the_template_made_before_the_job_ran_has_every_pages_image(api, db):
    template = await create(api)
    reply = await api.post(
        "/api/submissions/pdf",
        json={
            "documents": [{"file": b64(pdf()), "fields": []}],
            "template_ids": [template["id"]],
            "submitters": [SIGNER],
        },
    )
    assert reply.status == 200, reply.json
    copies = (await stored_submissions.get_submission(db, reply.json["id"])).documents
    assert [len(copy["previews"]) for copy in copies] == [1, PAGES]
    await assert_every_page_pictured(api, template["documents"][0]["url"], copies[1]["previews"])


async def test_a_clone_made_before_the_job_ran_has_every_pages_image(api, db):
    template = await create(api)
    reply = await api.post(f"/api/templates/{template['id']}/clone", json={})
    assert reply.status == 200, reply.json
    [document] = await documents(db, reply.json["id"])
    await assert_every_page_pictured(api, template["documents"][0]["url"], document.previews)


async def test_a_merge_made_before_the_job_ran_has_every_pages_image(api, db):
    first, second = await create(api), await create(api, html=lease_html(2, "Annex"), name="Annex")
    reply = await api.post("/api/templates/merge", json={"template_ids": [first["id"], second["id"]]})
    assert reply.status == 201, reply.json
    merged = await documents(db, reply.json["id"])
    for document, source in zip(merged, (first, second), strict=True):
        await assert_every_page_pictured(api, source["documents"][0]["url"], document.previews)


async def test_documents_kept_by_put_documents_before_the_job_ran_have_every_pages_image(api, db):
    template = await create(api)
    annex = {"documents": [{"file": b64(pdf()), "name": "Annex"}]}
    reply = await api.put(f"/api/templates/{template['id']}/documents", json=annex)
    assert reply.status == 200, reply.json
    kept = (await documents(db, template["id"]))[0]
    await assert_every_page_pictured(api, template["documents"][0]["url"], kept.previews)


async def test_the_console_editor_and_a_clickwrap_page_show_every_pages_image_before_the_job_ran(api):
    template = await create(api)
    editor = await (await signed_in(api)).get(f"/console/templates/{template['id']}")
    assert editor.status == 200 and len(re.findall(r'<img src="/file/[^"]+"', editor.body.decode())) == PAGES
    other = await create(api, name="Licence")
    licence = {"name": "Licence", "kind": "view_only", "template_id": other["id"], "publish": True}
    clickwrap = (await api.post("/api/clickwraps", json=licence)).json
    page = await api.with_key(None).get(f"/c/{clickwrap['slug']}", headers={"Accept": "text/html"})
    shown = re.findall(
        r'<img src="/file/[^"]+" width="\d+" height="\d+" alt="Page (\d) of Licence"', page.body.decode()
    )
    assert shown == [str(n) for n in range(1, PAGES + 1)]


async def test_the_job_completes_an_archived_templates_images(api, db, worker, clock):
    template = await create(api)
    assert (await api.delete(f"/api/templates/{template['id']}")).status == 200
    assert await worker.drain() >= 1
    [document] = await documents(db, template["id"])
    await assert_every_page_pictured(api, template["documents"][0]["url"], document.previews)


async def test_the_job_after_the_template_was_deleted_for_good_records_nothing_and_does_not_fail(
    api, db, worker, clock
):
    template = await create(api)
    made = previews.render_pages(await fetch(api, template["documents"][0]["url"]))
    assert (await api.delete(f"/api/templates/{template['id']}?permanently=true")).status == 200
    assert await worker.drain() >= 1
    assert await page_image_jobs(db, clock) == {"due": 0, "running": 0, "failed": 0}
    for picture in made:
        assert await blob_count(db, hashlib.sha256(picture).hexdigest()) == 0


async def test_images_made_of_a_document_that_another_run_completed_meanwhile_are_discarded(api, db, pdf_pool):
    template = await create(api)
    [stale] = await documents(db, template["id"])
    other = PageImages(db, api.app[FILES], pdf_pool)
    await other.complete(template["id"])
    [completed] = await documents(db, template["id"])
    await PageImages(db, api.app[FILES], pdf_pool).complete_document(stale)  # made from the document as read before
    assert await documents(db, template["id"]) == [completed]
    for preview in completed.previews:
        assert await blob_count(db, hashlib.sha256(await image(api, preview)).hexdigest()) == 1


async def test_the_job_after_put_documents_replaced_the_document_does_nothing(api, db, worker, clock):
    template = await create(api)
    made = previews.render_pages(await fetch(api, template["documents"][0]["url"]))
    replacing = {"documents": [{"file": b64(pdf(2)), "name": "Lease", "replace": True, "position": 0}]}
    reply = await api.put(f"/api/templates/{template['id']}/documents", json=replacing)
    assert reply.status == 200, reply.json
    before = await documents(db, template["id"])
    assert await worker.drain() >= 1
    assert await documents(db, template["id"]) == before
    assert [(len(d.pages), len(d.previews)) for d in before] == [(2, 2)]
    assert await page_image_jobs(db, clock) == {"due": 0, "running": 0, "failed": 0}
    for picture in made[1:]:  # the replaced document's images were made (PUT completes first), then forgotten
        assert await blob_count(db, hashlib.sha256(picture).hexdigest()) == 0


async def test_images_that_cannot_be_made_fail_the_job_once_and_the_pages_show_without_them(api, db, worker, clock):
    template = await create(api)
    [document] = await documents(db, template["id"])
    blob = await stored_files.get_blob(db, document.blob_id)
    assert blob is not None
    contents = api.app[FILES].contents  # the stored file, broken since
    await contents.delete(blob.sha256)
    await contents.put(blob.sha256, b"%PDF-1.7 damaged on disk")
    assert await worker.drain() == 1
    assert await page_image_jobs(db, clock) == {"due": 0, "running": 0, "failed": 1}
    editor = await (await signed_in(api)).get(f"/console/templates/{template['id']}")
    assert editor.status == 200 and len(re.findall(r'<img src="/file/[^"]+"', editor.body.decode())) == 1


async def waiting_for_the_template(backend: str) -> None:
    """Until another connection waits for a lock in a statement on templates (Postgres); SQLite's writers take turns
    in this process, so the other is either waiting or has not begun."""
    if backend != "postgres":
        return
    watcher = await asyncpg.connect(POSTGRES_URL)
    try:
        for _ in range(1000):
            waiting = await watcher.fetchval(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1",
                "%templates%",
            )
            if waiting:
                return
            await asyncio.sleep(0.01)
        raise AssertionError("nobody waited for a lock on templates")
    finally:
        await watcher.close()


async def test_a_template_deleted_for_good_while_its_page_images_are_written_forgets_them_too(api, db, backend):
    template = await create(api)
    [document] = await documents(db, template["id"])
    made = previews.render_pages(await fetch(api, template["documents"][0]["url"]), pages=[1])[0]
    picture = NewFile(made, "1.jpg", "image/jpeg", hashlib.sha256(made).hexdigest())
    files = api.app[FILES]
    await files.write([picture])
    pdf_blob = await stored_files.get_blob(db, document.blob_id)
    assert pdf_blob is not None
    async with db.transaction() as tx:  # the page images' writer, as `PageImages` takes its locks
        await stored_templates.lock_template(tx, template["id"])
        assert await stored_templates.lock_document(tx, document.id) == document
        blob = await files.record(tx, pdf_blob.account_id, picture)
        added = {"id": blob.id, "uuid": blob.uuid, "filename": blob.filename}
        await stored_templates.set_document_images(tx, document.id, document.pages, [*document.previews, added])
        deleting = asyncio.create_task(api.delete(f"/api/templates/{template['id']}?permanently=true"))
        await waiting_for_the_template(backend)
    assert (await deleting).status == 200
    assert await blob_count(db, picture.sha256) == 0, "the image written meanwhile is forgotten with the template"


async def test_running_the_job_twice_changes_nothing(api, db, worker, clock):
    template = await create(api)
    await worker.drain()
    done = await documents(db, template["id"])
    async with db.transaction() as tx:
        await page_images.enqueue(tx, clock, template["id"])
    assert await worker.drain() == 1
    assert await documents(db, template["id"]) == done
    assert await page_image_jobs(db, clock) == {"due": 0, "running": 0, "failed": 0}


async def test_the_job_and_another_process_completing_at_once_record_each_image_once(api, db, worker, pdf_pool):
    template = await create(api)
    elsewhere = PageImages(db, api.app[FILES], pdf_pool)  # a second process's: it shares no work with this one's
    _, completed = await asyncio.gather(worker.drain(), elsewhere.complete(template["id"]))
    [document] = await documents(db, template["id"])
    assert completed == [document]
    await assert_every_page_pictured(api, template["documents"][0]["url"], document.previews)
    for preview in document.previews:
        assert await blob_count(db, hashlib.sha256(await image(api, preview)).hexdigest()) == 1
