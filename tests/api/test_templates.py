"""Templates: created from documents, changed, cloned, archived, deleted, and their files."""

import io
from datetime import timedelta
from pathlib import Path

import docx
import pytest
from aiohttp import web
from pypdf import PdfReader
from yarl import URL

import storage.events as stored_events
from signsvc.infra.downloads import Downloader
from signsvc.infra.files import REMOVAL_GRACE
from tests.support.app import TEST_KEY, Api
from tests.support.documents import b64, pdf, png
from tests.support.https import serve_https
from tests.support.samples import encrypted, form_pdf, pages_pdf
from tests.support.system import SOFFICE

TEXT_FIELD = {
    "name": "Full Name",
    "type": "text",
    "role": "Buyer",
    "areas": [{"x": 0.1, "y": 0.2, "w": 0.3, "h": 0.05, "page": 1}],
}


def body(**changes):
    return {"name": "NDA", "documents": [{"name": "nda.pdf", "file": b64(pdf(2)), "fields": [TEXT_FIELD]}], **changes}


async def create(api, **changes):
    reply = await api.post("/api/templates", json=body(**changes))
    assert reply.status == 201, reply.json
    return reply.json


def stored_files(config):
    return [path for path in Path(config.data_dir).rglob("*") if path.is_file()]


async def fetch(api, link: str):
    return await api.with_key(None).get(URL(link).raw_path)


async def test_create_answers_201_with_the_template_record(api):
    template = await create(api, external_id="crm-42", folder_name="Sales")
    assert template["id"] == 1 and template["name"] == "NDA" and len(template["slug"]) == 14
    assert (template["external_id"], template["application_key"], template["folder_name"]) == (
        "crm-42",
        "crm-42",
        "Sales",
    )
    assert template["source"] == "api" and template["archived_at"] is None
    assert template["author"] == {"id": 1, "email": "admin@example.com", "first_name": "Admin", "last_name": "User"}
    document = template["documents"][0]
    assert template["schema"] == [{"attachment_uuid": document["uuid"], "name": "nda"}]
    assert document["filename"] == "nda.pdf"


async def test_a_template_record_carries_an_empty_variables_schema_as_templates_define_no_variables(api):
    template = await create(api)
    assert template["variables_schema"] == {}
    assert (await api.get(f"/api/templates/{template['id']}")).json["variables_schema"] == {}
    assert (await api.get("/api/templates")).json["data"][0]["variables_schema"] == {}
    assert (await api.post(f"/api/templates/{template['id']}/clone", json={})).json["variables_schema"] == {}


async def test_field_areas_are_stored_with_0_based_pages_on_the_document(api):
    template = await create(api)
    field = template["fields"][0]
    assert field["areas"] == [
        {"x": 0.1, "y": 0.2, "w": 0.3, "h": 0.05, "page": 0, "attachment_uuid": template["documents"][0]["uuid"]}
    ]
    assert field["required"] is True and field["type"] == "text"


async def test_a_role_that_does_not_exist_yet_becomes_a_new_role(api):
    second = {**TEXT_FIELD, "name": "Seller Name", "role": "Seller"}
    template = await create(
        api, documents=[{"file": b64(pdf()), "fields": [TEXT_FIELD, second, {**TEXT_FIELD, "role": "buyer"}]}]
    )
    assert [role["name"] for role in template["submitters"]] == ["Buyer", "Seller"]
    buyer, seller = (role["uuid"] for role in template["submitters"])
    assert [f["submitter_uuid"] for f in template["fields"]] == [buyer, seller, buyer]


async def test_fields_without_a_role_go_to_the_first_party(api):
    template = await create(api, documents=[{"file": b64(pdf()), "fields": [{"type": "signature", "areas": []}]}])
    assert [role["name"] for role in template["submitters"]] == ["First Party"]
    assert template["fields"][0]["name"] == "Signature Field 1"


async def test_options_of_select_radio_and_multiple_fields_get_uuids(api):
    radio = {
        "name": "Plan",
        "type": "radio",
        "options": ["Basic", {"value": "Pro"}],
        "areas": [
            {"x": 0.1, "y": 0.5, "w": 0.02, "h": 0.02, "page": 1, "option": "Basic"},
            {"x": 0.1, "y": 0.6, "w": 0.02, "h": 0.02, "page": 1, "option": "Pro"},
        ],
    }
    template = await create(api, documents=[{"file": b64(pdf()), "fields": [radio]}])
    field = template["fields"][0]
    assert [option["value"] for option in field["options"]] == ["Basic", "Pro"]
    assert [area["option_uuid"] for area in field["areas"]] == [option["uuid"] for option in field["options"]]


