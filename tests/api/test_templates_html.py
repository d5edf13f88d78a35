"""POST /templates/html: HTML rendered to a template's document, its field tags fields at the boxes drawn for them."""

from __future__ import annotations

import asyncio
import gc
import io
from urllib.parse import urlsplit

import pypdfium2 as pdfium
import pytest
from aiohttp import web
from docuseal import DocusealApi
from pypdf import PdfReader

from signsvc.infra.downloads import Downloader
from signsvc.templates import html_documents
from tests.support.app import LIVE_KEY, Api
from tests.support.https import serve_https
from tests.support.pdf_text import page_texts
from tests.support.results import fetch
from tests.support.signing import act, event_types, send, submission
from tests.support.system import PANGO

pytestmark = PANGO

SIGNER = {"email": "ann@example.com", "name": "Ann"}


async def create(api, status: int = 201, **body):
    reply = await api.post("/api/templates/html", json=body)
    assert reply.status == status, reply.json
    return reply.json


async def document_pdf(api, template) -> bytes:
    return await fetch(api, template["documents"][0]["url"])


def field(template, name: str):
    return next(found for found in template["fields"] if found["name"] == name)


async def test_a_tag_after_a_page_break_is_a_field_on_the_second_page_where_its_box_was_drawn(api):
    # Letter pages (8.5 x 11 in) with margins of 0.5 in: the box starts 0.5 + 2 in from the top of page 1 (0-based).
    html = (
        "<style>body { margin: 0 }</style><p>Page one</p>"
        '<div style="break-before: page; padding-top: 2in; padding-left: 1in">'
        '<text-field name="Name" style="width: 2in; height: 0.5in; background: black"></text-field></div>'
    )
    template = await create(api, name="Lease", html=html)
    area = field(template, "Name")["areas"][0]
    assert area["page"] == 1 and area["attachment_uuid"] == template["documents"][0]["uuid"]
    expected = {"x": 1.5 / 8.5, "y": 2.5 / 11, "w": 2 / 8.5, "h": 0.5 / 11}
    assert {key: area[key] for key in expected} == pytest.approx(expected, abs=1e-6)
    # The area is where the PDF shows the box: black inside, white just outside.
    page = pdfium.PdfDocument(await document_pdf(api, template))[1].render(scale=1).to_pil().convert("L")
    width, height = page.size
    inside = ((area["x"] + area["w"] / 2) * width, (area["y"] + area["h"] / 2) * height)
    before = ((area["x"] - 0.01) * width, inside[1])
    assert page.getpixel(inside) < 50 and page.getpixel(before) > 200


async def test_a_tag_without_a_size_has_its_tags_default_size_and_draws_nothing_of_its_own(api):
    template = await create(
        api, html='<p>Sign: <signature-field name="Signature">hidden text</signature-field> <b>after</b></p>'
    )
    area = field(template, "Signature")["areas"][0]
    assert (area["w"], area["h"]) == pytest.approx((160 / 96 / 8.5, 60 / 96 / 11))
    text = page_texts(await document_pdf(api, template))[0]
    assert "Sign:" in text and "after" in text and "hidden text" not in text


async def test_same_name_radio_tags_are_one_field_with_an_option_and_an_area_each(api):
    html = (
        '<p><radio-field name="Plan" role="Customer" option="Basic"></radio-field> Basic</p>'
        '<p><radio-field name="Plan" role="Customer" option="Pro"></radio-field> Pro</p>'
        '<text-field name="Company" role="Customer" condition="Plan:Pro"></text-field>'
    )
    template = await create(api, html=html)
    assert [role["name"] for role in template["submitters"]] == ["Customer"]
    plan = field(template, "Plan")
    assert plan["type"] == "radio" and [option["value"] for option in plan["options"]] == ["Basic", "Pro"]
    assert [area["option_uuid"] for area in plan["areas"]] == [option["uuid"] for option in plan["options"]]
    first, second = plan["areas"]
    assert second["y"] > first["y"] + first["h"] and first["x"] == pytest.approx(second["x"])
    company = field(template, "Company")
    pro = plan["options"][1]["uuid"]
    assert company["conditions"] == [{"field_uuid": plan["uuid"], "value": pro, "action": "equal"}]


