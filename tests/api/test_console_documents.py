"""The console's templates from HTML and DOCX files and its send form's variables, over HTTP: an uploaded HTML
page is `POST /api/templates/html`'s template (its field tags the fields, the size chosen), a DOCX uploaded with
"keep [[variables]]" is a dynamic document with its `variables_schema`, and the send form asks for each variable of
the template's schema by its type and passes them as the submission's `variables`; what cannot be used is shown on
the form with the values kept, nothing made."""

from __future__ import annotations

import html
import io
import re
from typing import Any

import docx
from pypdf import PdfReader

from tests.api.test_console_submissions import ANN
from tests.support.console import Console, location, signed_in
from tests.support.documents import pdf
from tests.support.results import fetch
from tests.support.signing import submission, template
from tests.support.system import PANGO, SOFFICE

# The send form shows the variables in the order of their names: variable-0 is company, variable-5 total.
SCHEMA = {
    "company": {"type": "object", "properties": {"name": {"type": "string", "required": True}}},
    "invoices": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}}}},
    "is_vip": {"type": "boolean"},
    "signer_name": {"type": "string", "required": True, "description": "As on the passport"},
    "start": {"type": "date"},
    "total": {"type": "number"},
}


def text(reply) -> str:
    return reply.body.decode()


def shown(reply) -> str:
    """The page's text as read: tags left out, entities decoded."""
    return html.unescape(re.sub(r"<[^>]+>", " ", text(reply)))


async def upload(console: Console, data: bytes, filename: str, **form: Any) -> Any:
    file = io.BytesIO(data)
    file.name = filename
    await console.get("/console/templates/new")
    return await console.post("/console/templates/new", {"file": file, **form})


async def uploaded(api, console: Console, data: bytes, filename: str, **form: Any) -> dict[str, Any]:
    reply = await upload(console, data, filename, **form)
    assert reply.status == 303, shown(reply)
    template_id = int(location(reply).split("?")[0].rsplit("/", 1)[1])
    return (await api.get(f"/api/templates/{template_id}")).json


def order_docx() -> bytes:
    document = docx.Document()
    document.add_paragraph("Purchase agreement with [[signer_name]], total [[total]].")
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


async def with_variables(api, schema: dict[str, Any] = SCHEMA) -> int:
    template_id = await template(api)
    reply = await api.put(f"/api/templates/{template_id}", json={"variables_schema": schema})
    assert reply.status == 200, reply.json
    return template_id


async def posted(console: Console, template_id: int, **form: str) -> Any:
    await console.get(f"/console/templates/{template_id}/send")
    return await console.post(f"/console/templates/{template_id}/send", {**ANN, "order": "preserved", **form})


FILLED = {
    "variable-0": '{"name": "Acme"}',
    "variable-1": '[{"name": "Desk"}]',
    "variable-2": "on",
    "variable-3": "Ann Smith",
    "variable-4": "2026-12-01",
    "variable-5": "1250.5",
}


# Uploading


async def test_the_upload_page_says_it_takes_html_and_offers_the_dynamic_docx_choice_and_a_page_size(api):
    console = await signed_in(api)
    page = await console.get("/console/templates/new")
    assert "an HTML page (HTML, HTM), whose field tags become fields" in shown(page)
    body = text(page)
    assert ".html,.htm" in body and "text/html" in body
    assert 'id="dynamic" name="dynamic" type="checkbox" value="on" aria-describedby="dynamic-hint">' in body
    assert '<label for="size">' in body and '<option value="Letter" selected>' in body


@PANGO
async def test_an_uploaded_html_file_makes_a_template_whose_field_tag_is_its_field_on_the_chosen_page_size(api):
    console = await signed_in(api)
    page = '<h1>Lease</h1><p>Tenant: <text-field name="Tenant name" role="Tenant"></text-field></p>'
    made = await uploaded(api, console, page.encode(), "lease.html", size="A4", folder="Leases")

    assert made["name"] == "lease" and made["folder_name"] == "Leases"
    assert [(field["name"], field["type"]) for field in made["fields"]] == [("Tenant name", "text")]
    assert [role["name"] for role in made["submitters"]] == ["Tenant"]
    box = PdfReader(io.BytesIO(await fetch(api, made["documents"][0]["url"]))).pages[0].mediabox
    assert (round(float(box.width)), round(float(box.height))) == (595, 842), "A4 in points"


