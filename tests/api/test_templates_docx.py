"""POST /templates/docx: templates from DOCX documents, converted by LibreOffice; their `[[...]]` variables in the
template's `variables_schema`, dynamic documents keeping their DOCX, required variables checked at submission
time, and DOCX files or tags that cannot be used refused with a 422 naming them."""

import hashlib
import io
from datetime import timedelta
from pathlib import Path

import docx
from aiohttp import web
from pypdf import PdfReader
from yarl import URL

from signsvc.infra.downloads import Downloader
from signsvc.infra.files import REMOVAL_GRACE
from tests.support.app import Api
from tests.support.documents import b64, pdf
from tests.support.https import serve_https
from tests.support.system import SOFFICE

FIELD = {"name": "Sign", "type": "signature", "role": "Buyer", "areas": [{"x": 0.1, "y": 0.8, "w": 0.3, "h": 0.05}]}
ORDER_SCHEMA = {
    "signer_name": {"type": "string"},
    "is_vip": {"type": "boolean"},
    "total": {"type": "number"},
    "invoices": {
        "type": "array",
        "items": {"type": "object", "properties": {"name": {"type": "string"}, "price": {"type": "string"}}},
    },
}


def order_docx(*extra: str) -> bytes:
    document = docx.Document()
    document.add_paragraph("Purchase agreement with [[signer_name]].")
    document.add_paragraph("[[if:is_vip]]Thank you for being a VIP![[end]] [[if: total > 1000]]Free shipping.[[end]]")
    table = document.add_table(rows=1, cols=2)
    table.cell(0, 0).text = "[[for:invoices]][[invoice.name]]"
    table.cell(0, 1).text = "[[invoice.price]][[end]]"
    for paragraph in extra:
        document.add_paragraph(paragraph)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


async def create(api, *documents: dict, **top):
    reply = await api.post("/api/templates/docx", json={"documents": list(documents), **top})
    assert reply.status == 201, reply.json
    return reply.json


async def pdf_text(api, document: dict) -> str:
    served = await api.with_key(None).get(URL(document["url"]).raw_path)
    return "".join(page.extract_text() for page in PdfReader(io.BytesIO(served.body)).pages)


def stored_files(config):
    return [path for path in Path(config.data_dir).rglob("*") if path.is_file()]


def is_stored(config, data: bytes) -> bool:
    """Whether the file store holds this content (the directory store keeps it under its sha256)."""
    sha256 = hashlib.sha256(data).hexdigest()
    return (Path(config.data_dir) / "files" / sha256[:2] / sha256[2:4] / sha256).is_file()


async def deleted(api, clock, worker, *templates: dict) -> None:
    """The templates deleted for good, and their files swept once the grace period is over."""
    for template in templates:
        assert (await api.delete(f"/api/templates/{template['id']}?permanently=true")).status == 200
    clock.advance(REMOVAL_GRACE + timedelta(minutes=10))
    await worker.drain()


@SOFFICE
async def test_a_docx_becomes_a_template_whose_variables_schema_lists_its_variables(api):
    template = await create(api, {"name": "order.docx", "file": b64(order_docx()), "fields": [FIELD]}, name="Order")
    assert template["name"] == "Order"
    assert template["variables_schema"] == ORDER_SCHEMA
    document = template["documents"][0]
    assert template["schema"] == [{"attachment_uuid": document["uuid"], "name": "order"}]
    assert document["filename"] == "order.pdf"
    # A static document is converted as written: its tags stay as text, nothing fills them later.
    assert "[[signer_name]]" in await pdf_text(api, document)
    assert (await api.get(f"/api/templates/{template['id']}")).json["variables_schema"] == ORDER_SCHEMA


@SOFFICE
async def test_a_dynamic_document_is_marked_dynamic_and_keeps_its_docx_through_clone_and_delete(
    api, config, clock, worker
):
    template = await create(api, {"name": "order", "file": b64(order_docx()), "dynamic": True, "fields": [FIELD]})
    assert template["schema"][0]["dynamic"] is True
    assert template["variables_schema"] == ORDER_SCHEMA
    assert len(stored_files(config)) == 3  # its PDF, its page's image and its DOCX
    copy = (await api.post(f"/api/templates/{template['id']}/clone", json={})).json
    assert copy["schema"][0]["dynamic"] is True and copy["variables_schema"] == ORDER_SCHEMA
    await api.delete(f"/api/templates/{template['id']}?permanently=true")
    clock.advance(REMOVAL_GRACE + timedelta(minutes=10))
    await worker.drain()
    assert len(stored_files(config)) == 3  # the clone's copies: the same content
    await api.delete(f"/api/templates/{copy['id']}?permanently=true")
    clock.advance(REMOVAL_GRACE + timedelta(minutes=10))
    await worker.drain()
    assert stored_files(config) == []


