"""The console's templates over HTTP: the list of the current mode's templates (search, folder, archived
view, pages), uploading a document, archive, restore, clone, the field editor's page and its save, which
is `PUT /api/templates/{id}` by another door: the same result, the same refusals, nothing half-saved."""

from __future__ import annotations

import asyncio
import html
import io
import json
import re
from typing import Any

import pytest

from signsvc.accounts.accounts import Accounts
from signsvc.http.appkeys import BODY_BUDGET, TEMPLATES
from signsvc.infra import errors
from tests.support.app import LIVE_KEY, TEST_KEY, Api
from tests.support.console import Console, location, signed_in
from tests.support.documents import b64, pdf, png
from tests.support.samples import form_pdf

BROKEN_PDF = b"%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF"
MIB = 1024 * 1024
LIST = "/console/templates"
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
EXPIRED = (
    "Not saved: this page has expired (it was open too long, or you signed in or out in another tab). "
    "Reload the page to go on; changes since the last save are then lost."
)


def text(reply) -> str:
    return reply.body.decode()


def shown(reply) -> str:
    """The page's text as read: tags left out, entities decoded."""
    return html.unescape(re.sub(r"<[^>]+>", " ", text(reply)))


async def api_template(api: Api, name: str, *, folder: str | None = None, pages: int = 1) -> dict[str, Any]:
    reply = await api.post(
        "/api/templates",
        json={"name": name, "folder_name": folder, "documents": [{"name": name, "file": b64(pdf(pages))}]},
    )
    assert reply.status == 201, reply.json
    return reply.json


async def upload(console: Console, data: bytes, filename: str = "Lease.pdf", **form: Any) -> Any:
    file = io.BytesIO(data)
    file.name = filename
    return await console.post("/console/templates/new", {"file": file, **form})


def fields_body(template: dict[str, Any], *, x: float = 0.1, w: float = 0.3) -> dict[str, Any]:
    """Two roles, a text field for the first and a signature field for the second, as the editor sends them."""
    first = template["submitters"][0]
    document = template["documents"][0]["uuid"]
    second = {"name": "Tenant", "uuid": "5b0f5c5e-7a53-4d4b-9c1f-1d0a3c2c4e01"}
    return {
        "submitters": [first, second],
        "fields": [
            {
                "uuid": "0c3f2a8e-1b7d-4f43-8d2b-6c0d9e7f1a21",
                "submitter_uuid": first["uuid"],
                "name": "Landlord name",
                "type": "text",
                "required": True,
                "preferences": {},
                "areas": [{"x": x, "y": 0.2, "w": w, "h": 0.03, "attachment_uuid": document, "page": 0}],
            },
            {
                "uuid": "9e1d7c4b-2a6f-4c8e-b5d3-7f0a1e2c3b45",
                "submitter_uuid": second["uuid"],
                "name": "Tenant signature",
                "type": "signature",
                "required": True,
                "preferences": {},
                "areas": [{"x": 0.5, "y": 0.8, "w": 0.3, "h": 0.07, "attachment_uuid": document, "page": 0}],
            },
        ],
    }


def without_time(template: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in template.items() if key not in ("updated_at", "documents")}


async def test_the_list_shows_the_current_modes_templates_only(api):
    await api_template(api, "Live lease")
    await api_template(api.with_key(TEST_KEY), "Test lease")
    console = await signed_in(api)

    live = shown(await console.get("/console/templates"))
    assert "Live lease" in live and "Test lease" not in live
    await console.post("/console/mode", {"test_mode": "on", "next": "/console/templates"})
    test = shown(await console.get("/console/templates"))
    assert "Test lease" in test and "Live lease" not in test


async def test_the_list_shows_each_templates_folder_counts_author_and_times(api):
    template = await api_template(api, "Lease", folder="Housing")
    await api.put(f"/api/templates/{template['id']}", json=fields_body(template))
    page = shown(await (await signed_in(api)).get("/console/templates"))
    assert "Lease" in page and "Housing" in page and "Fields: 2 · Roles: 2" in page
    assert "Admin" in page and "2026-01-01 12:00 UTC" in page


