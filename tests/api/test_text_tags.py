"""Text tags: `{{Name;type=...;role=...}}` written in a document's text become the template's fields at the tags'
boxes, and (unless remove_tags is false) leave the stored document and the signed one, with the text around them
kept in place. Explicit areas may be given in PDF points."""

from __future__ import annotations

import io

import docx
import pypdfium2 as pdfium
import pytest
from fpdf import FPDF

from tests.support.documents import b64
from tests.support.pdf_text import page_texts, pdftotext
from tests.support.results import fetch
from tests.support.signing import act, send, submission
from tests.support.system import PDFTOTEXT, SOFFICE

WIDTH, HEIGHT = 612.0, 792.0  # Letter, in points
SIZE = 12


def tagged_pdf(*lines: tuple[int, float, float, str], bold_from: str | None = None) -> bytes:
    """A Letter PDF in Helvetica 12 with each (page, x, baseline, text) written at its place; the text from
    `bold_from` on (within a line) in another text object, in bold."""
    document = FPDF(unit="pt", format="letter")
    document.set_font("helvetica", size=SIZE)
    for page in range(max(line[0] for line in lines)):
        document.add_page()
        for number, x, baseline, text in lines:
            if number != page + 1:
                continue
            first, marker, rest = text.partition(bold_from) if bold_from else (text, "", "")
            document.set_font("helvetica", size=SIZE)
            document.text(x, baseline, first)
            if marker:
                start = x + document.get_string_width(first)
                document.set_font("helvetica", "B", size=SIZE)
                document.text(start, baseline, marker + rest)
    return bytes(document.output())


def width(text: str) -> float:
    document = FPDF(unit="pt", format="letter")
    document.set_font("helvetica", size=SIZE)
    return document.get_string_width(text)


async def created(api, pdf: bytes, fields: list | None = None, **body):
    document = {"name": "contract", "file": b64(pdf), **({"fields": fields} if fields is not None else {})}
    reply = await api.post("/api/templates/pdf", json={"name": "Contract", "documents": [document], **body})
    assert reply.status == 201, reply.json
    return reply.json


async def refusal(api, pdf: bytes) -> str:
    reply = await api.post("/api/templates", json={"documents": [{"name": "contract", "file": b64(pdf)}]})
    assert reply.status == 422, reply.json
    return reply.json["error"]


def by_name(template) -> dict:
    return {field["name"]: field for field in template["fields"]}


def assert_at_tag(area: dict, x: float, baseline: float, before: str, tag: str) -> None:
    """The area is the tag's box: from the tag's first glyph to its last, as tall as the line of text."""
    assert area["x"] * WIDTH == pytest.approx(x + width(before), abs=0.5)
    assert area["w"] * WIDTH == pytest.approx(width(tag), abs=1)
    assert baseline - 1.2 * SIZE <= area["y"] * HEIGHT <= baseline - 0.6 * SIZE
    assert baseline <= (area["y"] + area["h"]) * HEIGHT <= baseline + 0.4 * SIZE


def word_x(pdf: bytes, word: str, page: int = 0) -> float:
    """PDFium's left edge of the first glyph of `word` on the page."""
    document = pdfium.PdfDocument(pdf)
    text_page = document[page].get_textpage()
    text = text_page.get_text_range()
    assert word in text, text
    return text_page.get_charbox(text.index(word))[0]


async def stored_pdf(api, template) -> bytes:
    return await fetch(api, template["documents"][0]["url"])


def all_texts(pdf: bytes) -> list[str]:
    """The text as poppler, pypdf and PDFium extract it."""
    document = pdfium.PdfDocument(pdf)
    pdfium_text = "\n".join(document[i].get_textpage().get_text_range() for i in range(len(document)))
    return [pdftotext(pdf), "\n".join(page_texts(pdf)), pdfium_text]


# Fields from tags