async def test_tag_attributes_become_the_fields_settings(api):
    html = (
        '<date-field name="Start" role="Tenant" format="DD/MM/YYYY" required="false" readonly></date-field>'
        '<select-field name="Department" options="Engineering,Sales" default="Sales"></select-field>'
        '<multi-select-field name="Extras" options="Parking,Storage"></multi-select-field>'
        '<checkbox-field name="Agree" data-note="kept out" class="box"></checkbox-field>'
        '<text-field name="Hidden ID" style="display: none"></text-field>'
    )
    template = await create(api, html=html)
    start = field(template, "Start")
    assert (start["type"], start["required"], start["readonly"]) == ("date", False, True)
    assert start["preferences"] == {"format": "DD/MM/YYYY"}
    department = field(template, "Department")
    assert [o["value"] for o in department["options"]] == ["Engineering", "Sales"]
    assert department["default_value"] == "Sales"
    assert field(template, "Extras")["type"] == "multiple" and field(template, "Agree")["type"] == "checkbox"
    assert field(template, "Hidden ID")["areas"] == []
    # Tags without a role belong to the first role.
    assert [role["name"] for role in template["submitters"]] == ["Tenant"]


async def test_header_and_footer_are_on_every_page_with_the_page_number_and_count(api):
    template = await create(
        api,
        html='<p>One</p><p style="break-before: page">Two</p>',
        html_header='<div class="top">ACME Lease</div>',
        html_footer=(
            '<p>Page <span class="pageNumber"></span> of <span class="totalPages"></span> '
            '<initials-field name="Initials"></initials-field></p>'
        ),
    )
    texts = page_texts(await document_pdf(api, template))
    assert len(texts) == 2
    for number, text in enumerate(texts, start=1):
        assert "ACME Lease" in text and f"Page {number} of 2" in text
    # A tag in the footer is drawn on every page, in the bottom margin.
    areas = field(template, "Initials")["areas"]
    assert [area["page"] for area in areas] == [0, 1] and all(area["y"] > 10.25 / 11 for area in areas)


@pytest.mark.parametrize(("size", "points"), [(None, (612, 792)), ("A4", (595.28, 841.89)), ("Ledger", (1224, 792))])
async def test_the_page_size_is_letter_unless_named(api, size, points):
    body = {"html": "<p>Hello</p>"} | ({"size": size} if size else {})
    template = await create(api, **body)
    box = PdfReader(io.BytesIO(await document_pdf(api, template))).pages[0].mediabox
    assert (float(box.width), float(box.height)) == pytest.approx(points, abs=0.01)


async def test_several_documents_each_with_their_own_tags_and_size(api):
    template = await create(
        api,
        name="Pack",
        size="A5",
        documents=[
            {"name": "Terms", "html": '<text-field name="Name"></text-field>'},
            {"name": "Annex", "html": '<signature-field name="Signature"></signature-field>', "size": "A4"},
        ],
    )
    assert template["name"] == "Pack" and [d["name"] for d in template["schema"]] == ["Terms", "Annex"]
    terms, annex = (d["uuid"] for d in template["documents"])
    assert field(template, "Name")["areas"][0]["attachment_uuid"] == terms
    assert field(template, "Signature")["areas"][0]["attachment_uuid"] == annex
    sizes = []
    for document in template["documents"]:
        box = PdfReader(io.BytesIO(await fetch(api, document["url"]))).pages[0].mediabox
        sizes.append(round(float(box.width)))
    assert sizes == [420, 595]