async def test_each_action_in_the_list_names_its_template_to_a_screen_reader(api):
    await api_template(api, "Lease")
    await api_template(api, "NDA")
    console = await signed_in(api)
    named = re.findall(r'>([^<>]+)<span class="visually-hidden"> ([^<]+)</span>', text(await console.get(LIST)))
    assert sorted(named) == sorted(
        (action, name) for action in ("Send for signing", "Clone", "Archive") for name in ("Lease", "NDA")
    )
    await api.delete(f"/api/templates/{(await api_template(api, 'Old'))['id']}")
    named = re.findall(
        r'>([^<>]+)<span class="visually-hidden"> ([^<]+)</span>', text(await console.get(f"{LIST}?view=archived"))
    )
    assert named == [("Restore", "Old")]


async def test_search_finds_templates_by_name_and_the_folder_filter_by_folder(api):
    await api_template(api, "NDA Alpha", folder="Sales")
    await api_template(api, "Lease", folder="Housing")
    await api_template(api, "NDA Beta", folder="Housing")
    console = await signed_in(api)

    def names(page: str) -> set[str]:
        return {name for name in ("NDA Alpha", "Lease", "NDA Beta") if f">{name}</a>" in page}

    assert names(text(await console.get("/console/templates?q=nda"))) == {"NDA Alpha", "NDA Beta"}
    assert names(text(await console.get("/console/templates?folder=Housing"))) == {"Lease", "NDA Beta"}
    assert names(text(await console.get("/console/templates?q=nda&folder=Housing"))) == {"NDA Beta"}
    nothing = await console.get("/console/templates?q=contract")
    assert names(text(nothing)) == set() and "No template matches the search." in text(nothing)
    listing = text(await console.get("/console/templates?folder=Housing"))
    assert '<option value="Housing" selected>' in listing and '<option value="Sales">' in listing


def pager(page: str) -> dict[str, str]:
    """The list's page links by their text: {"Newest": href, "Older": href}."""
    nav = re.search(r'<nav class="pager".*?</nav>', page, re.S)
    return {
        name: html.unescape(href)
        for href, name in re.findall(r'<a href="([^"]+)"[^>]*>([^<]+)</a>', nav.group() if nav else "")
    }


async def test_the_list_comes_in_pages_of_twenty_newest_first_with_older_and_newest_links(api):
    for number in range(1, 23):
        await api_template(api, f"Form {number:02d}")
    console = await signed_in(api)
    first = text(await console.get("/console/templates"))
    assert "Form 22" in first and "Form 03" in first and "Form 02" not in first
    assert list(pager(first)) == ["Older"]
    second = text(await console.get(pager(first)["Older"]))
    assert "Form 02" in second and "Form 01" in second and "Form 03" not in second
    assert pager(second) == {"Newest": "/console/templates"}, "as every console list: no Newer link"


async def test_the_lists_page_links_keep_the_search_folder_and_view(api):
    for number in range(1, 23):
        await api_template(api, f"Lease {number:02d}", folder="Housing")
        await api.delete(f"/api/templates/{(await api_template(api, f'Other {number}'))['id']}")
    console = await signed_in(api)
    first = text(await console.get("/console/templates?q=lease&folder=Housing"))
    older = pager(first)["Older"]
    assert older.startswith("/console/templates?q=lease&folder=Housing&after=")
    second = text(await console.get(older))
    assert "Lease 02" in second and "Lease 03" not in second and "Other" not in second
    assert pager(second) == {"Newest": "/console/templates?q=lease&folder=Housing"}
    archived = text(await console.get("/console/templates?view=archived"))
    assert pager(archived)["Older"].startswith("/console/templates?view=archived&after=")


@pytest.mark.parametrize("after", ["abc", "-5", "0", "1.5", "1e3", "9" * 30, "%00", "%D9%A1%D9%A2", "", "+7"])
async def test_a_page_link_edited_by_hand_shows_the_first_page(api, after):
    await api_template(api, "Lease")
    console = await signed_in(api)
    page = await console.get(f"/console/templates?after={after}&before=1")
    assert page.status == 200 and ">Lease</a>" in text(page) and pager(text(page)) == {}


async def test_a_page_beyond_the_oldest_template_says_so_and_links_the_newest(api):
    template = await api_template(api, "Lease")
    page = text(await (await signed_in(api)).get(f"/console/templates?after={template['id']}"))
    assert "No older templates." in page and ">Lease</a>" not in page
    assert pager(page) == {"Newest": "/console/templates"}


