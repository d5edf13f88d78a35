"""A template's dynamic documents filled at submission time: each submission's copy of the document is its DOCX
filled with the submission's `variables` and converted (the template unchanged), its tagged fields moved to
where their tags now are."""

from __future__ import annotations

import io

import docx

import storage.submissions as stored
from signsvc.http.appkeys import WORKER
from tests.support.documents import b64, pdf
from tests.support.pdf_text import page_texts
from tests.support.results import fetch
from tests.support.signing import act, submission
from tests.support.system import SOFFICE

BUYER = {"role": "Buyer", "email": "buyer@example.com", "name": "Bea"}


def order_docx() -> bytes:
    document = docx.Document()
    document.add_paragraph("Purchase agreement with [[signer_name]].")
    document.add_paragraph("[[for:items]]")
    document.add_paragraph("Line [[item]]")
    document.add_paragraph("[[end]]")
    document.add_paragraph("Signature: {{Signature;type=signature;role=Buyer}}")
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


async def dynamic_template(api) -> dict:
    body = {"name": "Order", "documents": [{"name": "order", "file": b64(order_docx()), "dynamic": True}]}
    reply = await api.post("/api/templates/docx", json=body)
    assert reply.status == 201, reply.json
    return reply.json


async def sent(api, template: dict, variables: dict) -> dict:
    reply = await api.post(
        "/api/submissions", json={"template_id": template["id"], "submitters": [BUYER], "variables": variables}
    )
    assert reply.status == 200, reply.json
    return reply.json[0]


async def document_text(api, url: str) -> list[str]:
    return page_texts(await fetch(api, url))


@SOFFICE
async def test_the_signed_document_holds_the_submissions_variable_and_the_template_is_unchanged(api):
    template = await dynamic_template(api)
    buyer = await sent(api, template, {"signer_name": "Johanna Doe", "items": ["one"]})
    assert (await act(api, buyer["slug"], "complete", {"values": {"Signature": "Bea Buyer"}})).status == 200
    await api.app[WORKER].drain()
    found = await submission(api, buyer["submission_id"])
    assert found["status"] == "completed"
    text = "\n".join(await document_text(api, found["documents"][0]["url"]))
    assert "Purchase agreement with Johanna Doe." in text and "Line one" in text and "[[" not in text
    again = await api.get(f"/api/templates/{template['id']}")
    template_text = "\n".join(await document_text(api, again.json["documents"][0]["url"]))
    assert "[[signer_name]]" in template_text, "the template keeps its document as written"


@SOFFICE
async def test_a_loop_that_adds_a_page_keeps_the_tagged_field_on_its_tag(api, db):
    template = await dynamic_template(api)
    [template_field] = template["fields"]
    assert [area["page"] for area in template_field["areas"]] == [0]
    buyer = await sent(api, template, {"signer_name": "Jo", "items": [f"item {n}" for n in range(80)]})
    made = await stored.get_submission(db, buyer["submission_id"])
    assert len(made.documents[0]["pages"]) >= 2
    [field] = made.fields
    [area] = field["areas"]
    assert area["page"] == len(made.documents[0]["pages"]) - 1, "the tag is on the last page now"
    assert area["attachment_uuid"] == made.documents[0]["uuid"] == template["schema"][0]["attachment_uuid"]
    reply = await api.get(f"/api/submissions/{made.id}/documents")
    pages = await document_text(api, reply.json["documents"][0]["url"])
    assert "Signature:" in pages[area["page"]] and "{{" not in "".join(pages)


@SOFFICE
async def test_variables_a_dynamic_document_cannot_use_are_a_422_and_nothing_is_made(api, db):
    template = await dynamic_template(api)
    reply = await api.post(
        "/api/submissions",
        json={"template_id": template["id"], "submitters": [BUYER], "variables": {"items": 5}},
    )
    assert reply.status == 422, reply.json
    assert reply.json["error"].startswith("variables cannot fill the document order: ")
    assert (await api.get("/api/submissions")).json["data"] == []


