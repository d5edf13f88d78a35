"""PUT /api/templates/{id}/documents: documents (files or HTML) added at a position or at the end with their own fields
(form fields, text tags, HTML field tags), replaced (the old fields moved onto the new document's pages where they
exist, unless it brings fields of its own), removed by position or name (with the fields only on them), and all
merged into one; each change raises `template.updated` and leaves the submissions made before with their own
documents."""

from __future__ import annotations

import asyncio
import gc
import io
from pathlib import Path
from typing import Any

import pytest
from docuseal import DocusealApi
from fpdf import FPDF
from pypdf import PdfReader, PdfWriter
from pypdf.annotations import Text

from signsvc.templates import html_documents
from tests.support.app import LIVE_KEY
from tests.support.documents import b64, pdf
from tests.support.pdf_text import page_texts
from tests.support.results import fetch
from tests.support.samples import form_pdf
from tests.support.signing import act, event_types, send, submission
from tests.support.system import PANGO


def width(text: str) -> float:
    document = FPDF(unit="pt", format="letter")
    document.set_font("helvetica", size=12)
    return document.get_string_width(text)


def box(y: float, page: int = 1, x: float = 0.1) -> dict[str, Any]:
    return {"x": x, "y": y, "w": 0.3, "h": 0.05, "page": page}


NDA_FIELDS = [
    {"name": "Name", "type": "text", "role": "Signer", "areas": [box(0.1)]},
    {"name": "Signature", "type": "signature", "role": "Signer", "areas": [box(0.2, page=2)]},
]
# A checkbox that another document's or field's conditions name.
GATE = {"uuid": "f-gate", "name": "Gate", "type": "checkbox", "role": "Signer", "required": False, "areas": [box(0.1)]}


async def make(api, *documents: dict[str, Any]) -> dict[str, Any]:
    reply = await api.post("/api/templates", json={"name": "Deal", "documents": list(documents)})
    assert reply.status == 201, reply.json
    return reply.json


def document(name: str, pages: int = 1, fields: list[dict[str, Any]] | None = None, **more: Any) -> dict[str, Any]:
    return {"name": name, "file": b64(pdf(pages)), "fields": fields or [], **more}


async def change(api, template_id: int, **body: Any) -> dict[str, Any]:
    reply = await api.put(f"/api/templates/{template_id}/documents", json=body)
    assert reply.status == 200, reply.json
    return reply.json


async def refused(api, template_id: int, **body: Any) -> tuple[int, Any]:
    reply = await api.put(f"/api/templates/{template_id}/documents", json=body)
    return reply.status, reply.json


def names(template: dict[str, Any]) -> list[str]:
    return [item["name"] for item in template["schema"]]


def without_areas(fields: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{key: value for key, value in f.items() if key != "areas"} for f in fields]


async def page_count(api, url: str) -> int:
    return len(PdfReader(io.BytesIO(await fetch(api, url))).pages)


# Add


async def test_a_document_is_added_at_the_end_and_nothing_else_changes(api, db):
    template = await make(api, document("nda", 2, NDA_FIELDS))
    changed = await change(api, template["id"], documents=[{"name": "annex.pdf", "file": b64(pdf(1))}])
    assert names(changed) == ["nda", "annex"]
    assert changed["documents"][0] == template["documents"][0]
    assert changed["schema"][1]["attachment_uuid"] == changed["documents"][1]["uuid"]
    assert (changed["fields"], changed["submitters"]) == (template["fields"], template["submitters"])
    assert await event_types(db, "template", template["id"]) == ["template.created", "template.updated"]
    combined = (await api.get(f"/api/templates/{template['id']}/pdf")).json
    assert await page_count(api, combined["pdf_url"]) == 3