async def test_the_client_path_templates_pdf_creates_the_same_and_tolerates_client_keys(api):
    reply = await api.post("/api/templates/pdf", json=body(shared_link=True, flatten=False, remove_tags=True))
    assert reply.status == 201
    assert reply.json["name"] == "NDA" and reply.json["shared_link"] is True


async def test_a_pdf_without_form_fields_gives_a_template_without_fields(api):
    reply = await api.post("/api/templates", json={"documents": [{"name": "plain.pdf", "file": b64(pdf())}]})
    assert reply.status == 201
    assert reply.json["fields"] == [] and reply.json["name"] == "plain"


async def test_an_image_becomes_a_one_page_pdf(api):
    reply = await api.post("/api/templates", json={"documents": [{"name": "scan.png", "file": b64(png())}]})
    assert reply.status == 201
    served = await fetch(api, reply.json["documents"][0]["url"])
    assert served.headers["Content-Type"] == "application/pdf"
    assert len(PdfReader(io.BytesIO(served.body)).pages) == 1


async def test_document_and_preview_links_serve_the_files(api):
    template = await create(api)
    document = template["documents"][0]
    served = await fetch(api, document["url"])
    assert len(PdfReader(io.BytesIO(served.body)).pages) == 2
    preview = await fetch(api, document["preview_image_url"])
    assert preview.status == 200 and preview.headers["Content-Type"] == "image/jpeg"
    assert preview.body.startswith(b"\xff\xd8\xff")


async def test_every_read_issues_fresh_links(api, clock):
    template = await create(api)
    clock.advance(timedelta(minutes=41))
    assert (await fetch(api, template["documents"][0]["url"])).status == 403
    again = await api.get(f"/api/templates/{template['id']}")
    assert (await fetch(api, again.json["documents"][0]["url"])).status == 200


async def test_template_created_is_recorded_with_the_template(api, db):
    template = await create(api)
    events = await stored_events.list_events_of_record(db, "template", template["id"])
    assert [event.event_type for event in events] == ["template.created"]


@pytest.mark.parametrize(
    "documents,message",
    [
        ([], "documents must be a non-empty array"),
        (None, "documents must be a non-empty array"),
        ([{"name": "x.pdf"}], "documents[0].file is required: the file as base64 or an https:// URL"),
        ([{"file": "%%% not base64"}], "documents[0].file is neither valid base64 nor an https:// URL"),
        ([{"file": b64(b"just some text, not a document")}], "documents[0].file is not a supported file"),
        ([{"file": "http://example.com/a.pdf"}], "documents[0].file:"),
        ([{"file": b64(pdf()), "fields": [{"type": "painting"}]}], "documents[0].fields[0].type must be one of"),
        (
            [
                {
                    "file": b64(pdf()),
                    "fields": [{**TEXT_FIELD, "areas": [{"x": 0.9, "y": 0.1, "w": 0.2, "h": 0.1, "page": 1}]}],
                }
            ],
            "documents[0].fields[0].areas[0] must lie inside the page",
        ),
        (
            [
                {
                    "file": b64(pdf()),
                    "fields": [{**TEXT_FIELD, "areas": [{"x": 0.1, "y": 0.1, "w": 0.2, "h": 0.1, "page": 3}]}],
                }
            ],
            "documents[0].fields[0].areas[0].page 3 does not exist: the document has 1 page",
        ),
        (
            [{"file": b64(pdf()), "fields": [{"type": "select", "areas": []}]}],
            "documents[0].fields[0].options must be a non-empty array for a select field",
        ),
        (
            [{"file": b64(pdf()), "fields": [{**TEXT_FIELD, "required": "yes"}]}],
            "documents[0].fields[0].required must be true or false",
        ),
    ],
)
async def test_bad_input_is_422_naming_the_problem_and_leaves_nothing_behind(api, db, config, documents, message):
    reply = await api.post("/api/templates", json={"name": "Bad", "documents": documents})
    assert reply.status == 422
    assert reply.json["error"].startswith(message)
    assert (await api.get("/api/templates?archived=false")).json["data"] == []
    assert stored_files(config) == []