@SOFFICE
async def test_a_field_placed_by_coordinates_keeps_its_place_and_loses_areas_on_pages_gone(api, db):
    document = docx.Document()
    document.add_paragraph("Signature: {{Signature;type=signature;role=Buyer}}")
    document.add_paragraph("[[if:long]]")
    for n in range(80):
        document.add_paragraph(f"Clause {n}")
    document.add_paragraph("[[end]]")
    buffer = io.BytesIO()
    document.save(buffer)
    area = {"x": 0.1, "y": 0.5, "w": 0.3, "h": 0.05}
    note = {"name": "Note", "type": "text", "role": "Buyer", "required": False}
    fields = [
        {**note, "areas": [{**area, "page": 1}, {**area, "page": 2}]},
        {"name": "Signature", "type": "signature", "role": "Buyer", "areas": [{**area, "page": 1}]},
    ]
    body = {"documents": [{"name": "terms", "file": b64(buffer.getvalue()), "dynamic": True, "fields": fields}]}
    reply = await api.post("/api/templates/docx", json=body)
    assert reply.status == 201, reply.json
    assert [len(one["areas"]) for one in reply.json["fields"]] == [2, 1]
    buyer = await sent(api, reply.json, {"long": False})
    made = await stored.get_submission(db, buyer["submission_id"])
    assert len(made.documents[0]["pages"]) == 1
    by_name = {field["name"]: field for field in made.fields}
    [kept] = by_name["Note"]["areas"]
    assert (kept["page"], kept["x"], kept["y"]) == (0, 0.1, 0.5), "the first page's area as it was, the second's gone"
    assert [one["page"] for one in by_name["Signature"]["areas"]] == [0]


@SOFFICE
async def test_a_one_off_submission_fills_the_dynamic_documents_of_its_template_ids(api):
    template = await dynamic_template(api)
    annex = {"name": "annex", "file": b64(pdf()), "fields": [{"name": "Initials", "type": "initials", "role": "Buyer"}]}
    body = {
        "documents": [annex],
        "template_ids": [template["id"]],
        "variables": {"signer_name": "Johanna Doe", "items": ["one"]},
        "submitters": [BUYER],
    }
    reply = await api.post("/api/submissions/pdf", json=body)
    assert reply.status == 200, reply.json
    documents = await api.get(f"/api/submissions/{reply.json['id']}/documents")
    texts = ["\n".join(await document_text(api, one["url"])) for one in documents.json["documents"]]
    assert "Purchase agreement with Johanna Doe." in texts[1] and "{{" not in texts[1]


@SOFFICE
async def test_a_value_written_like_a_fields_tag_does_not_move_the_field_and_shows_as_text(api, db):
    template = await dynamic_template(api)
    plain = await stored.get_submission(db, (await sent(api, template, {"signer_name": "Jo"}))["submission_id"])
    tag = "{{Signature;type=signature;role=Buyer}}"
    buyer = await sent(api, template, {"signer_name": tag})
    made = await stored.get_submission(db, buyer["submission_id"])
    assert [field["areas"] for field in made.fields] == [field["areas"] for field in plain.fields]
    reply = await api.get(f"/api/submissions/{made.id}/documents")
    text = "".join(await document_text(api, reply.json["documents"][0]["url"]))
    assert "Signature;type=signature;role=Buyer" in text, "the value's text is shown"


@SOFFICE
async def test_a_huge_number_in_a_condition_fills_the_document_rather_than_failing(api):
    document = docx.Document()
    document.add_paragraph("[[if: total > 1]]Large order[[else]]Small order[[end]]")
    document.add_paragraph("Signature: {{Signature;type=signature;role=Buyer}}")
    buffer = io.BytesIO()
    document.save(buffer)
    body = {"name": "Order", "documents": [{"name": "order", "file": b64(buffer.getvalue()), "dynamic": True}]}
    reply = await api.post("/api/templates/docx", json=body)
    assert reply.status == 201, reply.json
    buyer = await sent(api, reply.json, {"total": 10**400})
    reply = await api.get(f"/api/submissions/{buyer['submission_id']}/documents")
    text = "".join(await document_text(api, reply.json["documents"][0]["url"]))
    assert "Large order" in text and "Small order" not in text
