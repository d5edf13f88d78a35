"""The official clients make documents from an integrator's data, unchanged: the Python client's seven document
methods and the npm client's createTemplateFromHtml, createSubmissionFromPdf and mergeTemplates, each answer used
until a signer completes and the signed PDF verifies."""

import asyncio
import base64
import gc
import io

import docx
import pytest
from docuseal import DocusealApi
from pypdf import PdfReader

from tests.support import npm_client
from tests.support.app import LIVE_KEY
from tests.support.documents import b64, pdf
from tests.support.results import fetch
from tests.support.system import NODE, NPM_CLIENT, PANGO, SOFFICE

# The official Python client opens a connection per call and never closes it.
pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning", "ignore::pytest.PytestUnraisableExceptionWarning")

HTML = '<p>Name: <text-field name="Name" role="Client"></text-field></p>'
SIGNATURE = {"name": "Signature", "type": "signature", "role": "Client"}
AREA = {"x": 0.1, "y": 0.5, "w": 0.3, "h": 0.1, "page": 1}


@pytest.fixture(autouse=True)
def collect_leaked_connections():
    yield
    gc.collect()


def python_client(api) -> DocusealApi:
    return DocusealApi(key=LIVE_KEY, url=f"http://{api.client.host}:{api.client.port}/api")


def word(*paragraphs: str) -> str:
    document = docx.Document()
    for text in paragraphs:
        document.add_paragraph(text)
    out = io.BytesIO()
    document.save(out)
    return base64.b64encode(out.getvalue()).decode()


async def signed_by_client(api, worker, client: DocusealApi, submitter_id: int, values: dict) -> str:
    """The submitter completes through the client; the text of the signed documents, each verified as the
    service's."""
    await asyncio.to_thread(client.update_submitter, submitter_id, {"values": values, "completed": True})
    await worker.drain()
    submission = (await api.get(f"/api/submitters/{submitter_id}")).json["submission_id"]
    text = ""
    for document in (await api.get(f"/api/submissions/{submission}")).json["documents"]:
        data = await fetch(api, document["url"])
        verified = (await api.post("/api/tools/verify", json={"file": base64.b64encode(data).decode()})).json
        assert verified["issued_by_service"] and verified["signatures"][0]["trusted"], verified
        text += "".join(page.extract_text() for page in PdfReader(io.BytesIO(data)).pages)
    return text


@PANGO
async def test_python_client_templates_from_html_merged_and_given_documents_are_signed(api, worker):
    client = python_client(api)

    def scenario():
        offer = client.create_template_from_html({"name": "Offer", "html": HTML})
        annex = client.create_template_from_pdf(
            {
                "name": "Annex",
                "documents": [{"name": "annex", "file": b64(pdf()), "fields": [{**SIGNATURE, "areas": [AREA]}]}],
            }
        )
        merged = client.merge_templates({"template_ids": [offer["id"], annex["id"]], "name": "Offer and annex"})
        grown = client.update_template_documents(
            merged["id"],
            {
                "documents": [
                    {"name": "Terms", "html": "<p>Terms: <text-field name='Accepted' role='Client'></text-field></p>"}
                ]
            },
        )
        sent = client.create_submission(
            {
                "template_id": grown["id"],
                "send_email": False,
                "submitters": [{"role": "Client", "email": "c@example.com"}],
            }
        )
        return offer, merged, grown, sent

    offer, merged, grown, sent = await asyncio.to_thread(scenario)
    assert [field["name"] for field in offer["fields"]] == ["Name"]
    assert [document["name"] for document in merged["schema"]] == ["Offer", "annex"]
    assert [document["name"] for document in grown["schema"]] == ["Offer", "annex", "Terms"]
    assert [field["name"] for field in grown["fields"]] == ["Name", "Signature", "Accepted"]
    values = {"Name": "Ada Lovelace", "Signature": "Ada Lovelace", "Accepted": "yes"}
    text = await signed_by_client(api, worker, client, sent["submitters"][0]["id"], values)
    assert "Ada Lovelace" in text