async def test_a_document_added_at_a_position_takes_it_and_brings_its_form_fields(api):
    template = await make(api, document("nda", 2, NDA_FIELDS))
    changed = await change(api, template["id"], documents=[{"name": "form", "file": b64(form_pdf()), "position": 0}])
    assert names(changed) == ["form", "nda"]
    form_uuid = changed["documents"][0]["uuid"]
    added = changed["fields"][2:]
    assert changed["fields"][:2] == template["fields"]
    assert {f["name"] for f in added} >= {"full_name", "zip", "birth_date", "color"}
    assert {a["attachment_uuid"] for f in added for a in f["areas"]} == {form_uuid}
    # Form fields name no role: they go to the first one.
    assert {f["submitter_uuid"] for f in added} == {template["submitters"][0]["uuid"]}


async def test_a_position_past_the_end_is_422(api):
    template = await make(api, document("a"), document("b"))
    assert await refused(api, template["id"], documents=[{"file": b64(pdf(1)), "position": 3}]) == (
        422,
        {"error": "documents[0].position 3 does not exist: a document is added at a position from 0 to 2"},
    )


async def test_changes_apply_in_order_each_position_among_the_documents_as_the_changes_before_left_them(api):
    template = await make(api, document("a"), document("b"))
    changed = await change(
        api,
        template["id"],
        documents=[
            {"name": "c", "file": b64(pdf(1)), "position": 1},
            {"remove": True, "position": 0},
            {"name": "d", "file": b64(pdf(1)), "position": 2},
        ],
    )
    assert names(changed) == ["c", "b", "d"]


# Replace


async def test_a_replaced_document_keeps_its_fields_on_the_pages_the_new_one_has_and_drops_the_others(api):
    template = await make(api, document("nda", 2, NDA_FIELDS), document("annex", 1))
    changed = await change(
        api, template["id"], documents=[{"name": "nda v2", "file": b64(pdf(1)), "replace": True, "position": 0}]
    )
    new_uuid = changed["documents"][0]["uuid"]
    assert new_uuid != template["documents"][0]["uuid"]
    assert changed["documents"][1] == template["documents"][1]
    assert changed["schema"] == [
        {"attachment_uuid": new_uuid, "name": "nda v2"},
        {"attachment_uuid": template["documents"][1]["uuid"], "name": "annex"},
    ]
    name = template["fields"][0]
    assert changed["fields"] == [{**name, "areas": [{**name["areas"][0], "attachment_uuid": new_uuid}]}]


async def test_a_replacement_with_a_form_of_its_own_brings_its_fields_instead_of_the_old_ones(api):
    template = await make(api, document("nda", 2, NDA_FIELDS))
    changed = await change(
        api, template["id"], documents=[{"name": "form", "file": b64(form_pdf()), "replace": True, "position": 0}]
    )
    assert names(changed) == ["form"]
    assert "Name" not in {f["name"] for f in changed["fields"]} and "full_name" in {
        f["name"] for f in changed["fields"]
    }
    assert {a["attachment_uuid"] for f in changed["fields"] for a in f["areas"]} == {changed["documents"][0]["uuid"]}


async def test_a_replaced_document_keeps_its_conditions(api):
    conditions = [{"field_uuid": "f-gate", "action": "checked"}]
    template = await make(api, document("main", 1, [GATE]), document("annex", 1, conditions=conditions))
    changed = await change(
        api, template["id"], documents=[{"name": "annex v2", "file": b64(pdf(1)), "replace": True, "position": 1}]
    )
    assert changed["schema"][1] == {
        "attachment_uuid": changed["documents"][1]["uuid"],
        "name": "annex v2",
        "conditions": conditions,
    }


async def test_replacing_needs_a_position_that_exists(api):
    template = await make(api, document("nda", 2, NDA_FIELDS))
    new = {"file": b64(pdf(1)), "replace": True}
    assert await refused(api, template["id"], documents=[new]) == (
        422,
        {"error": "documents[0].position is required to replace a document"},
    )
    assert await refused(api, template["id"], documents=[{**new, "position": 1}]) == (
        422,
        {"error": "documents[0].position 1 does not exist: the template has 1 document (positions from 0)"},
    )


# Remove


