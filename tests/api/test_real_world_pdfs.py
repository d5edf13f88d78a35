"""Real-world PDFs through the API: every odd shape of the corpus becomes a template, and a submission of it a
signed document with its pages, its own text and every value."""

import io

import pypdf
import pytest

from tests.support import odd_pdfs
from tests.support.documents import b64
from tests.support.odd_pdfs import CORPUS, PREFILLED, STALE
from tests.support.results import fetch
from tests.support.signing import send, submission


async def template_of(api, data: bytes, fields: list[dict] | None = None) -> dict:
    document = {"name": "odd", "file": b64(data), **({"fields": fields} if fields is not None else {})}
    reply = await api.post("/api/templates", json={"name": "Odd", "documents": [document]})
    assert reply.status == 201, reply.json
    return reply.json


def field_on_each_page(pages: int) -> list[dict]:
    """For a PDF without a form: a text field on each page."""
    return [
        {"name": f"page {page}", "type": "text", "areas": [{"x": 0.1, "y": 0.1, "w": 0.5, "h": 0.1, "page": page}]}
        for page in range(1, pages + 1)
    ]


def value_for(field: dict) -> object:
    if field["type"] == "radio":
        return field["options"][0]["value"]
    return True if field["type"] == "checkbox" else f"Value of {field['name']}"


async def signed_document(api, worker, template: dict, values: dict) -> bytes:
    sent = await send(
        api, template["id"], {"email": "ann@example.com", "name": "Ann", "values": values, "completed": True}
    )
    await worker.drain()
    found = await submission(api, sent[0]["submission_id"])
    assert found["status"] == "completed"
    [document] = found["documents"]
    return await fetch(api, document["url"])


def text_of(data: bytes) -> str:
    return "\n".join(page.extract_text() for page in pypdf.PdfReader(io.BytesIO(data)).pages)


@pytest.mark.parametrize("name", list(CORPUS))
async def test_each_odd_pdf_becomes_a_template_and_a_signed_document_with_every_value(api, worker, name):
    odd = CORPUS[name]
    template = await template_of(api, odd.build(), None if odd.fields else field_on_each_page(odd.pages))
    assert [field["name"] for field in template["fields"]] == list(
        odd.fields or [f"page {n}" for n in range(1, odd.pages + 1)]
    )
    values = {field["name"]: value_for(field) for field in template["fields"]}
    signed = await signed_document(api, worker, template, values)
    assert len(pypdf.PdfReader(io.BytesIO(signed)).pages) == odd.pages
    text = text_of(signed)
    for shown in [*odd.text, *(value for value in values.values() if isinstance(value, str) and "Value" in value)]:
        assert shown in text


async def test_a_form_whose_radio_option_has_no_name_becomes_a_template_with_the_option_named(api, worker):
    template = await template_of(api, odd_pdfs.radio_with_an_unnamed_option())
    payment = next(field for field in template["fields"] if field["name"] == "payment")
    assert [option["value"] for option in payment["options"]] == ["Option 1", "Card", "Cash"]
    assert [area["option_uuid"] for area in payment["areas"]] == [option["uuid"] for option in payment["options"]]
    await signed_document(api, worker, template, {"payment": "Option 1"})


async def test_values_filled_before_upload_appear_in_the_signed_document_not_an_older_appearance(api, worker):
    template = await template_of(api, odd_pdfs.prefilled_without_appearances())
    text = text_of(await signed_document(api, worker, template, {"full_name": "Ann Smith"}))
    assert all(value in text for value in [*PREFILLED, "Ann Smith"])
    assert STALE not in text