async def test_uploading_a_pdf_without_fields_makes_a_template_without_fields_and_opens_the_editor(api):
    console = await signed_in(api)
    await console.get("/console/templates/new")
    reply = await upload(console, pdf(2), "Lease.pdf", folder="Housing")

    [template] = (await api.get("/api/templates")).json["data"]
    assert reply.status == 303 and location(reply) == f"/console/templates/{template['id']}?done=template_uploaded"
    assert (template["name"], template["folder_name"], template["fields"]) == ("Lease", "Housing", [])
    assert [role["name"] for role in template["submitters"]] == ["First Party"]
    editor = await console.get(location(reply))
    assert editor.status == 200 and "The document is uploaded." in text(editor)
    assert text(editor).count('<figure class="page"') == 2 and "/file/" in text(editor)


async def test_an_upload_named_on_the_form_takes_that_name(api):
    console = await signed_in(api)
    await console.get("/console/templates/new")
    await upload(console, png(), "scan.png", name="Signed scan")
    [template] = (await api.get("/api/templates")).json["data"]
    assert template["name"] == "Signed scan" and template["folder_name"] == "Default"


async def test_the_upload_forms_script_gets_the_editors_address_as_json(api):
    console = await signed_in(api)
    await console.get("/console/templates/new")
    file = io.BytesIO(pdf())
    file.name = "Lease.pdf"
    reply = await console.request(
        "POST",
        "/console/templates/new",
        data={"file": file, "csrf": console.csrf},
        headers={"Accept": "application/json"},
    )
    [template] = (await api.get("/api/templates")).json["data"]
    assert reply.status == 201
    editor = f"/console/templates/{template['id']}?done=template_uploaded"
    assert reply.json == {"id": template["id"], "location": editor}


async def test_a_broken_file_is_refused_with_the_apis_message_and_nothing_is_saved(api):
    refused = await api.post("/api/templates", json={"documents": [{"name": "broken", "file": b64(BROKEN_PDF)}]})
    assert refused.status == 422
    console = await signed_in(api)
    await console.get("/console/templates/new")

    reply = await upload(console, BROKEN_PDF, "broken.pdf", name="Broken", folder="Housing")
    assert reply.status == 422
    assert refused.json["error"] in shown(reply) and 'role="alert"' in text(reply)
    assert 'value="Broken"' in text(reply) and 'value="Housing"' in text(reply)
    file = io.BytesIO(BROKEN_PDF)
    file.name = "broken.pdf"
    scripted = await console.request(
        "POST",
        "/console/templates/new",
        data={"file": file, "csrf": console.csrf},
        headers={"Accept": "application/json"},
    )
    assert (scripted.status, scripted.json) == (422, {"error": refused.json["error"]})
    assert (await api.get("/api/templates")).json["data"] == []


async def test_a_file_above_the_services_body_limit_is_refused_on_the_form(aiohttp_client, make_app):
    small = Api(await aiohttp_client(make_app(max_body_bytes=64 * 1024)))
    console = await signed_in(small)
    await console.get("/console/templates/new")
    reply = await upload(console, pdf() + b"%" * 100_000)
    assert reply.status == 422 and "The file is too large: the limit is 0.0625 MB." in text(reply)
    assert (await small.get("/api/templates")).json["data"] == []


async def test_an_upload_without_a_file_asks_for_one(api):
    console = await signed_in(api)
    await console.get("/console/templates/new")
    reply = await console.post("/console/templates/new", {"name": "Lease"})
    assert reply.status == 422 and "Please choose a file to upload." in text(reply)
    assert (await api.get("/api/templates")).json["data"] == []


def comparable(template: dict[str, Any]) -> dict[str, Any]:
    """What a template is made of, its uuids numbered in the order they come: two templates made of the same
    file compare equal."""
    made = {
        key: template[key]
        for key in ("name", "folder_name", "source", "external_id", "shared_link", "schema", "fields", "submitters")
    }
    made["documents"] = [document["filename"] for document in template["documents"]]
    numbers: dict[str, str] = {}

    def numbered(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: numbered(item) for key, item in value.items()}
        if isinstance(value, list):
            return [numbered(item) for item in value]
        if isinstance(value, str) and UUID.fullmatch(value):
            return numbers.setdefault(value, f"uuid-{len(numbers)}")
        return value

    return numbered(made)