async def test_an_external_id_of_the_account_updates_that_template(api, db):
    first = await create(api, name="NDA", external_id="nda-v1", folder_name="Legal", html=_nda("Tenant"))
    second = await create(
        api, 200, external_id="nda-v1", html=_nda("Tenant") + '<text-field name="Company" role="Landlord"></text-field>'
    )
    assert second["id"] == first["id"] and (second["name"], second["folder_name"]) == ("NDA", "Legal")
    assert second["documents"][0]["uuid"] != first["documents"][0]["uuid"]
    assert [f["name"] for f in second["fields"]] == ["Full Name", "Signature", "Company"]
    # The role of the same name keeps its uuid.
    assert second["submitters"][0] == first["submitters"][0]
    assert [role["name"] for role in second["submitters"]] == ["Tenant", "Landlord"]
    assert (await fetch(api, second["documents"][0]["url"]))[:4] == b"%PDF"
    earlier = urlsplit(first["documents"][0]["url"])
    assert (await api.with_key(None).get(f"{earlier.path}?{earlier.query}")).status == 404  # its file forgotten
    assert await event_types(db, "template", first["id"]) == ["template.created", "template.updated"]
    listed = (await api.get("/api/templates?external_id=nda-v1")).json["data"]
    assert [template["id"] for template in listed] == [first["id"]]


async def test_an_external_id_update_resets_the_variables_schema_to_the_html_documents_none(api):
    first = await create(api, name="NDA", external_id="nda-v1", html=_nda("Tenant"))
    schema = {"variables_schema": {"tenant_iban": {"type": "string", "required": True}}}
    assert (await api.put(f"/api/templates/{first['id']}", json=schema)).status == 200
    second = await create(api, 200, external_id="nda-v1", html=_nda("Tenant"))
    assert second["variables_schema"] == {}
    body = {"template_id": first["id"], "submitters": [{"role": "Tenant", "email": "tia@example.com"}]}
    assert (await api.post("/api/submissions", json=body)).status == 200, "no required variable left behind"


async def test_another_accounts_external_id_is_not_touched(api, other_account):
    theirs = await create(Api(api.client, other_account.live), name="Theirs", external_id="shared-id", html=_nda("A"))
    mine = await create(api, external_id="shared-id", html=_nda("B"))
    assert mine["id"] != theirs["id"]
    still = await Api(api.client, other_account.live).get(f"/api/templates/{theirs['id']}")
    assert still.json["name"] == "Theirs" and still.json["documents"] == theirs["documents"]


async def test_local_files_and_private_addresses_are_never_fetched(aiohttp_client, make_app, tmp_path):
    hits: list[str] = []

    async def record(request: web.Request) -> web.Response:
        hits.append(request.path)
        return web.Response(body=b"p { color: red }", content_type="text/css")

    server = web.Application()
    server.router.add_get("/{name}", record)
    runner = web.AppRunner(server)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    secret = tmp_path / "secret.css"
    secret.write_text("text-field { width: 500px }")
    html = (
        f'<link rel="stylesheet" href="http://127.0.0.1:{port}/plain.css">'
        f'<link rel="stylesheet" href="https://127.0.0.1:{port}/private.css">'
        f'<link rel="stylesheet" href="{secret.as_uri()}">'
        f'<img src="http://127.0.0.1:{port}/image.png"><img src="file:///etc/hostname">'
        '<p style="background: url(/relative.png)"><text-field name="Name"></text-field></p>'
    )
    try:
        api = Api(await aiohttp_client(make_app()))
        template = await create(api, html=html)
    finally:
        await runner.cleanup()
    assert hits == []
    assert field(template, "Name")["areas"][0]["w"] == pytest.approx(160 / 96 / 8.5)


async def test_https_resources_are_downloaded_and_used(aiohttp_client, make_app, certificate, client_ssl, tmp_path):
    served: list[str] = []

    async def stylesheet(request: web.Request) -> web.Response:
        served.append(request.path)
        css = {"/main.css": '@import "more.css";', "/more.css": "text-field { width: 4in; height: 1in }"}
        return web.Response(body=css[request.path].encode(), content_type="text/css")

    server = web.Application()
    server.router.add_get("/{name}.css", stylesheet)
    runner, port = await serve_https(server, certificate, tmp_path)
    try:
        async with Downloader(max_bytes=10**6, allow_private=True, ssl_context=client_ssl) as downloader:
            api = Api(await aiohttp_client(make_app(downloader=downloader)))
            html = (
                f'<link rel="stylesheet" href="https://localhost:{port}/main.css"><text-field name="Name"></text-field>'
            )
            template = await create(api, html=html)
    finally:
        await runner.cleanup()
    assert served == ["/main.css", "/more.css"]
    area = field(template, "Name")["areas"][0]
    assert (area["w"], area["h"]) == pytest.approx((4 / 8.5, 1 / 11))