async def test_list_filters_by_name_external_id_folder_and_archived_state(api):
    first = await create(api, name="Lease Agreement", external_id="a-1", folder_name="Rentals")
    second = await create(api, name="NDA", external_id="b-2")
    await api.delete(f"/api/templates/{second['id']}")

    async def ids(query):
        return [t["id"] for t in (await api.get(f"/api/templates?{query}")).json["data"]]

    assert await ids("") == [first["id"]]
    assert await ids("q=lease") == [first["id"]] and await ids("q=nothing") == []
    assert await ids("q=%25") == [] and await ids("q=_") == [], "wildcards in q are plain characters"
    assert await ids("external_id=a-1") == [first["id"]]
    assert await ids("folder=Rentals") == [first["id"]] and await ids("folder=Default") == []
    assert await ids("archived=true") == [second["id"]]
    assert await ids("folder=None&q=undefined") == [first["id"]]


async def test_list_is_paginated_newest_first(api):
    created = [(await create(api, name=f"T{n}"))["id"] for n in range(3)]
    reply = await api.get("/api/templates?limit=2")
    assert [t["id"] for t in reply.json["data"]] == created[:0:-1]
    assert reply.json["pagination"] == {"count": 2, "next": created[1], "prev": created[2]}


async def test_get_unknown_template_is_404(api):
    reply = await api.get("/api/templates/99")
    assert (reply.status, reply.json) == (404, {"error": "Not found"})


async def test_another_accounts_template_is_403_not_authorized(api, other_account):
    template = await create(api)
    for method, path in (
        ("GET", ""),
        ("PUT", ""),
        ("DELETE", ""),
        ("POST", "/clone"),
        ("GET", "/pdf"),
        ("GET", "/submissions"),
    ):
        reply = await api.with_key(other_account.live).request(
            method, f"/api/templates/{template['id']}{path}", json={} if method in ("PUT", "POST") else None
        )
        assert (reply.status, reply.json) == (403, {"error": "Not authorized"}), (method, path)


async def test_a_live_template_asked_with_the_test_key_is_404_naming_the_key(api):
    template = await create(api)
    reply = await api.with_key(TEST_KEY).get(f"/api/templates/{template['id']}")
    assert reply.status == 404
    assert reply.json["error"] == (
        f"Template {template['id']} not found using testing API key; "
        "Use production API key to access production templates."
    )


async def test_test_mode_has_its_own_templates(api):
    await create(api)
    assert (await api.with_key(TEST_KEY).get("/api/templates")).json["data"] == []


async def test_put_renames_moves_and_edits_roles_answering_id_and_updated_at(api, clock, db):
    template = await create(api)
    clock.advance(timedelta(minutes=5))
    reply = await api.put(
        f"/api/templates/{template['id']}",
        json={"name": "NDA v2", "folder_name": "Legal", "external_id": "x-9", "roles": ["Customer", "Witness"]},
    )
    assert reply.status == 200
    assert reply.json == {"id": template["id"], "updated_at": "2026-01-01T12:05:00.000Z"}
    again = (await api.get(f"/api/templates/{template['id']}")).json
    assert (again["name"], again["folder_name"], again["external_id"]) == ("NDA v2", "Legal", "x-9")
    assert [r["name"] for r in again["submitters"]] == ["Customer", "Witness"]
    assert again["submitters"][0]["uuid"] == template["submitters"][0]["uuid"]
    events = await stored_events.list_events_of_record(db, "template", template["id"])
    assert [event.event_type for event in events] == ["template.created", "template.updated"]


async def test_put_replaces_fields_with_0_based_pages(api):
    template = await create(api)
    field = {"name": "Date", "type": "date", "areas": [{"x": 0.5, "y": 0.5, "w": 0.2, "h": 0.05, "page": 1}]}
    reply = await api.put(f"/api/templates/{template['id']}", json={"fields": [field]})
    assert reply.status == 200
    again = (await api.get(f"/api/templates/{template['id']}")).json
    assert [f["name"] for f in again["fields"]] == ["Date"]
    assert again["fields"][0]["areas"][0]["page"] == 1
    bad = await api.put(
        f"/api/templates/{template['id']}", json={"fields": [{**field, "areas": [{**field["areas"][0], "page": 2}]}]}
    )
    assert (bad.status, bad.json) == (
        422,
        {"error": "fields[0].areas[0].page 2 does not exist: the document has 2 pages (pages start at 0)"},
    )