async def test_the_uploads_bytes_make_the_template_post_api_templates_makes_of_them_as_base64(api, db, clock):
    """`Templates.upload`, behind the upload form, takes the file's bytes (no base64 text made of them and
    decoded again): the same template as the API's, the PDF's own form fields its fields, the same refusals."""
    by_api = await api.post(
        "/api/templates",
        json={"folder_name": "Forms", "documents": [{"name": "Tax form.pdf", "file": b64(form_pdf())}]},
    )
    principal = await Accounts(db, clock).find_principal(LIVE_KEY)
    uploaded = await api.app[TEMPLATES].upload(principal, form_pdf(), "Tax form.pdf", folder_name="Forms")
    by_upload = (await api.get(f"/api/templates/{uploaded.id}")).json
    assert by_upload["name"] == "Tax form" and len(by_upload["fields"]) > 5
    assert comparable(by_upload) == comparable(by_api.json)

    refused = await api.post("/api/templates", json={"documents": [{"name": "broken", "file": b64(BROKEN_PDF)}]})
    with pytest.raises(errors.Invalid) as upload_refused:
        await api.app[TEMPLATES].upload(principal, BROKEN_PDF, "broken.pdf")
    assert upload_refused.value.message == refused.json["error"]
    assert len((await api.get("/api/templates")).json["data"]) == 2


async def hold_the_body_budget(api: Api, size: int, released: asyncio.Event) -> asyncio.Task:
    """An API request whose body of `size` bytes arrives when `released` is set: it holds that much of the
    body budget meanwhile."""
    budget = api.app[BODY_BUDGET]

    async def held_open():
        yield b'{"name": "' + b"x" * MIB
        await released.wait()
        yield b"x" * (size - MIB - 12) + b'"}'

    request = asyncio.create_task(
        api.client.post(
            "/api/templates",
            data=held_open(),
            headers={"Content-Length": str(size), "Content-Type": "application/json", "X-Auth-Token": api.key},
        )
    )
    for _ in range(500):  # until the server has the request's headers and holds its body's length
        if budget.held:
            break
        await asyncio.sleep(0.01)
    assert budget.held == size
    return request


async def test_an_upload_counts_against_the_body_budget_as_the_apis_large_bodies_do(make_app, aiohttp_client):
    api = Api(await aiohttp_client(make_app(max_body_bytes=8 * MIB, body_budget_bytes=10 * MIB)))
    console = await signed_in(api)
    await console.get("/console/templates/new")
    released = asyncio.Event()
    held = await hold_the_body_budget(api, 6 * MIB, released)
    big = pdf() + b"%" * (5 * MIB)

    try:
        busy = await upload(console, big, "Lease.pdf")
        assert (await api.get("/api/templates")).json["data"] == []
    finally:
        released.set()
        (await held).release()
    assert (busy.status, busy.headers.get("Retry-After")) == (503, "2")
    assert "The service is busy" in busy.body.decode(), "a page for a form posted without script"
    assert (await upload(console, big, "Lease.pdf")).status == 303
    assert api.app[BODY_BUDGET].held == 0
    assert [t["name"] for t in (await api.get("/api/templates")).json["data"]] == ["Lease"]


async def test_a_large_save_of_the_field_editor_counts_against_the_body_budget(make_app, aiohttp_client):
    api = Api(await aiohttp_client(make_app(max_body_bytes=8 * MIB, body_budget_bytes=10 * MIB)))
    template = await api_template(api, "Lease")
    body = fields_body(template)
    console = await signed_in(api)
    await console.get(f"/console/templates/{template['id']}")
    released = asyncio.Event()
    held = await hold_the_body_budget(api, 6 * MIB, released)

    async def save() -> Any:  # the body as a stream: aiohttp warns of large bodies sent as bytes
        return await console.request(
            "POST",
            f"/console/templates/{template['id']}/fields",
            data=io.BytesIO((json.dumps(body) + " " * (5 * MIB)).encode()),  # large, yet small fields
            headers={"Content-Type": "application/json", "X-CSRF-Token": console.csrf},
        )

    try:
        busy = await save()
        assert (await api.get(f"/api/templates/{template['id']}")).json["fields"] == []
    finally:
        released.set()
        (await held).release()
    assert (busy.status, busy.headers.get("Retry-After")) == (503, "2") and "error" in busy.json
    assert (await save()).status == 200


async def test_an_upload_without_the_csrf_token_is_refused(api):
    console = await signed_in(api)
    file = io.BytesIO(pdf())
    file.name = "Lease.pdf"
    reply = await console.post("/console/templates/new", {"file": file}, csrf=False)
    assert reply.status == 403 and (await api.get("/api/templates")).json["data"] == []