async def test_more_pages_than_the_bound_is_a_422(api):
    html = '<p style="break-after: page">page</p>' * 101
    reply = await api.post("/api/templates/html", json={"html": html})
    assert (reply.status, reply.json) == (
        422,
        {"error": "html: The HTML makes more than 100 pages: a document has at most 100"},
    )


async def test_a_condition_on_no_field_is_a_422_quoting_its_tag(api):
    html = '<text-field name="Company" condition="Plan:Pro"></text-field>'
    reply = await api.post("/api/templates/html", json={"html": html})
    assert reply.status == 422 and reply.json["error"].endswith(f"(tag {html[:-13]})"), reply.json


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ({}, "html is required: the HTML of the document, or documents[] with an html each"),
        ({"html": "  "}, "html is required: the HTML of the document, a non-empty string"),
        ({"html": "<p>x</p>", "documents": [{"html": "<p>y</p>"}]}, "documents must be left out when html is given"),
        ({"documents": [{"name": "A"}]}, "documents[0].html is required: the HTML of the document, a non-empty string"),
        (
            {"html": "<p>x</p>", "size": "B5"},
            "size must be one of: Letter, Legal, Tabloid, Ledger, A0, A1, A2, A3, A4, A5, A6",
        ),
        (
            {"size": "B5", "documents": [{"html": "<p>x</p>", "size": "A4"}]},
            "size must be one of: Letter, Legal, Tabloid, Ledger, A0, A1, A2, A3, A4, A5, A6",
        ),
        (
            {"documents": [{"html": "<p>x</p>", "size": "a4"}]},
            "documents[0].size must be one of: Letter, Legal, Tabloid, Ledger, A0, A1, A2, A3, A4, A5, A6",
        ),
        ({"html": "<p>x</p>", "html_footer": 3}, "html_footer must be a String"),
        (
            {"html": '<payment-field name="Fee"></payment-field>'},
            'html: tag <payment-field name="Fee">: payment-field is not a field tag: use text-field, signature-field, '
            "initials-field, date-field, number-field, image-field, file-field, phone-field, stamp-field, "
            "checkbox-field, radio-field, select-field, multi-select-field, cells-field",
        ),
        (
            {"html": '<text-field name="Name" colour="red"></text-field>'},
            'html: tag <text-field name="Name" colour="red">: colour is not a tag attribute',
        ),
    ],
)
async def test_bad_input_is_a_422_naming_it(api, body, error):
    reply = await api.post("/api/templates/html", json=body)
    assert reply.status == 422 and reply.json["error"].startswith(error), reply.json


async def test_the_template_is_sent_and_its_signer_completes_it(api, worker):
    template = await create(api, name="NDA", html=_nda("Signer"))
    signers = await send(api, template["id"], SIGNER)
    values = {"Full Name": "Ann Smith", "Signature": "Ann Smith"}
    reply = await act(api, signers[0]["slug"], "complete", {"values": values})
    assert (reply.status, reply.json["status"]) == (200, "completed")
    await worker.drain()
    done = await submission(api, signers[0]["submission_id"])
    assert done["status"] == "completed"
    signed = await fetch(api, done["documents"][0]["url"])
    assert "Ann Smith" in page_texts(signed)[0]


@pytest.mark.filterwarnings("ignore::ResourceWarning", "ignore::pytest.PytestUnraisableExceptionWarning")
async def test_the_official_python_client_creates_a_template_from_html(api):
    client = DocusealApi(key=LIVE_KEY, url=f"http://{api.client.host}:{api.client.port}/api")
    body = {"name": "NDA", "size": "A4", "external_id": "nda-v1", "html": _nda("Signer")}
    created = await asyncio.to_thread(client.create_template_from_html, body)
    again = await asyncio.to_thread(client.create_template_from_html, body)
    assert again["id"] == created["id"] and [f["name"] for f in created["fields"]] == ["Full Name", "Signature"]
    gc.collect()  # the client's sockets, which it never closes, while this test's warning filter applies