async def test_a_removed_document_takes_the_fields_only_on_it_and_its_areas_on_the_others(api):
    initials = {"name": "Initials", "type": "initials", "role": "Signer", "areas": [box(0.4)]}
    template = await make(api, document("nda", 2, NDA_FIELDS), document("annex", 1, [initials]))
    nda, annex = (d["uuid"] for d in template["documents"])
    # Initials on both documents: stored by PUT /templates, pages 0-based there.
    on_both = [{**box(0.3, page=0), "attachment_uuid": nda}, {**box(0.4, page=0), "attachment_uuid": annex}]
    fields = [*template["fields"][:2], {**template["fields"][2], "areas": on_both}]
    assert (await api.put(f"/api/templates/{template['id']}", json={"fields": fields})).status == 200
    changed = await change(api, template["id"], documents=[{"remove": True, "name": "nda"}])
    assert names(changed) == ["annex"]
    assert [(f["name"], f["areas"]) for f in changed["fields"]] == [
        ("Initials", [{**box(0.4, page=0), "attachment_uuid": annex}])
    ]
    again = await change(
        api, template["id"], documents=[{"name": "new", "file": b64(pdf(1))}, {"remove": True, "position": 0}]
    )
    assert names(again) == ["new"] and again["fields"] == []


async def test_removing_a_document_whose_field_a_remaining_condition_names_is_422_naming_both(api):
    shown = {
        "name": "Details",
        "type": "text",
        "role": "Signer",
        "areas": [box(0.1)],
        "conditions": [{"field_uuid": "f-gate", "action": "checked"}],
    }
    template = await make(api, document("main", 1, [GATE]), document("annex", 1, [shown]))
    assert await refused(api, template["id"], documents=[{"remove": True, "position": 0}]) == (
        422,
        {"error": "documents[0] takes away the field Gate, which the field Details names: change that first"},
    )


async def test_a_document_that_is_not_there_or_the_last_one_cannot_be_removed(api):
    template = await make(api, document("nda", 2, NDA_FIELDS))
    assert await refused(api, template["id"], documents=[{"remove": True, "name": "other"}]) == (
        422,
        {"error": "documents[0].name names no document of the template: other"},
    )
    assert await refused(api, template["id"], documents=[{"remove": True}]) == (
        422,
        {"error": "documents[0] needs a position or a name to remove a document"},
    )
    assert await refused(api, template["id"], documents=[{"remove": True, "position": 0}]) == (
        422,
        {"error": "documents would remove every document: a template keeps at least one"},
    )


# Merge


async def test_merge_makes_one_document_of_every_page_in_order_and_moves_the_areas_to_their_pages(api):
    annex_field = {"name": "Annex Name", "type": "text", "role": "Signer", "areas": [box(0.5)]}
    template = await make(api, document("nda", 2, NDA_FIELDS), document("annex", 1, [annex_field]))
    changed = await change(api, template["id"], documents=[{"name": "extra", "file": b64(pdf(2))}], merge=True)
    merged_uuid = changed["documents"][0]["uuid"]
    assert changed["schema"] == [{"attachment_uuid": merged_uuid, "name": "Deal"}]
    assert [(f["name"], [(a["attachment_uuid"], a["page"]) for a in f["areas"]]) for f in changed["fields"]] == [
        ("Name", [(merged_uuid, 0)]),
        ("Signature", [(merged_uuid, 1)]),
        ("Annex Name", [(merged_uuid, 2)]),
    ]
    assert without_areas(changed["fields"]) == without_areas(template["fields"])
    assert await page_count(api, changed["documents"][0]["url"]) == 5
    shown = (await api.get(f"/api/templates/{template['id']}/pdf")).json
    assert shown["pdf_url"] == changed["documents"][0]["url"]


async def test_merge_is_refused_while_a_document_has_conditions(api):
    template = await make(
        api,
        document("main", 1, [GATE]),
        document("annex", 1, conditions=[{"field_uuid": "f-gate", "action": "checked"}]),
    )
    assert await refused(api, template["id"], merge=True) == (
        422,
        {
            "error": "merge cannot make one document of documents that apply under conditions: annex has "
            "conditions; remove them first"
        },
    )


# The request