async def test_an_upload_in_test_mode_makes_a_template_of_the_test_account(api):
    console = await signed_in(api)
    await console.post("/console/mode", {"test_mode": "on", "next": "/console/templates/new"})
    await console.get("/console/templates/new")
    assert (await upload(console, pdf())).status == 303
    assert (await api.get("/api/templates")).json["data"] == []
    assert [t["name"] for t in (await api.with_key(TEST_KEY).get("/api/templates")).json["data"]] == ["Lease"]


async def test_archiving_asks_first_then_shows_in_the_api_and_in_the_archived_view(api):
    template = await api_template(api, "Lease")
    console = await signed_in(api)
    question = await console.get(f"/console/templates/{template['id']}/archive")
    assert question.status == 200 and "Archive the template?" in shown(question) and "Lease" in shown(question)
    assert (await api.get(f"/api/templates/{template['id']}")).json["archived_at"] is None

    reply = await console.post(f"/console/templates/{template['id']}/archive")
    assert (reply.status, location(reply)) == (303, "/console/templates?done=template_archived")
    assert (await api.get(f"/api/templates/{template['id']}")).json["archived_at"] is not None
    assert ">Lease</a>" not in text(await console.get("/console/templates?done=template_archived"))
    archived = text(await console.get("/console/templates?view=archived"))
    assert ">Lease</a>" in archived and f"/console/templates/{template['id']}/restore" in archived


async def test_restoring_an_archived_template_shows_in_the_api(api):
    template = await api_template(api, "Lease")
    await api.delete(f"/api/templates/{template['id']}")
    console = await signed_in(api)
    await console.get("/console/templates?view=archived")
    reply = await console.post(f"/console/templates/{template['id']}/restore")
    assert (reply.status, location(reply)) == (303, "/console/templates?view=archived&done=template_restored")
    assert (await api.get(f"/api/templates/{template['id']}")).json["archived_at"] is None
    assert ">Lease</a>" in text(await console.get("/console/templates"))


async def test_cloning_makes_a_copy_the_api_lists_and_opens_it_in_the_editor(api):
    template = await api_template(api, "Lease", folder="Housing")
    await api.put(f"/api/templates/{template['id']}", json=fields_body(template))
    console = await signed_in(api)
    await console.get("/console/templates")
    reply = await console.post(f"/console/templates/{template['id']}/clone")

    listed = (await api.get("/api/templates")).json["data"]
    assert [t["name"] for t in listed] == ["Lease (Clone)", "Lease"]
    copy = listed[0]
    assert (reply.status, location(reply)) == (303, f"/console/templates/{copy['id']}?done=template_cloned")
    assert copy["folder_name"] == "Housing"
    assert [f["name"] for f in copy["fields"]] == ["Landlord name", "Tenant signature"]


async def test_the_editor_page_without_script_shows_the_pages_and_the_fields_read_only(api):
    template = await api_template(api, "Lease", pages=2)
    await api.put(f"/api/templates/{template['id']}", json=fields_body(template))
    page = await (await signed_in(api)).get(f"/console/templates/{template['id']}")
    body = text(page)
    assert page.status == 200 and "Placing fields needs JavaScript." in body
    assert body.count('<figure class="page"') == 2 and body.count("<rect ") == 2
    assert "Landlord name" in body and "Tenant signature" in body and "Tenant" in body
    assert "script-src 'self'" in page.headers["Content-Security-Policy"] and " style=" not in body
    assert f'href="/console/templates/{template["id"]}/send"' in body


async def test_saving_fields_through_the_console_gives_what_put_api_templates_gives(api):
    template = await api_template(api, "Lease")
    console = await signed_in(api)
    await console.get(f"/console/templates/{template['id']}")
    body = fields_body(template)

    reply = await console.post_json(f"/console/templates/{template['id']}/fields", body)
    assert reply.status == 200, reply.body
    saved = (await api.get(f"/api/templates/{template['id']}")).json
    assert reply.json["fields"] == saved["fields"] and reply.json["submitters"] == saved["submitters"]
    assert [(f["name"], f["areas"][0]["x"]) for f in saved["fields"]] == [
        ("Landlord name", 0.1),
        ("Tenant signature", 0.5),
    ]
    assert [r["name"] for r in saved["submitters"]] == ["First Party", "Tenant"]

    assert (await api.put(f"/api/templates/{template['id']}", json=body)).status == 200
    assert without_time((await api.get(f"/api/templates/{template['id']}")).json) == without_time(saved)