@PANGO
async def test_an_html_file_the_api_refuses_or_that_is_not_utf8_is_shown_on_the_form_with_the_values_kept(api):
    console = await signed_in(api)
    refused = await upload(console, b'<payment-field name="Fee"></payment-field>', "bad.htm", name="Bad one")
    assert refused.status == 422
    assert 'html: tag <payment-field name="Fee">: payment-field is not a field tag' in shown(refused)
    assert 'value="Bad one"' in text(refused)

    sized = await upload(console, b"<p>Hello</p>", "hello.html", size="B5")
    assert sized.status == 422 and "size must be one of: Letter, Legal" in shown(sized)

    latin = await upload(console, "<p>Café</p>".encode("latin-1"), "cafe.html", name="Cafe")
    assert latin.status == 422
    assert "This HTML file is not UTF-8 text." in shown(latin) and 'value="Cafe"' in text(latin)
    assert (await api.get("/api/templates")).json["data"] == []


@SOFFICE
async def test_a_docx_uploaded_to_keep_its_variables_is_a_dynamic_document_with_the_templates_variables_schema(api):
    console = await signed_in(api)
    made = await uploaded(api, console, order_docx(), "Order.docx", dynamic="on")

    assert made["name"] == "Order"
    assert made["variables_schema"] == {"signer_name": {"type": "string"}, "total": {"type": "string"}}
    assert made["schema"][0]["dynamic"] is True


@SOFFICE
async def test_a_docx_uploaded_without_the_choice_goes_the_office_way_with_no_variables(api):
    console = await signed_in(api)
    made = await uploaded(api, console, order_docx(), "Order.docx")
    assert made["variables_schema"] == {}
    assert "dynamic" not in made["schema"][0]


async def test_a_file_that_is_no_docx_uploaded_to_keep_variables_is_refused_on_the_form_with_the_values_kept(api):
    console = await signed_in(api)
    refused = await upload(console, pdf(), "Lease.pdf", dynamic="on", name="Lease")
    assert refused.status == 422
    assert "documents[0].file: the file is not a DOCX document" in shown(refused)
    assert 'value="on" aria-describedby="dynamic-hint" checked' in text(refused) and 'value="Lease"' in text(refused)
    assert (await api.get("/api/templates")).json["data"] == []


# Sending with variables


async def test_the_send_form_asks_for_each_variable_by_its_type_and_marks_the_required_ones(api):
    template_id = await with_variables(api)
    console = await signed_in(api)
    body = text(await console.get(f"/console/templates/{template_id}/send"))

    assert "<legend>Variables</legend>" in body
    assert '<label for="variable-3">signer_name (required)</label>' in body
    assert re.search(
        r'id="variable-3" name="variable-3" type="text"[^>]*aria-describedby="variable-3-hint" required', body
    )
    assert '<p class="hint" id="variable-3-hint">As on the passport</p>' in body
    assert 'id="variable-5" name="variable-5" type="number" step="any"' in body
    assert 'type="checkbox" id="variable-2" name="variable-2" value="on"' in body
    assert 'id="variable-4" name="variable-4" type="date"' in body
    assert '<textarea id="variable-1" name="variable-1"' in body and "a list in square brackets" in body
    assert '<textarea id="variable-0" name="variable-0"' in body and "an object in braces" in body
    assert '<label for="variable-0">company</label>' in body, "an object whose property is required is optional"