@SOFFICE
async def test_a_field_tag_of_a_docx_makes_a_field_and_its_text_is_gone(api):
    data = order_docx("Signature: {{Sign;type=signature}} done")
    template = await create(api, {"name": "order", "file": b64(data), "dynamic": True})
    assert [(field["name"], field["type"]) for field in template["fields"]] == [("Sign", "signature")]
    area = template["fields"][0]["areas"][0]
    assert area["attachment_uuid"] == template["documents"][0]["uuid"] and area["w"] > 0
    text = await pdf_text(api, template["documents"][0])
    assert "{{" not in text and "Signature:" in text and "done" in text
    assert "[[signer_name]]" in text  # a dynamic document's variables stay, to be filled for each submission
    assert template["variables_schema"] == ORDER_SCHEMA


@SOFFICE
async def test_a_docx_url_is_downloaded_and_named_by_its_file(
    aiohttp_client, make_app, certificate, client_ssl, tmp_path
):
    async def order(request):
        return web.Response(body=order_docx())

    document_server = web.Application()
    document_server.router.add_get("/files/order.docx", order)
    runner, port = await serve_https(document_server, certificate, tmp_path)
    try:
        async with Downloader(max_bytes=10**7, allow_private=True, ssl_context=client_ssl) as downloader:
            api = Api(await aiohttp_client(make_app(downloader=downloader)))
            url = f"https://localhost:{port}/files/order.docx"
            template = await create(api, {"file": url, "dynamic": True})
    finally:
        await runner.cleanup()
    assert template["name"] == "order" and template["documents"][0]["filename"] == "order.pdf"
    assert template["variables_schema"] == ORDER_SCHEMA and template["schema"][0]["dynamic"] is True


@SOFFICE
async def test_documents_variables_are_merged_into_one_schema(api):
    second = docx.Document()
    second.add_paragraph("[[signer_name]] [[company.name]] [[if: total >= 10]]x[[end]]")
    buffer = io.BytesIO()
    second.save(buffer)
    template = await create(
        api, {"name": "a", "file": b64(order_docx())}, {"name": "b", "file": b64(buffer.getvalue()), "dynamic": True}
    )
    assert template["variables_schema"] == {
        **ORDER_SCHEMA,
        "company": {"type": "object", "properties": {"name": {"type": "string"}}},
    }
    assert ["dynamic" in item for item in template["schema"]] == [False, True]


@SOFFICE
async def test_a_template_marks_variables_required_and_a_submission_without_one_is_422_naming_it(api):
    template = await create(api, {"name": "order", "file": b64(order_docx()), "dynamic": True, "fields": [FIELD]})
    schema = {**ORDER_SCHEMA, "signer_name": {"type": "string", "required": True}}
    reply = await api.put(f"/api/templates/{template['id']}", json={"variables_schema": schema})
    assert reply.status == 200, reply.json
    assert (await api.get(f"/api/templates/{template['id']}")).json["variables_schema"] == schema
    submission = {"template_id": template["id"], "submitters": [{"role": "Buyer", "email": "b@example.com"}]}
    for variables in ({}, {"signer_name": None}, {"signer_name": "  ", "total": 5}):
        refused = await api.post("/api/submissions", json={**submission, "variables": variables})
        assert refused.status == 422
        assert refused.json == {"error": "variables.signer_name is required by the template's variables_schema"}
    made = await api.post("/api/submissions", json={**submission, "variables": {"signer_name": "Ann"}})
    assert made.status == 200, made.json


@SOFFICE
async def test_a_required_property_of_a_given_object_is_checked(api):
    template = await create(api, {"name": "order", "file": b64(order_docx()), "fields": [FIELD]})
    schema = {"company": {"type": "object", "properties": {"name": {"type": "string", "required": True}}}}
    await api.put(f"/api/templates/{template['id']}", json={"variables_schema": schema})
    submission = {"template_id": template["id"], "submitters": [{"role": "Buyer", "email": "b@example.com"}]}
    refused = await api.post("/api/submissions", json={**submission, "variables": {"company": {"name": ""}}})
    assert refused.json == {"error": "variables.company.name is required by the template's variables_schema"}
    assert (await api.post("/api/submissions", json={**submission, "variables": {}})).status == 200