async def test_tags_become_fields_of_their_roles_at_the_boxes_the_tags_are_written_in(api):
    pdf = tagged_pdf(
        (1, 72, 100, "Name: {{Full Name;role=Client}} (print)"),
        (1, 300, 400, "{{Signature;type=signature;role=Client;format=drawn}}"),
        (2, 90, 250, "Start {{Start;type=date;role=Manager;required=false;format=DD/MM/YYYY}}"),
    )
    template = await created(api, pdf)
    fields = by_name(template)
    assert [role["name"] for role in template["submitters"]] == ["Client", "Manager"]
    client, manager = (role["uuid"] for role in template["submitters"])
    name, signature, start = fields["Full Name"], fields["Signature"], fields["Start"]
    assert (name["type"], name["submitter_uuid"], name["required"]) == ("text", client, True)
    assert (signature["type"], signature["preferences"]) == ("signature", {"format": "drawn"})
    assert (start["type"], start["submitter_uuid"], start["required"]) == ("date", manager, False)
    assert start["preferences"] == {"format": "DD/MM/YYYY"}
    assert_at_tag(name["areas"][0], 72, 100, "Name: ", "{{Full Name;role=Client}}")
    assert_at_tag(signature["areas"][0], 300, 400, "", "{{Signature;type=signature;role=Client;format=drawn}}")
    assert_at_tag(
        start["areas"][0], 90, 250, "Start ", "{{Start;type=date;role=Manager;required=false;format=DD/MM/YYYY}}"
    )
    assert [field["areas"][0]["page"] for field in (name, signature, start)] == [0, 0, 1]
    assert {area["attachment_uuid"] for field in fields.values() for area in field["areas"]} == {
        template["documents"][0]["uuid"]
    }


async def test_radio_option_tags_make_one_field_with_an_option_per_tag_and_a_condition_names_it(api):
    pdf = tagged_pdf(
        (1, 72, 100, "{{Plan;type=radio;role=Client;option=Basic}} Basic"),
        (1, 72, 130, "{{Plan;type=radio;role=Client;option=Pro}} Pro"),
        (1, 72, 160, "Company: {{Company;role=Client;condition=Plan:Pro}}"),
        (1, 72, 190, "{{Agree;type=checkbox;role=Client;required=false}} {{Details;role=Client;condition=Agree}}"),
    )
    fields = by_name(await created(api, pdf))
    plan = fields["Plan"]
    assert [option["value"] for option in plan["options"]] == ["Basic", "Pro"]
    basic, pro = (option["uuid"] for option in plan["options"])
    assert [area["option_uuid"] for area in plan["areas"]] == [basic, pro]
    assert_at_tag(plan["areas"][1], 72, 130, "", "{{Plan;type=radio;role=Client;option=Pro}}")
    assert fields["Company"]["conditions"] == [{"field_uuid": plan["uuid"], "action": "equal", "value": pro}]
    assert fields["Details"]["conditions"] == [{"field_uuid": fields["Agree"]["uuid"], "action": "not_empty"}]


async def test_tags_of_the_same_name_and_role_are_one_field_with_an_area_each_the_first_type_winning(api):
    pdf = tagged_pdf((1, 72, 100, "{{Full Name;type=text}}"), (1, 72, 300, "{{Full Name;type=signature}}"))
    [field] = (await created(api, pdf))["fields"]
    assert field["type"] == "text"
    assert_at_tag(field["areas"][0], 72, 100, "", "{{Full Name;type=text}}")
    assert_at_tag(field["areas"][1], 72, 300, "", "{{Full Name;type=signature}}")


async def test_a_datenow_tag_is_a_readonly_date_of_the_day_of_signing(api):
    [field] = (await created(api, tagged_pdf((1, 72, 100, "Date: {{Date;type=datenow}}"))))["fields"]
    assert (field["type"], field["readonly"], field["default_value"]) == ("date", True, "{{date}}")


@PDFTOTEXT
async def test_a_tag_split_over_two_text_objects_is_found_and_removed(api):
    pdf = tagged_pdf((1, 72, 100, "Left {{Na me}} right"), bold_from="me}}")
    template = await created(api, pdf)
    assert [field["name"] for field in template["fields"]] == ["Na me"]
    stored = await stored_pdf(api, template)
    for text in all_texts(stored):
        assert "{{" not in text and "me}}" not in text and "Left" in text and "right" in text