def _nda(role: str) -> str:
    return (
        f'<p>I, <text-field name="Full Name" role="{role}"></text-field>, agree.</p>'
        f'<signature-field name="Signature" role="{role}"></signature-field>'
    )


async def test_tag_patterns_are_compiled_within_the_requests_budget_before_the_tags_are_read(api):
    """1,001 distinct patterns cost more to compile than a request may spend; compiled one by one while the tags
    were read (on the event loop), they would escape that bound."""
    tags = "".join(f'<text-field name="Code" pattern="p{index}"></text-field>' for index in range(1001))
    reply = await api.post("/api/templates/html", json={"html": f"<p>{tags}</p>"})
    assert (reply.status, reply.json["error"]) == (
        422,
        "fields have too many patterns to read in one request: send fewer or simpler patterns",
    )


async def served_stylesheets(aiohttp_client, make_app, certificate, client_ssl, tmp_path, sheets: dict[str, bytes]):
    """The template of an HTML document linking each of `sheets` (served over https, in that order), with one
    `Name` field tag."""

    async def stylesheet(request: web.Request) -> web.Response:
        return web.Response(body=sheets[request.path], content_type="text/css")

    server = web.Application()
    server.router.add_get("/{name}.css", stylesheet)
    runner, port = await serve_https(server, certificate, tmp_path)
    try:
        async with Downloader(max_bytes=64 * 2**20, allow_private=True, ssl_context=client_ssl) as downloader:
            api = Api(await aiohttp_client(make_app(downloader=downloader)))
            links = "".join(f'<link rel="stylesheet" href="https://localhost:{port}{path}">' for path in sheets)
            return await create(api, html=f'{links}<text-field name="Name"></text-field>')
    finally:
        await runner.cleanup()


def sheet(size: int, rule: str = "") -> bytes:
    """A stylesheet of `size` bytes: `rule`, then a comment."""
    return (rule + "/*" + "x" * (size - len(rule) - 4) + "*/").encode()


DEFAULT_WIDTH = 160 / 96 / 8.5  # a text field tag's own width, on a Letter page
WIDE = "text-field { width: 4in }"


async def test_a_resource_larger_than_5_mib_is_left_out(aiohttp_client, make_app, certificate, client_ssl, tmp_path):
    sheets = {"/small.css": sheet(1000), "/large.css": sheet(5 * 2**20 + 1, WIDE)}
    template = await served_stylesheets(aiohttp_client, make_app, certificate, client_ssl, tmp_path, sheets)
    assert field(template, "Name")["areas"][0]["w"] == pytest.approx(DEFAULT_WIDTH)


async def test_resources_past_20_mib_for_the_request_are_left_out(
    aiohttp_client, make_app, certificate, client_ssl, tmp_path
):
    sheets = {f"/{name}.css": sheet(9 * 2**19) for name in "abcd"}  # 4.5 MiB each: 18 MiB
    sheets["/e.css"] = sheet(9 * 2**19, WIDE)
    template = await served_stylesheets(aiohttp_client, make_app, certificate, client_ssl, tmp_path, sheets)
    assert field(template, "Name")["areas"][0]["w"] == pytest.approx(DEFAULT_WIDTH)


async def test_the_render_time_bound_is_one_budget_for_all_the_documents_of_a_request(api, monkeypatch):
    # Each document (16 pages, about 0.4 s) renders within the bound, all 20 together in several times more, also
    # on a machine a few times faster: the request stops when the bound is spent.
    monkeypatch.setattr(html_documents, "RENDER_SECONDS", 1.5)
    page = "".join(f"<p>Paragraph {index} of a long document.</p>" for index in range(800))
    documents = [{"name": f"part {index}", "html": page} for index in range(20)]
    reply = await api.post("/api/templates/html", json={"documents": documents})
    assert reply.status == 422, reply.json
    assert reply.json["error"].endswith(
        ": The HTML documents took longer than 1.5 seconds to render, the most for a request"
    )