async def test_nothing_to_do_a_file_to_remove_replace_and_remove_at_once_and_a_bad_file_are_422_naming_them(api):
    template = await make(api, document("nda"))
    assert await refused(api, template["id"]) == (
        422,
        {"error": "documents must name documents to add, replace or remove (or merge must be true)"},
    )
    assert await refused(api, template["id"], documents=[{"remove": True, "position": 0, "file": b64(pdf(1))}]) == (
        422,
        {"error": "documents[0].file is not taken by a change that removes a document"},
    )
    assert await refused(api, template["id"], documents=[{"remove": True, "replace": True, "position": 0}]) == (
        422,
        {"error": "documents[0] cannot both replace and remove a document"},
    )
    status, body = await refused(api, template["id"], documents=[{"file": "not a document!"}])
    assert status == 422 and body["error"].startswith("documents[0].file"), body


async def test_a_refused_change_writes_no_file_and_changes_nothing(api, config, db):
    template = await make(api, document("nda", 2, NDA_FIELDS))
    before = sorted(Path(config.data_dir).rglob("*"))
    body = {"documents": [{"name": "annex", "file": b64(pdf(3))}, {"remove": True, "position": 5}]}
    assert (await api.put(f"/api/templates/{template['id']}/documents", json=body)).status == 422
    assert sorted(Path(config.data_dir).rglob("*")) == before
    assert (await api.get(f"/api/templates/{template['id']}")).json == template
    assert await event_types(db, "template", template["id"]) == ["template.created"]


async def test_another_accounts_template_is_403(api, other_account):
    template = await make(api, document("nda"))
    reply = await api.with_key(other_account.live).put(
        f"/api/templates/{template['id']}/documents", json={"documents": [{"file": b64(pdf(1))}]}
    )
    assert (reply.status, reply.json) == (403, {"error": "Not authorized"})


# Submissions made before


async def test_a_submission_made_before_keeps_its_documents_and_is_signed_on_them(api, worker):
    template = await make(api, document("nda", 2, NDA_FIELDS))
    [signer] = await send(api, template["id"], {"email": "sig@example.com", "name": "Sig"})
    shown = (await api.get(f"/api/submissions/{signer['submission_id']}/documents")).json
    await change(
        api, template["id"], documents=[{"name": "v2", "file": b64(pdf(1)), "replace": True, "position": 0}], merge=True
    )
    assert (await api.get(f"/api/submissions/{signer['submission_id']}/documents")).json == shown
    values = {"Name": "Sig", "Signature": "Sig"}
    assert (await act(api, signer["slug"], "complete", {"values": values})).status == 200
    await worker.drain()
    signed = (await submission(api, signer["submission_id"]))["documents"]
    assert [d["name"] for d in signed] == ["nda"]
    assert await page_count(api, signed[0]["url"]) == 2


async def test_a_webhook_endpoint_receives_template_updated_with_the_changed_template(api, worker, receiver):
    template = await make(api, document("nda", 2, NDA_FIELDS))
    reply = await api.post("/api/webhooks", json={"url": receiver.url(), "events": ["template.updated"]})
    assert reply.status == 200, reply.json
    changed = await change(api, template["id"], documents=[{"name": "annex", "file": b64(pdf(1))}])
    await worker.drain()
    [received] = receiver.received
    assert received.json["event_type"] == "template.updated"
    assert (received.json["data"]["id"], received.json["data"]["schema"]) == (changed["id"], changed["schema"])


# HTML documents


def boxed(tag: str, name: str, role: str = "Signer", **attributes: str) -> str:
    """HTML whose field tag is a box 1 in from the left of the body and 2 in below its top, 2 x 0.5 in."""
    more = "".join(f' {key}="{value}"' for key, value in attributes.items())
    return (
        '<style>body { margin: 0 }</style><div style="padding-top: 2in; padding-left: 1in">'
        f'<{tag} name="{name}" role="{role}"{more} style="width: 2in; height: 0.5in"></{tag}></div>'
    )


def assert_at_box(area: dict[str, Any], width_in: float, height_in: float) -> None:
    """The area is the box `boxed` draws, on a page of this size with margins of 0.5 in."""
    expected = {"x": 1.5 / width_in, "y": 2.5 / height_in, "w": 2 / width_in, "h": 0.5 / height_in}
    assert {key: area[key] for key in expected} == pytest.approx(expected, abs=1e-6)


