"""One-off submissions of HTML (POST /api/submissions/html): documents rendered as an HTML template's are, each with
its own header, footer and page size, sent for signing without a template."""

from __future__ import annotations

import io
from typing import Any

from pypdf import PdfReader

from signsvc.http.appkeys import WORKER
from tests.api.test_results import validate
from tests.support.pdf_text import page_texts
from tests.support.results import fetch
from tests.support.signing import act, area, submission, template
from tests.support.system import CJK_FONT, PANGO

pytestmark = PANGO

SIGNER = {"role": "Signer", "email": "signer@example.com", "name": "Sam"}
NDA = (
    '<p>I, <text-field name="Full Name" role="Signer" style="width:160px;height:20px"></text-field>, agree.</p>'
    '<signature-field name="Signature" role="Signer"></signature-field>'
)
FOOTER = '<p style="font-size:9pt">Page <span class="pageNumber"></span> of <span class="totalPages"></span></p>'


async def one_off(api, *submitters: dict[str, Any], status: int = 200, **body: Any):
    reply = await api.post("/api/submissions/html", json={"submitters": list(submitters or (SIGNER,)), **body})
    assert reply.status == status, reply.json
    return reply.json


async def document_pdfs(api, submission_id: int) -> list[bytes]:
    """The documents as they are now (before completion: with the values entered so far)."""
    reply = await api.get(f"/api/submissions/{submission_id}/documents")
    assert reply.status == 200, reply.json
    return [await fetch(api, document["url"]) for document in reply.json["documents"]]


def page_sizes(data: bytes) -> list[tuple[int, int]]:
    return [(round(page.mediabox.width), round(page.mediabox.height)) for page in PdfReader(io.BytesIO(data)).pages]


async def test_each_document_has_its_own_header_footer_and_size_and_its_tags_are_the_fields(api):
    made = await one_off(
        api,
        documents=[
            {"name": "NDA", "html": NDA, "size": "A4", "html_footer": FOOTER},
            {"name": "Annex", "html": "<p>Annex</p>" + '<div style="break-before: page">Two</div>', "size": "Letter"},
        ],
        html_header="<p>Acme</p>",
    )
    assert [d["name"] for d in made["schema"]] == ["NDA", "Annex"] and made["name"] == "NDA"
    assert [(f["name"], f["type"]) for f in made["fields"]] == [("Full Name", "text"), ("Signature", "signature")]
    assert {a["attachment_uuid"] for f in made["fields"] for a in f["areas"]} == {made["schema"][0]["attachment_uuid"]}
    nda, annex = await document_pdfs(api, made["id"])
    assert page_sizes(nda) == [(595, 842)] and page_sizes(annex) == [(612, 792), (612, 792)]
    assert "Page 1 of 1" in page_texts(nda)[0] and "Acme" in page_texts(nda)[0]
    assert all("Acme" in text and "Page" not in text for text in page_texts(annex)), "the top level's header only"
    assert (await submission(api, made["id"]))["template"] is None
    assert (await api.get("/api/templates")).json["data"] == []


async def test_a_top_level_html_is_one_document_named_by_the_name_given(api):
    made = await one_off(api, name="Mutual NDA", html=NDA, size="A5", send_email=False, order="random")
    assert [d["name"] for d in made["schema"]] == ["Mutual NDA"] and made["name"] == "Mutual NDA"
    assert made["submitters_order"] == "random"
    [document] = await document_pdfs(api, made["id"])
    assert page_sizes(document) == [(420, 595)]


async def test_template_ids_and_positions_place_the_documents(api):
    template_id = await template(
        api, fields=[{"name": "Witness", "type": "text", "role": "signer", "areas": [area(0.5)]}]
    )
    made = await one_off(api, documents=[{"name": "NDA", "html": NDA, "position": 1}], template_ids=[template_id])
    assert [d["name"] for d in made["schema"]] == ["nda", "NDA"]
    roles = {f["name"]: f["submitter_uuid"] for f in made["fields"]}
    assert roles["Witness"] == roles["Full Name"], "the template's role joins the tags' role of its name"


async def test_refusals_name_the_problem_and_where(api):
    async def refused(**body: Any) -> str:
        return (await one_off(api, status=422, **body))["error"]

    assert await refused(html=NDA, documents=[{"html": NDA}]) == "documents must be left out when html is given"
    assert (await refused(documents=[{"html": NDA, "size": "B5"}])).startswith("documents[0].size must be one of")
    assert await refused(html="<p>No fields</p>") == (
        "documents have no fields: give each document's fields, or use text tags"
    )
    assert await refused(html=NDA, flatten=True) == "Unknown key: flatten"
    assert await refused(html=NDA, template_id=1) == "Unknown key: template_id"
    assert await refused(html=NDA, submitters=[{"role": "Signer"}]) == (
        "email or phone or name is required in `submitters[0]`."
    )


@CJK_FONT
async def test_the_signer_completes_it_and_the_signed_pdf_verifies(api, db):
    made = await one_off(api, html=NDA, html_footer=FOOTER)
    signer = made["submitters"][0]
    values = {"Full Name": "Sam Signer", "Signature": "Sam Signer"}
    assert (await act(api, signer["slug"], "complete", {"values": values})).status == 200
    await api.app[WORKER].drain()
    found = await submission(api, made["id"])
    assert found["status"] == "completed" and found["template"] is None
    data = await fetch(api, found["documents"][0]["url"])
    status = await validate(db, data)
    assert status.intact and status.valid and status.trusted
    assert "Sam Signer" in "\n".join(page_texts(data))