@PANGO
async def test_python_client_one_off_submissions_from_pdf_and_html_are_signed(api, worker):
    client = python_client(api)

    def scenario():
        from_pdf = client.create_submission_from_pdf(
            {
                "name": "Receipt",
                "send_email": False,
                "documents": [{"name": "receipt", "file": b64(pdf()), "fields": [{**SIGNATURE, "areas": [AREA]}]}],
                "submitters": [{"role": "Client", "email": "c@example.com"}],
            }
        )
        from_html = client.create_submission_from_html(
            {
                "name": "Letter",
                "send_email": False,
                "documents": [{"name": "letter", "html": HTML, "size": "A4"}],
                "submitters": [{"role": "Client", "email": "c@example.com"}],
            }
        )
        return from_pdf, from_html

    from_pdf, from_html = await asyncio.to_thread(scenario)
    for created in (from_pdf, from_html):
        assert created["source"] == "api" and created["status"] == "pending"
        assert (await api.get(f"/api/submissions/{created['id']}")).json["template"] is None
    await signed_by_client(api, worker, client, from_pdf["submitters"][0]["id"], {"Signature": "Ada Lovelace"})
    text = await signed_by_client(api, worker, client, from_html["submitters"][0]["id"], {"Name": "Grace Hopper"})
    assert "Grace Hopper" in text
    assert (await api.get("/api/templates")).json["data"] == [], "a one-off submission keeps no template"


@SOFFICE
async def test_python_client_docx_template_and_one_off_docx_submission_are_signed(api, worker):
    client = python_client(api)

    def scenario():
        template = client.create_template_from_docx(
            {
                "name": "Order",
                "documents": [
                    {
                        "name": "order",
                        "file": word("Order of [[customer]]", "Sign: {{Signature;type=signature;role=Client}}"),
                    }
                ],
            }
        )
        one_off = client.create_submission_from_docx(
            {
                "name": "Order 7",
                "send_email": False,
                "variables": {"customer": "Acme Ltd"},
                "documents": [{"name": "order", "file": word("Order of [[customer]]", "Name: {{Name;role=Client}}")}],
                "submitters": [{"role": "Client", "email": "c@example.com"}],
            }
        )
        return template, one_off

    template, one_off = await asyncio.to_thread(scenario)
    assert [(field["name"], field["type"]) for field in template["fields"]] == [("Signature", "signature")]
    assert template["variables_schema"] == {"customer": {"type": "string"}}
    text = await signed_by_client(api, worker, client, one_off["submitters"][0]["id"], {"Name": "Ada Lovelace"})
    assert "Order of Acme Ltd" in text and "Ada Lovelace" in text and "{{" not in text and "[[" not in text


@NODE
@NPM_CLIENT
@PANGO
async def test_npm_client_makes_templates_from_html_merges_them_and_sends_a_one_off_pdf(api, worker):
    seen = await npm_client.run(api, "documents.mjs")
    assert [field["name"] for field in seen["fromHtml"]["fields"]] == ["Name"]
    assert [field["name"] for field in seen["merged"]["fields"]] == ["Name", "Initials"]
    assert seen["oneOff"]["schema"][0]["name"] == "receipt"
    client = python_client(api)
    await signed_by_client(api, worker, client, seen["oneOff"]["submitters"][0]["id"], {"Signature": "Ada Lovelace"})
    merged = await asyncio.to_thread(
        client.create_submission,
        {
            "template_id": seen["merged"]["id"],
            "send_email": False,
            "submitters": [{"role": "Client", "email": "c@x.org"}],
        },
    )
    text = await signed_by_client(
        api, worker, client, merged["submitters"][0]["id"], {"Name": "Grace Hopper", "Initials": "GH"}
    )
    assert "Grace Hopper" in text