async def test_a_variables_schema_that_is_not_one_is_422_naming_the_entry(api):
    made = await api.post(
        "/api/templates",
        json={"documents": [{"file": b64(pdf()), "fields": [FIELD]}]},
    )
    template_id = made.json["id"]
    for schema, message in (
        ([], "variables_schema must be an object of variables by name"),
        ({"a": "string"}, "variables_schema.a must be an object with a type"),
        (
            {"a": {"type": "text"}},
            "variables_schema.a.type must be one of string, number, boolean, date, array, object",
        ),
        ({"a": {"type": "string", "required": "yes"}}, "variables_schema.a.required must be true or false"),
        (
            {"a": {"type": "object", "properties": {"b": {"type": "x"}}}},
            "variables_schema.a.properties.b.type must be one of string, number, boolean, date, array, object",
        ),
        ({"a": {"type": "array", "items": 1}}, "variables_schema.a.items must be an object with a type"),
    ):
        reply = await api.put(f"/api/templates/{template_id}", json={"variables_schema": schema})
        assert (reply.status, reply.json) == (422, {"error": message})
    assert (await api.get(f"/api/templates/{template_id}")).json["variables_schema"] == {}


async def test_a_file_that_is_not_a_docx_is_422_and_nothing_is_stored(api, config):
    reply = await api.post("/api/templates/docx", json={"documents": [{"name": "x", "file": b64(pdf())}]})
    assert (reply.status, reply.json) == (
        422,
        {"error": "documents[0].file: the file is not a DOCX document (not a ZIP package)"},
    )
    assert stored_files(config) == []


async def test_a_wrong_tag_is_422_naming_the_document_and_the_tag(api, config):
    data = order_docx("Total: [[if: total >]]high[[end]]")
    reply = await api.post("/api/templates/docx", json={"documents": [{"name": "x", "file": b64(data)}]})
    assert (reply.status, reply.json) == (
        422,
        {"error": "documents[0].file: [[if: total >]]: expected a value after >"},
    )
    assert stored_files(config) == []


async def test_the_request_is_checked_before_any_document_is_converted(api):
    for body, message in (
        ({}, "documents must be a non-empty array"),
        ({"documents": []}, "documents must be a non-empty array"),
        ({"documents": ["x"]}, "documents[0] must be a Object"),
        ({"documents": [{"name": "x"}]}, "documents[0].file is required: the file as base64 or an https:// URL"),
        ({"documents": [{"file": "not base64!"}]}, "documents[0].file is neither valid base64 nor an https:// URL"),
        ({"documents": [{"file": b64(order_docx()), "dynamic": "yes"}]}, "documents[0].dynamic must be true or false"),
        ({"name": 5, "documents": [{"file": b64(order_docx())}]}, "name must be a String"),
    ):
        reply = await api.post("/api/templates/docx", json=body)
        assert (reply.status, reply.json) == (422, {"error": message}), body