async def test_explicit_fields_win_over_tags_of_the_same_name(api):
    pdf = tagged_pdf((1, 72, 100, "{{Full Name;type=signature}}"), (1, 72, 200, "{{Notes}}"))
    explicit = {"name": "full name", "type": "text", "areas": [{"x": 0.5, "y": 0.5, "w": 0.2, "h": 0.05, "page": 1}]}
    fields = by_name(await created(api, pdf, [explicit]))
    assert set(fields) == {"full name", "Notes"}
    assert fields["full name"]["type"] == "text"
    assert [(area["x"], area["y"]) for area in fields["full name"]["areas"]] == [(0.5, 0.5)]
    assert_at_tag(fields["Notes"]["areas"][0], 72, 200, "", "{{Notes}}")


# Removed from the stored and the signed document


@PDFTOTEXT
async def test_tags_are_removed_from_the_stored_document_and_the_text_around_stays_in_place(api):
    pdf = tagged_pdf(
        (1, 72, 100, "Name: {{Full Name;role=Client}} (print)"), (1, 72, 200, "Sign {{Sig;type=signature}}")
    )
    stored = await stored_pdf(api, await created(api, pdf))
    for text in all_texts(stored):
        assert "{{" not in text and "}}" not in text and "Full Name" not in text
        assert "Name:" in text and "(print)" in text and "Sign" in text
    assert word_x(stored, "Name:") == pytest.approx(word_x(pdf, "Name:"), abs=0.01)
    assert word_x(stored, "(print)") == pytest.approx(word_x(pdf, "(print)"), abs=0.01)


@PDFTOTEXT
async def test_the_signed_document_has_no_tags_and_its_values_where_the_tags_were(api, worker):
    pdf = tagged_pdf(
        (1, 72, 100, "Name: {{Full Name;role=Client}} (print)"),
        (1, 72, 200, "Signed: {{Signature;type=signature;role=Client}}"),
    )
    template = await created(api, pdf)
    [ann] = await send(api, template["id"], {"email": "ann@example.com", "name": "Ann"})
    values = {"Full Name": "Ann Able", "Signature": "Ann Able"}
    reply = await act(api, ann["slug"], "complete", {"values": values})
    assert reply.status == 200, reply.json
    await worker.drain()
    found = await submission(api, ann["submission_id"])
    assert found["status"] == "completed"
    signed = await fetch(api, found["documents"][0]["url"])
    for text in all_texts(signed):
        assert "{{" not in text and "Full Name" not in text
        assert "Ann Able" in text and "Name:" in text and "(print)" in text
    assert word_x(signed, "(print)") == pytest.approx(word_x(pdf, "(print)"), abs=0.01)


@PDFTOTEXT
async def test_remove_tags_false_keeps_the_tag_text_and_still_makes_the_fields(api):
    pdf = tagged_pdf((1, 72, 100, "Name: {{Full Name;role=Client}} (print)"))
    template = await created(api, pdf, remove_tags=False)
    assert [field["name"] for field in template["fields"]] == ["Full Name"]
    for text in all_texts(await stored_pdf(api, template)):
        assert "{{Full Name;role=Client}}" in text


@SOFFICE
@PDFTOTEXT
async def test_text_tags_in_an_office_document_work_through_its_conversion(api):
    document = docx.Document()
    document.add_paragraph("Signed by {{Client Name;role=Client}} today")
    paragraph = document.add_paragraph("Signature: ")
    paragraph.add_run("{{Sig;type=signature;role=Client}}").bold = True
    paragraph.add_run(" end")
    buffer = io.BytesIO()
    document.save(buffer)
    reply = await api.post(
        "/api/templates", json={"documents": [{"name": "terms.docx", "file": b64(buffer.getvalue())}]}
    )
    assert reply.status == 201, reply.json
    fields = by_name(reply.json)
    assert (fields["Client Name"]["type"], fields["Sig"]["type"]) == ("text", "signature")
    assert [role["name"] for role in reply.json["submitters"]] == ["Client"]
    for text in all_texts(await stored_pdf(api, reply.json)):
        assert "{{" not in text and "Signed by" in text and "today" in text and "end" in text


# Refused


