"""One-off DOCX submissions (POST /api/submissions/docx): each DOCX's `[[...]]` tags filled with the request's
`variables`, converted by LibreOffice, its `{{...}}` text tags the fields; every other option as /submissions/pdf."""

from __future__ import annotations

import io
from typing import Any

import docx

from signsvc.http.appkeys import WORKER
from tests.support.documents import b64, pdf
from tests.support.pdf_text import page_texts
from tests.support.results import fetch
from tests.support.signing import act, submission
from tests.support.system import SOFFICE

BUYER = {"role": "Buyer", "email": "buyer@example.com", "name": "Bea"}
SIGNATURE_TAG = "{{Signature;type=signature;role=Buyer}}"
VARIABLES = {
    "signer_name": "Johanna Doe",
    "is_vip": False,
    "invoices": [{"name": "Anvil", "price": "12.50"}, {"name": "Rope", "price": "3.20"}],
}


def order_docx(*extra: str) -> bytes:
    document = docx.Document()
    document.add_paragraph("Purchase agreement with [[signer_name]].")
    document.add_paragraph("[[if:is_vip]]Thank you for being a VIP![[else]]Thank you for your order.[[end]]")
    table = document.add_table(rows=1, cols=2)
    table.cell(0, 0).text = "[[for:invoices]][[invoice.name]]"
    table.cell(0, 1).text = "[[invoice.price]][[end]]"
    for paragraph in (f"Signature: {SIGNATURE_TAG}", *extra):
        document.add_paragraph(paragraph)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


async def one_off(api, status: int = 200, **body: Any) -> dict[str, Any]:
    body.setdefault("documents", [{"name": "order", "file": b64(order_docx())}])
    body.setdefault("submitters", [BUYER])
    reply = await api.post("/api/submissions/docx", json=body)
    assert reply.status == status, reply.json
    return reply.json


async def stored_text(api, made: dict[str, Any]) -> str:
    """The text of the submission's first document as it is now (before completion)."""
    reply = await api.get(f"/api/submissions/{made['id']}/documents")
    assert reply.status == 200, reply.json
    return "\n".join(page_texts(await fetch(api, reply.json["documents"][0]["url"])))


@SOFFICE
async def test_a_substituted_variable_is_in_the_signed_document_after_the_signer_completes(api):
    made = await one_off(api, variables=VARIABLES)
    [buyer] = made["submitters"]
    assert (await act(api, buyer["slug"], "complete", {"values": {"Signature": "Bea Buyer"}})).status == 200
    await api.app[WORKER].drain()
    found = await submission(api, made["id"])
    assert found["status"] == "completed" and found["template"] is None
    assert found["variables"] == VARIABLES, "the submission keeps its variables"
    text = "\n".join(page_texts(await fetch(api, found["documents"][0]["url"])))
    assert "Purchase agreement with Johanna Doe." in text and "[[" not in text


@SOFFICE
async def test_if_else_and_a_loop_over_a_table_row_show_in_the_documents_text(api):
    text = await stored_text(api, await one_off(api, variables=VARIABLES))
    assert "Thank you for your order." in text and "VIP" not in text
    assert "Anvil" in text and "12.50" in text and "Rope" in text and "3.20" in text
    vip = await stored_text(api, await one_off(api, variables={**VARIABLES, "is_vip": True, "invoices": []}))
    assert "Thank you for being a VIP!" in vip and "your order" not in vip and "Anvil" not in vip


@SOFFICE
async def test_text_tags_become_the_fields_and_are_gone_from_the_document(api):
    made = await one_off(api, variables=VARIABLES)
    [field] = made["fields"]
    assert (field["name"], field["type"]) == ("Signature", "signature")
    assert [area["page"] for area in field["areas"]] == [0]
    text = await stored_text(api, made)
    assert "{{" not in text and "Signature:" in text
    kept = await stored_text(api, await one_off(api, variables=VARIABLES, remove_tags=False))
    assert "{{Signature" in kept, "remove_tags: false keeps the tags' text"


@SOFFICE
async def test_a_pdf_is_taken_as_it_is_beside_a_docx(api):
    field = {
        "name": "Initials",
        "type": "initials",
        "role": "Buyer",
        "areas": [{"x": 0.1, "y": 0.1, "w": 0.2, "h": 0.05}],
    }
    documents = [
        {"name": "order", "file": b64(order_docx())},
        {"name": "annex", "file": b64(pdf()), "fields": [field], "position": 0},
    ]
    made = await one_off(api, variables=VARIABLES, documents=documents)
    assert [one["name"] for one in made["schema"]] == ["annex", "order"]
    assert sorted(f["name"] for f in made["fields"]) == ["Initials", "Signature"]


@SOFFICE
async def test_variables_the_tags_cannot_use_are_a_422_naming_the_document_and_the_tag(api):
    wrong = {"name": "order", "file": b64(order_docx("[[if: total >]]more[[end]]"))}
    reply = await one_off(api, 422, variables=VARIABLES, documents=[{"name": "ok", "file": b64(order_docx())}, wrong])
    assert reply == {"error": "documents[1].file: [[if: total >]]: expected a value after >"}
    reply = await one_off(api, 422, variables=["not", "an", "object"])
    assert reply == {"error": "variables must be an object"}
    reply = await one_off(api, 422, documents=[{"name": "x", "file": b64(b"plain text, not a DOCX")}])
    assert reply["error"].startswith("documents[0].file: the file is not a DOCX document")


async def test_without_libreoffice_a_docx_is_422_saying_so(api, monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    reply = await one_off(api, 422, variables=VARIABLES)
    unavailable = "Office documents cannot be converted: LibreOffice is not installed on this server"
    assert reply == {"error": f"documents[0].file: {unavailable}"}


ATTACK = "{{Bank account;role=Buyer;default=X;readonly=true}}"


@SOFFICE
async def test_a_value_written_like_a_text_tag_makes_no_field_and_shows_as_text(api):
    documents = [{"name": "order", "file": b64(order_docx("Customer: [[signer_name]]"))}]
    made = await one_off(api, variables={**VARIABLES, "signer_name": ATTACK}, documents=documents)
    assert [field["name"] for field in made["fields"]] == ["Signature"]
    text = (await stored_text(api, made)).replace("\u200b", "")
    assert "Bank account;role=Buyer" in text, "the value's text is shown"
    halves = {"first": "{", "second": "{Bank account;role=Buyer}}"}
    documents = [{"name": "order", "file": b64(order_docx("Two values: [[first]][[second]]"))}]
    split = await one_off(api, variables={**VARIABLES, **halves}, documents=documents)
    assert [field["name"] for field in split["fields"]] == ["Signature"], "two values side by side form no tag"


@SOFFICE
async def test_a_huge_number_in_a_condition_compares_exactly_rather_than_failing(api):
    huge = 10**400
    documents = [{"name": "order", "file": b64(order_docx("[[if: total > 1]]Large order[[else]]Small order[[end]]"))}]
    text = await stored_text(api, await one_off(api, variables={**VARIABLES, "total": huge}, documents=documents))
    assert "Large order" in text and "Small order" not in text
    literal = f"[[if: total < {huge}]]Below[[else]]Above[[end]]"
    documents = [{"name": "order", "file": b64(order_docx(literal))}]
    text = await stored_text(api, await one_off(api, variables={**VARIABLES, "total": huge + 1}, documents=documents))
    assert "Above" in text and "Below" not in text