def field_named(template: dict[str, Any], name: str) -> dict[str, Any]:
    return next(found for found in template["fields"] if found["name"] == name)


@PANGO
async def test_an_html_document_is_added_with_its_field_tags_fields_at_their_boxes_roles_by_name(api):
    template = await make(api, document("nda", 2, NDA_FIELDS))
    html = boxed("signature-field", "Witness Signature", role="Witness") + boxed("text-field", "Title")
    changed = await change(
        api, template["id"], documents=[{"name": "Annex", "html": html, "size": "A4", "position": 0}]
    )
    assert names(changed) == ["Annex", "nda"]
    annex = changed["documents"][0]["uuid"]
    assert changed["fields"][:2] == template["fields"]
    signer = template["submitters"][0]
    assert changed["submitters"] == [signer, {"name": "Witness", "uuid": changed["submitters"][1]["uuid"]}]
    witness = field_named(changed, "Witness Signature")
    assert (witness["type"], witness["submitter_uuid"]) == ("signature", changed["submitters"][1]["uuid"])
    assert field_named(changed, "Title")["submitter_uuid"] == signer["uuid"]
    [area] = witness["areas"]
    assert (area["attachment_uuid"], area["page"]) == (annex, 0)
    # Its size is the item's own: A4, 210 x 297 mm.
    assert_at_box(area, 210 / 25.4, 297 / 25.4)
    box = PdfReader(io.BytesIO(await fetch(api, changed["documents"][0]["url"]))).pages[0].mediabox
    assert (float(box.width), float(box.height)) == pytest.approx((595.28, 841.89), abs=0.01)


@PANGO
async def test_an_html_document_with_field_tags_replaces_one_bringing_its_fields_instead_of_the_old_ones(api):
    template = await make(api, document("nda", 2, NDA_FIELDS), document("annex", 1))
    html = boxed("text-field", "Company", role="Signer") + boxed("text-field", "Name", role="Signer")
    changed = await change(
        api, template["id"], documents=[{"name": "nda v2", "html": html, "replace": True, "position": 0}]
    )
    assert names(changed) == ["nda v2", "annex"]
    new_uuid = changed["documents"][0]["uuid"]
    assert changed["documents"][1] == template["documents"][1]
    # The old Name and Signature went with the old document; Name is the new document's own field now.
    assert [f["name"] for f in changed["fields"]] == ["Company", "Name"]
    assert template["fields"][0]["uuid"] not in {f["uuid"] for f in changed["fields"]}
    assert {a["attachment_uuid"] for f in changed["fields"] for a in f["areas"]} == {new_uuid}
    assert changed["submitters"] == template["submitters"]
    assert_at_box(field_named(changed, "Company")["areas"][0], 8.5, 11)


@PANGO
async def test_the_html_documents_of_a_change_share_one_render_time_budget(api, monkeypatch):
    # Each document (16 pages, about 0.4 s) renders within the bound, all 20 together in several times more, also
    # on a machine a few times faster: the request stops when the bound is spent.
    monkeypatch.setattr(html_documents, "RENDER_SECONDS", 1.5)
    template = await make(api, document("nda", 2, NDA_FIELDS))
    page = "".join(f"<p>Paragraph {index} of a long document.</p>" for index in range(800))
    documents = [{"name": f"annex {index}", "html": page} for index in range(20)]
    status, body = await refused(api, template["id"], documents=documents)
    assert status == 422
    assert body["error"].endswith(": The HTML documents took longer than 1.5 seconds to render, the most for a request")


@PANGO
async def test_an_html_document_without_field_tags_takes_the_replaced_documents_fields(api):
    template = await make(api, document("nda", 2, NDA_FIELDS))
    html = '<p>Page one</p><p style="break-before: page">Page two</p>'
    changed = await change(api, template["id"], documents=[{"html": html, "replace": True, "position": 0}])
    new_uuid = changed["documents"][0]["uuid"]
    assert changed["fields"] == [
        {**f, "areas": [{**a, "attachment_uuid": new_uuid} for a in f["areas"]]} for f in template["fields"]
    ]
    # Named as POST /templates/html names a document without a name: a random uuid.
    assert len(changed["schema"][0]["name"]) == 36