async def test_put_archived_true_archives_and_false_restores(api):
    template = await create(api)
    await api.put(f"/api/templates/{template['id']}", json={"archived": True})
    assert (await api.get(f"/api/templates/{template['id']}")).json["archived_at"] is not None
    await api.put(f"/api/templates/{template['id']}", json={"archived": False})
    assert (await api.get(f"/api/templates/{template['id']}")).json["archived_at"] is None


@pytest.mark.parametrize(
    "change,message",
    [
        ({"name": 5}, "name must be a String"),
        ({"archived": "yes"}, "archived must be true or false"),
        ({"roles": "Buyer"}, "roles must be an array of role names"),
        ({"fields": {}}, "fields must be a Array"),
    ],
)
async def test_put_with_bad_input_is_422_and_changes_nothing(api, change, message):
    template = await create(api)
    reply = await api.put(f"/api/templates/{template['id']}", json=change)
    assert (reply.status, reply.json) == (422, {"error": message})
    assert (await api.get(f"/api/templates/{template['id']}")).json["updated_at"] == template["updated_at"]


async def test_delete_archives_answering_id_and_archived_at(api):
    template = await create(api)
    reply = await api.delete(f"/api/templates/{template['id']}")
    assert reply.json == {"id": template["id"], "archived_at": "2026-01-01T12:00:00.000Z"}
    assert (await api.get(f"/api/templates/{template['id']}")).status == 200


async def test_delete_permanently_removes_the_template_and_its_files(api, config, clock, worker):
    template = await create(api)
    reply = await api.delete(f"/api/templates/{template['id']}?permanently=true")
    assert reply.json == {"id": template["id"], "archived_at": None}
    assert (await api.get(f"/api/templates/{template['id']}")).status == 404
    clock.advance(REMOVAL_GRACE + timedelta(minutes=10))  # the files go with the next sweep after the grace period
    await worker.drain()
    assert stored_files(config) == []


async def test_clone_copies_with_fresh_uuids_and_default_name(api, db):
    template = await create(api)
    reply = await api.post(f"/api/templates/{template['id']}/clone", json={})
    assert reply.status == 200
    copy = reply.json
    assert copy["name"] == "NDA (Clone)" and copy["id"] != template["id"]
    assert copy["submitters"][0]["uuid"] != template["submitters"][0]["uuid"]
    assert copy["fields"][0]["uuid"] != template["fields"][0]["uuid"]
    assert copy["fields"][0]["submitter_uuid"] == copy["submitters"][0]["uuid"]
    assert copy["fields"][0]["areas"][0]["attachment_uuid"] == copy["documents"][0]["uuid"]
    assert (await fetch(api, copy["documents"][0]["url"])).status == 200
    named = await api.post(f"/api/templates/{template['id']}/clone", json={"name": "Copy", "folder_name": "Other"})
    assert (named.json["name"], named.json["folder_name"]) == ("Copy", "Other")
    assert [e.event_type for e in await stored_events.list_events_of_record(db, "template", copy["id"])] == [
        "template.created"
    ]


async def test_deleting_the_original_keeps_the_clones_files(api):
    template = await create(api)
    copy = (await api.post(f"/api/templates/{template['id']}/clone", json={})).json
    await api.delete(f"/api/templates/{template['id']}?permanently=true")
    assert (await fetch(api, (await api.get(f"/api/templates/{copy['id']}")).json["documents"][0]["url"])).status == 200


async def test_template_pdf_is_one_pdf_of_all_documents(api):
    template = await create(
        api, documents=[{"name": "a.pdf", "file": b64(pdf(2))}, {"name": "b.pdf", "file": b64(pdf(3))}]
    )
    reply = await api.get(f"/api/templates/{template['id']}/pdf")
    assert (reply.json["id"], reply.json["name"], reply.json["filename"]) == (template["id"], "NDA", "NDA.pdf")
    assert [d["filename"] for d in reply.json["documents"]] == ["a.pdf", "b.pdf"]
    merged = await fetch(api, reply.json["pdf_url"])
    assert len(PdfReader(io.BytesIO(merged.body)).pages) == 5