async def test_an_off_page_box_is_refused_with_the_apis_message_and_nothing_is_saved(api):
    template = await api_template(api, "Lease")
    body = fields_body(template, x=0.9, w=0.2)
    refused = await api.put(f"/api/templates/{template['id']}", json=body)
    assert refused.status == 422 and "must lie inside the page" in refused.json["error"]
    console = await signed_in(api)
    await console.get(f"/console/templates/{template['id']}")

    reply = await console.post_json(f"/console/templates/{template['id']}/fields", body)
    assert (reply.status, reply.json) == (422, refused.json)
    after = (await api.get(f"/api/templates/{template['id']}")).json
    assert after["fields"] == [] and [r["name"] for r in after["submitters"]] == ["First Party"]


async def test_more_fields_than_a_template_may_have_are_refused_with_the_apis_message(api):
    template = await api_template(api, "Lease")
    one = fields_body(template)["fields"][0]
    body = {"fields": [{**one, "uuid": f"00000000-0000-4000-8000-{n:012d}"} for n in range(1001)]}
    refused = await api.put(f"/api/templates/{template['id']}", json=body)
    console = await signed_in(api)
    await console.get(f"/console/templates/{template['id']}")
    reply = await console.post_json(f"/console/templates/{template['id']}/fields", body)
    assert (reply.status, reply.json) == (422, refused.json) and "at most 1000" in reply.json["error"]
    assert (await api.get(f"/api/templates/{template['id']}")).json["fields"] == []