async def test_without_libreoffice_a_docx_is_422_saying_so(api, monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    reply = await api.post("/api/templates/docx", json={"documents": [{"name": "x", "file": b64(order_docx())}]})
    unavailable = "Office documents cannot be converted: LibreOffice is not installed on this server"
    assert (reply.status, reply.json) == (422, {"error": f"documents[0].file: {unavailable}"})


async def test_a_template_made_from_a_pdf_has_an_empty_variables_schema(api):
    reply = await api.post("/api/templates", json={"documents": [{"file": b64(pdf()), "fields": [FIELD]}]})
    assert reply.json["variables_schema"] == {} and "dynamic" not in reply.json["schema"][0]


# A template whose variables_schema differs from ORDER_SCHEMA: a tie on signer_name, total narrower, invoices'
# elements with another property, and a variable of its own.
OTHER_SCHEMA = {
    "signer_name": {"type": "string", "description": "the buyer"},
    "total": {"type": "string"},
    "invoices": {
        "type": "array",
        "items": {"type": "object", "properties": {"sku": {"type": "string", "required": True}}},
    },
    "due": {"type": "date"},
}


async def dynamic_order_and_other(api, data: bytes) -> tuple[dict, dict]:
    """A dynamic DOCX template whose signer_name is required, and a PDF template with OTHER_SCHEMA set."""
    order = await create(api, {"name": "order", "file": b64(data), "dynamic": True, "fields": [FIELD]}, name="Order")
    required = {**ORDER_SCHEMA, "signer_name": {"type": "string", "required": True}}
    assert (await api.put(f"/api/templates/{order['id']}", json={"variables_schema": required})).status == 200
    other = await api.post("/api/templates", json={"name": "Other", "documents": [{"file": b64(pdf()), "fields": []}]})
    assert (await api.put(f"/api/templates/{other.json['id']}", json={"variables_schema": OTHER_SCHEMA})).status == 200
    return order, other.json


async def merged(api, *templates: dict) -> dict:
    reply = await api.post("/api/templates/merge", json={"template_ids": [t["id"] for t in templates]})
    assert reply.status == 201, reply.json
    return reply.json


@SOFFICE
async def test_a_merged_template_keeps_a_dynamic_documents_docx_and_has_the_union_of_the_variables_schemas(
    api, config, clock, worker
):
    data = order_docx()
    order, other = await dynamic_order_and_other(api, data)
    merge = await merged(api, order, other)
    assert [item.get("dynamic", False) for item in merge["schema"]] == [True, False]
    invoice = {"name": {"type": "string"}, "price": {"type": "string"}, "sku": {"type": "string", "required": True}}
    union = {
        "signer_name": {"type": "string", "required": True},  # a tie: the first template's, required by it
        "is_vip": {"type": "boolean"},
        "total": {"type": "number"},  # number is wider than the other's string
        "invoices": {"type": "array", "items": {"type": "object", "properties": invoice}},
        "due": {"type": "date"},
    }
    assert merge["variables_schema"] == union
    # The other order: the tie goes to the other template's entry, still required.
    reversed_merge = await merged(api, other, order)
    assert reversed_merge["variables_schema"]["signer_name"] == {
        "type": "string",
        "description": "the buyer",
        "required": True,
    }
    assert [item.get("dynamic", False) for item in reversed_merge["schema"]] == [False, True]
    await deleted(api, clock, worker, order, reversed_merge)
    assert is_stored(config, data)  # the merged template's own copy of the DOCX
    await deleted(api, clock, worker, merge)
    assert not is_stored(config, data)


@SOFFICE
async def test_a_clone_of_a_merged_template_keeps_the_dynamic_documents_docx_and_the_schema(api, config, clock, worker):
    data = order_docx()
    order, other = await dynamic_order_and_other(api, data)
    merge = await merged(api, order, other)
    clone = (await api.post(f"/api/templates/{merge['id']}/clone", json={})).json
    assert clone["variables_schema"] == merge["variables_schema"]
    assert [item.get("dynamic", False) for item in clone["schema"]] == [True, False]
    assert clone["documents"][0]["uuid"] != merge["documents"][0]["uuid"]
    await deleted(api, clock, worker, order, merge)
    assert is_stored(config, data)
    await deleted(api, clock, worker, clone)
    assert not is_stored(config, data)


@SOFFICE
async def test_removing_a_dynamic_document_with_put_documents_forgets_its_docx(api, config, clock, worker):
    data = order_docx()
    template = await create(api, {"name": "order", "file": b64(data), "dynamic": True, "fields": [FIELD]})
    change = {"documents": [{"name": "terms", "file": b64(pdf())}, {"remove": True, "name": "order"}]}
    reply = await api.put(f"/api/templates/{template['id']}/documents", json=change)
    assert reply.status == 200, reply.json
    assert [(item["name"], "dynamic" in item) for item in reply.json["schema"]] == [("terms", False)]
    assert reply.json["variables_schema"] == ORDER_SCHEMA  # the schema is the template's: PUT /templates/{id} sets it
    clock.advance(REMOVAL_GRACE + timedelta(minutes=10))
    await worker.drain()
    assert not is_stored(config, data)


@SOFFICE
async def test_replacing_a_dynamic_document_or_merging_it_into_one_document_forgets_its_docx(
    api, config, clock, worker
):
    data = order_docx()
    replaced = await create(api, {"name": "order", "file": b64(data), "dynamic": True, "fields": [FIELD]})
    merged_into_one = await create(api, {"name": "order", "file": b64(data), "dynamic": True, "fields": [FIELD]})
    replace = {"documents": [{"replace": True, "position": 0, "file": b64(pdf())}]}
    # One document made of them all is a PDF of their pages: the DOCX is no longer the template's.
    merge = {"documents": [{"name": "terms", "file": b64(pdf())}], "merge": True}
    for template, change in ((replaced, replace), (merged_into_one, merge)):
        reply = await api.put(f"/api/templates/{template['id']}/documents", json=change)
        assert reply.status == 200, reply.json
        assert len(reply.json["schema"]) == 1 and "dynamic" not in reply.json["schema"][0]
    assert is_stored(config, data)  # until the removal's grace period is over
    clock.advance(REMOVAL_GRACE + timedelta(minutes=10))
    await worker.drain()
    assert not is_stored(config, data)