async def test_sending_passes_the_variables_as_their_types_to_the_submission(api):
    template_id = await with_variables(api)
    console = await signed_in(api)
    reply = await posted(console, template_id, **FILLED)
    assert reply.status == 303, shown(reply)

    made = await submission(api, int(location(reply).split("?")[0].rsplit("/", 1)[1]))
    assert made["variables"] == {
        "signer_name": "Ann Smith",
        "total": 1250.5,
        "is_vip": True,
        "start": "2026-12-01",
        "invoices": [{"name": "Desk"}],
        "company": {"name": "Acme"},
    }


async def test_empty_optional_variables_are_left_out_and_an_unticked_box_is_false(api):
    template_id = await with_variables(api)
    console = await signed_in(api)
    reply = await posted(console, template_id, **{"variable-3": "Ann", "variable-5": "12"})
    assert reply.status == 303, shown(reply)
    made = await submission(api, int(location(reply).split("?")[0].rsplit("/", 1)[1]))
    assert made["variables"] == {"signer_name": "Ann", "total": 12, "is_vip": False}


async def test_a_missing_required_variable_is_shown_beside_its_input_with_the_values_kept_and_nothing_made(api):
    template_id = await with_variables(api)
    console = await signed_in(api)
    reply = await posted(console, template_id, **{**FILLED, "variable-3": "  "})
    assert reply.status == 422
    body = text(reply)
    assert (
        '<p class="problem" role="alert" id="variable-3-problem">'
        "variables.signer_name is required by the template&#39;s variables_schema</p>"
    ) in body
    assert 'aria-describedby="variable-3-problem variable-3-hint" aria-invalid="true" autofocus' in body
    assert 'value="1250.5"' in body and "[{&#34;name&#34;: &#34;Desk&#34;}]</textarea>" in body
    assert 'value="ann@example.com"' in body
    assert (await api.get("/api/submissions")).json["data"] == []


async def test_a_required_property_of_an_object_given_is_shown_beside_the_objects_input(api):
    template_id = await with_variables(api)
    console = await signed_in(api)
    reply = await posted(console, template_id, **{**FILLED, "variable-0": '{"city": "Berlin"}'})
    assert reply.status == 422
    assert 'id="variable-0-problem">variables.company.name is required' in text(reply)


async def test_json_that_is_not_json_or_not_of_the_type_and_a_number_that_is_not_one_are_shown_on_the_form(api):
    template_id = await with_variables(api)
    console = await signed_in(api)
    cases = {
        "variable-1": ("[{name: Desk}", "This is not a JSON list"),
        "variable-0": ('["Acme"]', "This is not a JSON object"),
        "variable-5": ("twelve", "Enter a number, such as 1250 or 12.5."),
    }
    for name, (typed, message) in cases.items():
        reply = await posted(console, template_id, **{**FILLED, name: typed})
        assert reply.status == 422, name
        assert f'id="{name}-problem">{message}' in html.unescape(text(reply)), name
        assert f">{typed}<" in html.unescape(text(reply)) or f'value="{typed}"' in text(reply), "kept as typed"
    deep = await posted(console, template_id, **{**FILLED, "variable-1": "[" * 5000 + "]" * 5000})
    assert deep.status == 422 and 'id="variable-1-problem">' in text(deep)
    assert (await api.get("/api/submissions")).json["data"] == []


async def test_bulk_send_is_refused_on_the_page_for_required_variables_and_said_to_leave_optional_ones_empty(api):
    console = await signed_in(api)
    required = text(await console.get(f"/console/templates/{await with_variables(api)}/send"))
    assert "Bulk send cannot be used with this template: it has required variables" in html.unescape(required)
    assert 'id="bulk-file"' not in required

    optional = await with_variables(api, {"total": {"type": "number"}})
    page = text(await console.get(f"/console/templates/{optional}/send"))
    assert 'id="bulk-file"' in page and "bulk-hint bulk-variables-hint" in page
    assert "Bulk send gives no variables" in page


async def test_a_template_without_variables_shows_no_variables(api):
    console = await signed_in(api)
    page = text(await console.get(f"/console/templates/{await template(api)}/send"))
    assert "Variables" not in page and "variable-3" not in page and "bulk-variables-hint" not in page