@PANGO
@pytest.mark.parametrize(
    ("item", "error"),
    [
        ({"html": "<p>x</p>", "file": b64(pdf(1))}, "documents[0] takes a file or html, not both"),
        ({"html": "<p>x</p>", "remove": True, "position": 0}, "documents[0].html is not taken by a change that "),
        ({"html": " "}, "documents[0].html is required: the HTML of the document, a non-empty string"),
        ({"html": "<p>x</p>", "size": "B5"}, "documents[0].size must be one of: Letter, Legal, Tabloid"),
        (
            {"html": '<text-field name="Name" colour="red"></text-field>'},
            'documents[0].html: tag <text-field name="Name" colour="red">: colour is not a tag attribute',
        ),
        (
            {"html": '<text-field name="Company" condition="Plan:Pro"></text-field>'},
            'documents[0].tags[0].conditions names no field of the template: Plan (tag <text-field name="Company"',
        ),
    ],
)
async def test_bad_html_documents_are_422_naming_them(api, item, error):
    template = await make(api, document("nda"))
    status, body = await refused(api, template["id"], documents=[item])
    assert status == 422 and body["error"].startswith(error), body


@PANGO
@pytest.mark.filterwarnings("ignore::ResourceWarning", "ignore::pytest.PytestUnraisableExceptionWarning")
async def test_the_official_python_client_adds_an_html_document(api):
    client = DocusealApi(key=LIVE_KEY, url=f"http://{api.client.host}:{api.client.port}/api")
    template = await make(api, document("nda", 2, NDA_FIELDS))
    body = {"documents": [{"name": "Annex", "html": boxed("initials-field", "Initials")}]}
    changed = await asyncio.to_thread(client.update_template_documents, template["id"], body)
    assert names(changed) == ["nda", "Annex"]
    assert field_named(changed, "Initials")["areas"][0]["attachment_uuid"] == changed["documents"][1]["uuid"]
    gc.collect()  # the client's sockets, which it never closes, while this test's warning filter applies


# Text tags of added and replacing files


def tagged_pdf(*lines: tuple[int, str]) -> bytes:
    """A Letter PDF in Helvetica 12, each (page, text) written 1 in from the left, 2 in from the top."""
    document = FPDF(unit="pt", format="letter")
    document.set_font("helvetica", size=12)
    for page in range(max(line[0] for line in lines)):
        document.add_page()
        for number, text in lines:
            if number == page + 1:
                document.text(72, 144, text)
    return bytes(document.output())


async def test_an_added_pdf_s_text_tags_become_fields_and_leave_the_stored_pdf(api):
    template = await make(api, document("nda", 2, NDA_FIELDS))
    tagged = tagged_pdf(
        (1, "Initials {{Initials;type=initials;role=Witness}} here"),
        (2, "Again {{Initials;type=initials;role=Witness}} and {{Details;role=Witness;condition=Name}}"),
    )
    changed = await change(api, template["id"], documents=[{"name": "annex", "file": b64(tagged)}])
    annex = changed["documents"][1]["uuid"]
    assert [role["name"] for role in changed["submitters"]] == ["Signer", "Witness"]
    witness = changed["submitters"][1]["uuid"]
    initials, details = changed["fields"][2:]
    # Same-name tags are one field with an area at each tag.
    assert (initials["name"], initials["type"], initials["submitter_uuid"]) == ("Initials", "initials", witness)
    assert [(a["attachment_uuid"], a["page"]) for a in initials["areas"]] == [(annex, 0), (annex, 1)]
    assert initials["areas"][0]["x"] == pytest.approx((72 + width("Initials ")) / 612, abs=0.002)
    assert initials["areas"][0]["y"] == pytest.approx(144 / 792, abs=0.02)
    # A condition names a field by name: here one the template had.
    name_uuid = template["fields"][0]["uuid"]
    assert details["conditions"] == [{"field_uuid": name_uuid, "action": "not_empty"}]
    texts = page_texts(await fetch(api, changed["documents"][1]["url"]))
    assert "Initials" in texts[0] and "here" in texts[0] and "Again" in texts[1]
    assert not any("{{" in text or "type=" in text for text in texts), texts