async def test_a_bad_tag_is_422_naming_the_tag_and_its_attribute(api):
    assert (await refusal(api, tagged_pdf((1, 72, 100, "{{Sign;type=seal}}")))).startswith(
        "documents[0]: tag {{Sign;type=seal}}: type must be one of: text, signature,"
    )
    assert await refusal(api, tagged_pdf((1, 72, 100, "{{Sign;colour=red}}"))) == (
        "documents[0]: tag {{Sign;colour=red}}: colour is not a tag attribute: use name, type, role, default, required,"
        " readonly, hidden, title, description, options, option, condition, pattern, format, min, max, font, font_size,"
        " font_type, color, align, valign, mask, price, currency, method, width, height"
    )
    assert await refusal(api, tagged_pdf((1, 72, 100, "{{Sign;required=maybe}}"))) == (
        "documents[0]: tag {{Sign;required=maybe}}: required must be true or false, not 'maybe'"
    )


async def test_a_tag_condition_naming_no_field_is_422_quoting_the_tag(api):
    assert await refusal(api, tagged_pdf((1, 72, 100, "{{Company;condition=Plan:Pro}}"))) == (
        "documents[0].tags[0].conditions names no field of the template: Plan (tag {{Company;condition=Plan:Pro}})"
    )


# Explicit areas in points or fractions


async def test_an_area_with_a_value_above_1_is_in_points_from_the_top_left_of_its_page(api):
    pdf = tagged_pdf((1, 72, 100, "Contract"), (2, 72, 100, "Page two"))
    fields = [
        {"name": "Points", "areas": [{"x": 72, "y": 79.2, "w": 306, "h": 39.6, "page": 2}]},
        {"name": "Fractions", "areas": [{"x": 0.5, "y": 0.25, "w": 0.25, "h": 0.05, "page": 1}]},
        {"name": "Mixed", "areas": [{"x": 61.2, "y": 0.5, "w": 0.5, "h": 1, "page": 1}]},
    ]
    stored = by_name(await created(api, pdf, fields))
    [points], [fractions], [mixed] = (stored[name]["areas"] for name in ("Points", "Fractions", "Mixed"))
    assert (points["x"], points["y"], points["w"], points["h"], points["page"]) == pytest.approx(
        (72 / WIDTH, 0.1, 0.5, 0.05, 1)
    )
    assert (fractions["x"], fractions["y"], fractions["w"], fractions["h"]) == (0.5, 0.25, 0.25, 0.05)
    assert (mixed["x"], mixed["y"], mixed["w"], mixed["h"]) == pytest.approx(
        (0.1, 0.5 / HEIGHT, 0.5 / WIDTH, 1 / HEIGHT)
    )


async def test_an_area_in_points_beyond_its_page_is_422(api):
    fields = [{"name": "Wide", "areas": [{"x": 400, "y": 10, "w": 300, "h": 20, "page": 1}]}]
    reply = await api.post(
        "/api/templates", json={"documents": [{"file": b64(tagged_pdf((1, 72, 100, "Text"))), "fields": fields}]}
    )
    assert (reply.status, reply.json["error"]) == (
        422,
        "documents[0].fields[0].areas[0] must lie inside the page, 612 x 792 points: x + w and y + h must not exceed"
        " them",
    )


# Bounds


def many_tags_pdf(count: int) -> bytes:
    """A Letter page of `count` `{{a}}` tags in small print, each shown by a text operation of its own."""
    document = FPDF(unit="pt", format="letter")
    document.add_page()
    document.set_font("helvetica", size=2)
    for index in range(count):
        document.text(10 + (index % 100) * 5.8, 20 + (index // 100) * 3, "{{a}}")
    return bytes(document.output())


@PDFTOTEXT
async def test_a_page_of_thousands_of_one_tag_text_operations_has_all_its_tags_removed(api):
    template = await created(api, many_tags_pdf(3000))
    [field] = template["fields"]
    assert (field["name"], len(field["areas"])) == ("a", 3000)
    for text in all_texts(await stored_pdf(api, template)):
        assert "{{" not in text and "}}" not in text


async def test_a_document_of_more_than_5000_text_tags_is_422_naming_the_bound(api):
    reply = await api.post("/api/templates/pdf", json={"documents": [{"file": b64(many_tags_pdf(5001))}]})
    assert (reply.status, reply.json["error"]) == (
        422,
        "documents[0].file: the document has more than 5000 text tags, the most a document may have",
    )