async def test_five_hundred_fields_on_one_page_save(api):
    template = await api_template(api, "Lease")
    one = fields_body(template)["fields"][0]
    fields = [
        {
            **one,
            "uuid": f"00000000-0000-4000-8000-{n:012d}",
            "name": f"Box {n}",
            "areas": [{**one["areas"][0], "x": (n % 20) * 0.05, "y": (n // 20) * 0.04, "w": 0.04, "h": 0.03}],
        }
        for n in range(500)
    ]
    console = await signed_in(api)
    await console.get(f"/console/templates/{template['id']}")
    reply = await console.post_json(f"/console/templates/{template['id']}/fields", {"fields": fields})
    assert reply.status == 200 and len((await api.get(f"/api/templates/{template['id']}")).json["fields"]) == 500
    assert (await console.get(f"/console/templates/{template['id']}")).status == 200


async def test_a_json_save_without_the_csrf_token_is_refused_in_json_the_editor_shows(api):
    template = await api_template(api, "Lease")
    console = await signed_in(api)
    reply = await console.request("POST", f"/console/templates/{template['id']}/fields", json=fields_body(template))
    assert (reply.status, reply.headers["Content-Type"]) == (403, "application/json; charset=utf-8")
    assert reply.json == {"error": EXPIRED}
    wrong = await console.request(
        "POST",
        f"/console/templates/{template['id']}/fields",
        json=fields_body(template),
        headers={"X-CSRF-Token": "not-the-token"},
    )
    assert (wrong.status, wrong.json) == (403, {"error": EXPIRED})
    german = await console.request(
        "POST",
        f"/console/templates/{template['id']}/fields",
        json=fields_body(template),
        headers={"Accept-Language": "de"},
    )
    assert german.status == 403 and german.json["error"].startswith("Nicht gespeichert: Diese Seite ist abgelaufen")
    assert (await api.get(f"/api/templates/{template['id']}")).json["fields"] == []


async def test_a_save_above_the_services_body_limit_is_refused_as_put_api_templates_refuses_it(
    make_app, aiohttp_client
):
    small = Api(await aiohttp_client(make_app(max_body_bytes=64 * 1024)))
    template = await api_template(small, "Lease")
    body = fields_body(template)
    body["fields"][0]["description"] = "x" * 70_000
    refused = await small.put(f"/api/templates/{template['id']}", json=body)
    console = await signed_in(small)
    await console.get(f"/console/templates/{template['id']}")
    reply = await console.post_json(f"/console/templates/{template['id']}/fields", body)
    assert (
        (reply.status, reply.json)
        == (413, refused.json)
        == (413, {"error": "Request body is too large: the limit is 65536 bytes"})
    )
    assert (await small.get(f"/api/templates/{template['id']}")).json["fields"] == []


async def test_a_json_save_without_a_session_is_refused(api):
    template = await api_template(api, "Lease")
    reply = await Console(api).request(
        "POST", f"/console/templates/{template['id']}/fields", json=fields_body(template)
    )
    assert reply.status == 401 and (await api.get(f"/api/templates/{template['id']}")).json["fields"] == []


async def test_another_accounts_template_is_the_not_found_page(api, other_account):
    theirs = await api_template(api.with_key(other_account.live), "Their lease")
    console = await signed_in(api)
    await console.get("/console/templates")
    for path in ("", "/archive"):
        page = await console.get(f"/console/templates/{theirs['id']}{path}")
        assert page.status == 404 and "Page not found" in text(page) and "Their lease" not in text(page)
    for path in ("/archive", "/restore", "/clone", ""):
        assert (await console.post(f"/console/templates/{theirs['id']}{path}", {"name": "Mine"})).status == 404
    saved = await console.post_json(f"/console/templates/{theirs['id']}/fields", fields_body(theirs))
    assert saved.status == 404
    other = api.with_key(other_account.live)
    after = (await other.get(f"/api/templates/{theirs['id']}")).json
    assert (after["name"], after["archived_at"], after["fields"]) == ("Their lease", None, [])
    assert len((await other.get("/api/templates")).json["data"]) == 1


async def test_a_live_template_in_test_mode_is_the_not_found_page(api):
    template = await api_template(api, "Lease")
    console = await signed_in(api)
    await console.post("/console/mode", {"test_mode": "on", "next": "/console/templates"})
    assert (await console.get(f"/console/templates/{template['id']}")).status == 404


async def test_renaming_and_moving_a_template_to_a_folder(api):
    template = await api_template(api, "Lease")
    console = await signed_in(api)
    await console.get(f"/console/templates/{template['id']}")
    reply = await console.post(f"/console/templates/{template['id']}", {"name": "Flat lease", "folder": "Housing"})
    assert (reply.status, location(reply)) == (303, f"/console/templates/{template['id']}?done=template_renamed")
    after = (await api.get(f"/api/templates/{template['id']}")).json
    assert (after["name"], after["folder_name"]) == ("Flat lease", "Housing")

    refused = await console.post(f"/console/templates/{template['id']}", {"name": " ", "folder": "Other"})
    assert refused.status == 422 and "name must not be empty" in text(refused)
    assert re.search(
        r'<input id="template-name"[^>]* aria-describedby="template-name-problem" aria-invalid="true"', text(refused)
    ), "the message beside the name's input"
    after = (await api.get(f"/api/templates/{template['id']}")).json
    assert (after["name"], after["folder_name"]) == ("Flat lease", "Housing")


async def test_the_folder_filter_offers_the_folders_of_the_current_modes_templates(api):
    await api_template(api, "Lease", folder="Housing")
    await api_template(api.with_key(TEST_KEY), "Test", folder="Testing")
    page = text(await (await signed_in(api)).get("/console/templates"))
    assert '<option value="Housing">' in page and "Testing" not in page


async def test_clearing_the_folder_moves_the_template_to_the_default_folder_as_the_api_does(api):
    template = await api_template(api, "Lease", folder="Housing")
    console = await signed_in(api)
    await console.get(f"/console/templates/{template['id']}")
    reply = await console.post(f"/console/templates/{template['id']}", {"name": "Lease", "folder": " "})
    assert reply.status == 303
    assert (await api.get(f"/api/templates/{template['id']}")).json["folder_name"] == "Default"

    other = await api_template(api, "Other", folder="Housing")
    assert (await api.put(f"/api/templates/{other['id']}", json={"folder_name": ""})).status == 200
    assert (await api.get(f"/api/templates/{other['id']}")).json["folder_name"] == "Default"
    listing = text(await console.get("/console/templates"))
    assert '<option value="Default">' in listing and '<option value=""></option>' not in listing


async def test_the_folders_are_offered_in_dictionary_order_on_every_database(api):
    for folder in ("banana", "Apple", "Cherry", "Äpfel", "apple"):
        await api_template(api, f"In {folder}", folder=folder)
    listing = text(await (await signed_in(api)).get("/console/templates"))
    offered = re.findall(r'<option value="([^"]+)">', listing)
    assert offered == ["Äpfel", "Apple", "apple", "banana", "Cherry"]