def with_noted_tags(pdf_data: bytes, *tags: str) -> bytes:
    """The PDF with each tag as the text of a note on its first page (a tag the text scan also reads)."""
    writer = PdfWriter(clone_from=io.BytesIO(pdf_data))
    for index, tag in enumerate(tags):
        writer.add_annotation(0, Text(rect=(300, 300 + 30 * index, 400, 320 + 30 * index), text=tag))
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


async def test_an_added_pdf_s_form_fields_win_over_its_tags_of_the_same_name(api):
    template = await make(api, document("nda", 2, NDA_FIELDS))
    tagged = with_noted_tags(form_pdf(), "{{full_name;type=number}}", "{{Extra;type=date}}")
    changed = await change(api, template["id"], documents=[{"file": b64(tagged)}])
    added = changed["fields"][2:]
    assert [f["type"] for f in added if f["name"] == "full_name"] == ["text"]
    assert [f["type"] for f in added if f["name"] == "Extra"] == ["date"]


async def test_remove_tags_false_keeps_the_tags_in_the_stored_pdf_and_still_makes_their_fields(api):
    template = await make(api, document("nda", 2, NDA_FIELDS))
    tagged = tagged_pdf((1, "Date {{When;type=date}}"))
    changed = await change(api, template["id"], documents=[{"file": b64(tagged)}], remove_tags=False)
    assert field_named(changed, "When")["areas"][0]["attachment_uuid"] == changed["documents"][1]["uuid"]
    assert "{{When;type=date}}" in page_texts(await fetch(api, changed["documents"][1]["url"]))[0]


async def test_a_replacing_pdf_with_text_tags_brings_its_fields_instead_of_the_old_ones(api):
    template = await make(api, document("nda", 2, NDA_FIELDS), document("annex", 1))
    tagged = tagged_pdf((1, "Sign {{Signature;type=signature;role=Signer}}"))
    changed = await change(
        api, template["id"], documents=[{"name": "nda v2", "file": b64(tagged), "replace": True, "position": 0}]
    )
    [signature] = changed["fields"]
    assert signature["uuid"] != template["fields"][1]["uuid"]
    assert (signature["name"], signature["submitter_uuid"]) == ("Signature", template["submitters"][0]["uuid"])
    assert [a["attachment_uuid"] for a in signature["areas"]] == [changed["documents"][0]["uuid"]]


async def test_a_bad_text_tag_is_a_422_naming_the_change_and_the_tag_and_changes_nothing(api):
    template = await make(api, document("nda", 2, NDA_FIELDS))
    tagged = tagged_pdf((1, "{{Sign;type=seal}}"))
    status, body = await refused(api, template["id"], documents=[{"file": b64(pdf(1))}, {"file": b64(tagged)}])
    assert status == 422 and body["error"].startswith("documents[1]: tag {{Sign;type=seal}}: type must be"), body
    assert (await api.get(f"/api/templates/{template['id']}")).json == template


async def test_more_than_20_html_documents_in_one_request_is_422_before_any_is_rendered(api):
    template = await make(api, document("nda"))
    assert await refused(api, template["id"], documents=[{"html": "<p>x</p>"}] * 21) == (
        422,
        {"error": "documents has 21 html documents: at most 20"},
    )


async def test_tags_that_would_pass_a_templates_1000_fields_are_422(api):
    template = await make(api, document("nda", 1, [{"name": f"F{i}", "role": "Signer"} for i in range(1000)]))
    tagged = tagged_pdf((1, "{{Extra}}"))
    assert await refused(api, template["id"], documents=[{"file": b64(tagged)}]) == (
        422,
        {"error": "documents[0] would make 1001 fields: a template has at most 1000"},
    )