async def test_template_submissions_of_a_template_never_sent_is_an_empty_list(api):
    template = await create(api)
    reply = await api.get(f"/api/templates/{template['id']}/submissions")
    assert reply.json == {"data": [], "pagination": {"count": 0, "next": None, "prev": None}}
    assert (await api.get("/api/templates/99/submissions")).status == 404


async def test_a_document_url_is_downloaded_over_https(aiohttp_client, make_app, certificate, client_ssl, tmp_path):
    async def lease(request):
        return web.Response(body=pdf(3))

    document_server = web.Application()
    document_server.router.add_get("/files/lease.pdf", lease)
    runner, port = await serve_https(document_server, certificate, tmp_path)
    try:
        async with Downloader(max_bytes=10**7, allow_private=True, ssl_context=client_ssl) as downloader:
            api = Api(await aiohttp_client(make_app(downloader=downloader)))
            reply = await api.post(
                "/api/templates", json={"documents": [{"file": f"https://localhost:{port}/files/lease.pdf"}]}
            )
    finally:
        await runner.cleanup()
    assert reply.status == 201, reply.json
    assert reply.json["name"] == "lease" and reply.json["documents"][0]["filename"] == "lease.pdf"


async def test_a_document_url_on_a_private_address_is_refused(api):
    reply = await api.post("/api/templates", json={"documents": [{"file": "https://127.0.0.1:9/contract.pdf"}]})
    assert reply.status == 422
    assert reply.json["error"] == (
        "documents[0].file: The document URL points to a private or local network "
        "address; only public addresses are allowed"
    )


async def test_the_pdfs_own_form_fields_become_fields_of_the_first_role(api):
    reply = await api.post("/api/templates", json={"documents": [{"name": "form.pdf", "file": b64(form_pdf())}]})
    assert reply.status == 201, reply.json
    template = reply.json
    assert [role["name"] for role in template["submitters"]] == ["First Party"]
    fields = {field["name"]: field for field in template["fields"]}
    assert fields["full_name"]["type"] == "text" and fields["full_name"]["required"] is True
    assert fields["zip"]["type"] == "cells" and fields["birth_date"]["type"] == "date"
    assert fields["birth_date"]["preferences"] == {"format": "MM/DD/YYYY"}
    assert fields["signature"]["type"] == "signature" and fields["Buyer Initials"]["type"] == "initials"
    color = fields["color"]
    assert [option["value"] for option in color["options"]] == ["red", "green", "blue"]
    assert [area["option_uuid"] for area in color["areas"]] == [option["uuid"] for option in color["options"]]
    assert [area["page"] for area in fields["reference"]["areas"]] == [0, 1]
    assert "company" not in fields and "reset" not in fields
    assert {field["submitter_uuid"] for field in template["fields"]} == {template["submitters"][0]["uuid"]}


@pytest.mark.parametrize(
    "data,message",
    [
        (lambda: encrypted(pdf(), "secret"), "documents[0].file: The PDF is protected by a password"),
        (lambda: pdf()[:300], "documents[0].file: The PDF is damaged and can't be read"),
        (lambda: pages_pdf(), "documents[0].file: The PDF has no pages"),
        (
            lambda: pages_pdf(*["/MediaBox [0 0 612 792]"] * 301),
            "documents[0].file: The PDF has 301 pages; at most 300",
        ),
        (lambda: b"%PDF-1.7\n" + b"[" * 100_000 + b"\n%%EOF", "documents[0].file: The PDF"),
    ],
)
async def test_unusable_pdfs_are_422_naming_the_document(api, config, data, message):
    reply = await api.post("/api/templates", json={"documents": [{"file": b64(data())}]})
    assert reply.status == 422
    assert reply.json["error"].startswith(message)
    assert stored_files(config) == []


@SOFFICE
async def test_an_office_document_is_converted_to_pdf(api):
    document = docx.Document()
    document.add_paragraph("Service agreement between the parties")
    buffer = io.BytesIO()
    document.save(buffer)
    reply = await api.post(
        "/api/templates", json={"documents": [{"name": "terms.docx", "file": b64(buffer.getvalue())}]}
    )
    assert reply.status == 201, reply.json
    served = await fetch(api, reply.json["documents"][0]["url"])
    assert "Service agreement" in PdfReader(io.BytesIO(served.body)).pages[0].extract_text()
    assert reply.json["documents"][0]["filename"] == "terms.pdf"
