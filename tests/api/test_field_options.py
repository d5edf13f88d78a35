"""The field options the service honours, in the signing form and in the signed documents: `default_value`
placeholders, `readonly`, `title` and Markdown `description`, `validation`, `preferences.mask`, the date and number
`format`, and the text's `font`, `font_size`, `font_type`, `color`, `align` and `valign`; and the variables of a
custom invitation message."""

from __future__ import annotations

import io
import re
from datetime import timedelta
from typing import Any

import pypdf
import pypdfium2

import storage.submissions as stored
from signsvc.accounts.accounts import DEFAULT_ACCOUNT_NAME
from signsvc.http.appkeys import WORKER
from tests.support.documents import b64, pdf
from tests.support.pdf_text import page_texts
from tests.support.results import fetch
from tests.support.signing import act, send, submission, template

ANN = {"email": "ann@example.com", "name": "Ann Lee", "role": "First Party"}
BOB = {"email": "bob@example.com", "name": "Bob Buyer", "role": "Second Party"}
NAME_AREA = {"x": 0.1, "y": 0.1, "w": 0.5, "h": 0.06, "page": 1}


def area(y: float) -> dict[str, Any]:
    return {"x": 0.1, "y": y, "w": 0.4, "h": 0.04, "page": 1}


def field(name: str, kind: str, y: float | None, **options: Any) -> dict[str, Any]:
    return {"name": name, "type": kind, "role": "First Party", "required": False, **options} | (
        {"areas": [area(y)]} if y is not None else {}
    )


FIELDS = [
    field(
        "Full Name",
        "text",
        None,
        required=True,
        areas=[NAME_AREA],
        title="**Your** full name",
        description="As in your passport. See [the terms](https://example.com/terms).\n\n- no titles\n- <b>no</b> HTML",
        validation={"pattern": "^[A-Za-z ]+$", "message": "Letters only"},
        preferences={
            "font": "Times",
            "font_type": "bold",
            "color": "#c00",
            "align": "right",
            "valign": "top",
            "font_size": 10,
        },
    ),
    field("Reference", "text", 0.2, readonly=True, default_value="REF-{{id}}-{{year}}"),
    field("Signed by", "text", 0.25, readonly=True, default_value="Signed by {name} <{{email}}>"),
    field("Signed on", "date", 0.3, readonly=True, default_value="{{date}}", preferences={"format": "DD.MM.YYYY"}),
    field(
        "Start", "date", 0.35, validation={"min": "{{date}}", "max": "2027-12-31"}, preferences={"format": "DD/MM/YYYY"}
    ),
    field("Amount", "number", 0.4, validation={"min": 1, "max": 100}, preferences={"format": "usd"}),
    field("IBAN", "text", 0.45, preferences={"mask": -4}),
    field("Zip", "text", 0.5, validation={"pattern": "^[0-9]{5}(?:-[0-9]{4})?$"}),
    field("Code", "text", 0.55, validation={"pattern": "^.{2,4}$"}),
    field("Signature", "signature", 0.6, required=True),
    {"name": "Buyer Name", "type": "text", "role": "Second Party", "areas": [area(0.7)]},
]
ANN_VALUES = {"Full Name": "Ann Lee", "Signature": "Ann Lee"}


async def options_template(api) -> int:
    return await template(api, FIELDS)


async def stored_values(api, submitter_id: int) -> dict[str, Any]:
    reply = await api.get(f"/api/submitters/{submitter_id}")
    assert reply.status == 200, reply.json
    return {value["field"]: value["value"] for value in reply.json["values"]}


async def signed_document(api, worker, submission_id: int) -> bytes:
    await worker.drain()
    found = await submission(api, submission_id)
    return await fetch(api, found["submitters"][0]["documents"][0]["url"])


def text_of(pdf: bytes) -> str:
    return "\n".join(page_texts(pdf))


# default_value placeholders


async def test_default_value_placeholders_are_filled_for_the_signer_at_completion_and_drawn(api, worker):
    ann, _ = await send(api, await options_template(api), ANN, BOB)
    reply = await act(api, ann["slug"], "complete", {"values": ANN_VALUES})
    assert reply.status == 200, reply.json
    values = await stored_values(api, ann["id"])
    assert values["Reference"] == f"REF-{ann['submission_id']}-2026"
    assert values["Signed by"] == "Signed by Ann Lee <ann@example.com>"
    assert values["Signed on"] == "2026-01-01"
    text = text_of(await signed_document(api, worker, ann["submission_id"]))
    assert f"REF-{ann['submission_id']}-2026" in text and "Signed by Ann Lee <ann@example.com>" in text
    assert "01.01.2026" in text, "the date in its field's format"


async def test_default_value_placeholders_are_filled_when_put_api_completes_the_submitter(api, worker):
    ann, _ = await send(api, await options_template(api), ANN, BOB)
    reply = await api.put(f"/api/submitters/{ann['id']}", json={"completed": True, "values": ANN_VALUES})
    assert reply.status == 200, reply.json
    values = await stored_values(api, ann["id"])
    assert (values["Reference"], values["Signed on"]) == (f"REF-{ann['submission_id']}-2026", "2026-01-01")
    assert f"REF-{ann['submission_id']}-2026" in text_of(await signed_document(api, worker, ann["submission_id"]))


async def test_default_value_placeholders_are_shown_filled_in_the_form_before_completion(api):
    ann, _ = await send(api, await options_template(api), ANN, BOB)
    body = (await api.with_key(None).get(f"/s/{ann['slug']}")).body.decode()
    assert re.search(rf'type="text" value="REF-{ann["submission_id"]}-2026" readonly', body)
    assert 'value="Signed by Ann Lee &lt;ann@example.com&gt;" readonly' in body


# readonly


async def test_readonly_field_refuses_a_change_from_the_signer_and_keeps_its_default(api):
    ann, _ = await send(api, await options_template(api), ANN, BOB)
    reply = await act(api, ann["slug"], "values", {"values": {"Reference": "MINE"}})
    assert (reply.status, reply.json) == (422, {"error": "Reference is a read-only field"})
    reply = await act(api, ann["slug"], "complete", {"values": {**ANN_VALUES, "Reference": "MINE"}})
    assert (reply.status, reply.json) == (422, {"error": "Reference is a read-only field"})
    assert (await act(api, ann["slug"], "complete", {"values": ANN_VALUES})).status == 200
    assert (await stored_values(api, ann["id"]))["Reference"] == f"REF-{ann['submission_id']}-2026"


# title and description


async def test_title_and_description_are_rendered_as_markdown_with_any_html_escaped(api):
    ann, _ = await send(api, await options_template(api), ANN, BOB)
    body = (await api.with_key(None).get(f"/s/{ann['slug']}")).body.decode()
    assert re.search(r'<label for="f-[^"]+"><strong>Your</strong> full name<span class="required"', body)
    assert (
        '<p>As in your passport. See <a href="https://example.com/terms" target="_blank" '
        'rel="noopener noreferrer">the terms</a>.</p><ul><li>no titles</li><li>&lt;b&gt;no&lt;/b&gt; HTML</li></ul>'
    ) in body
    assert "<b>no</b>" not in body


# validation


async def test_validation_pattern_refuses_with_its_message_on_signer_saves_put_and_completion(api):
    ann, _ = await send(api, await options_template(api), ANN, BOB)
    expected = (422, {"error": "Full Name: Letters only"})
    reply = await act(api, ann["slug"], "values", {"values": {"Full Name": "R2D2"}})
    assert (reply.status, reply.json) == expected
    reply = await act(api, ann["slug"], "complete", {"values": {**ANN_VALUES, "Full Name": "R2D2"}})
    assert (reply.status, reply.json) == expected
    reply = await api.put(f"/api/submitters/{ann['id']}", json={"values": {"Full Name": "R2D2"}})
    assert (reply.status, reply.json) == expected
    reply = await api.put(f"/api/submitters/{ann['id']}", json={"completed": True, "values": {"Full Name": "R2D2"}})
    assert (reply.status, reply.json) == expected


async def test_validation_preset_and_length_patterns_without_a_message_say_what_they_expect(api):
    ann, _ = await send(api, await options_template(api), ANN, BOB)
    reply = await act(api, ann["slug"], "values", {"values": {"Zip": "ABCDE"}})
    assert (reply.status, reply.json) == (422, {"error": "Zip: must be a ZIP code (12345 or 12345-6789)"})
    reply = await act(api, ann["slug"], "values", {"values": {"Code": "ABCDEF"}})
    assert (reply.status, reply.json) == (422, {"error": "Code: must be 2 to 4 characters long"})
    assert (await act(api, ann["slug"], "values", {"values": {"Zip": "12345-6789", "Code": "AB"}})).status == 200


async def test_validation_min_and_max_of_dates_and_numbers_are_enforced_on_saves_and_put(api):
    ann, _ = await send(api, await options_template(api), ANN, BOB)
    cases = [
        ({"Start": "2025-12-30"}, "Start: must be on or after 31/12/2025"),  # min {{date}}: today, a day's slack
        ({"Start": "2028-01-01"}, "Start: must be on or before 31/12/2027"),
        ({"Amount": 0}, "Amount: must be at least 1"),
        ({"Amount": 100.5}, "Amount: must be at most 100"),
    ]
    for values, error in cases:
        reply = await act(api, ann["slug"], "values", {"values": values})
        assert (reply.status, reply.json) == (422, {"error": error}), values
        reply = await api.put(f"/api/submitters/{ann['id']}", json={"values": values})
        assert (reply.status, reply.json) == (422, {"error": error}), values
    reply = await act(api, ann["slug"], "values", {"values": {"Start": "01/01/2026", "Amount": 100}})
    assert reply.status == 200, reply.json


async def test_validation_refuses_values_given_at_creation_so_a_submission_can_always_complete(api):
    template_id = await options_template(api)
    for ann in ({**ANN, "values": {"Amount": 500}}, {**ANN, "fields": [{"name": "Amount", "default_value": 500}]}):
        reply = await api.post("/api/submissions", json={"template_id": template_id, "submitters": [ann, BOB]})
        assert (reply.status, reply.json) == (422, {"error": "Amount: must be at most 100"})
    reply = await api.post(
        "/api/submissions",
        json={"template_id": template_id, "submitters": [{**ANN, "values": {"Zip": "ABC"}}, BOB]},
    )
    assert (reply.status, reply.json) == (422, {"error": "Zip: must be a ZIP code (12345 or 12345-6789)"})
    ann, _ = await send(api, template_id, {**ANN, "values": {"Amount": 100}}, BOB)
    assert (await act(api, ann["slug"], "complete", {"values": ANN_VALUES})).status == 200


async def test_validation_date_bound_of_today_allows_the_signers_own_day_on_either_side_of_utc(api, clock):
    # 23:30 UTC: a signer in New York (18:30, still the 1st) or in Tokyo (08:30, the 2nd) presses "Today".
    clock.set(clock.now().replace(hour=23, minute=30))
    ann, _ = await send(api, await options_template(api), ANN, BOB)
    for own_day in ("2025-12-31", "2026-01-01", "2026-01-02"):
        assert (await act(api, ann["slug"], "values", {"values": {"Start": own_day}})).status == 200, own_day
    reply = await act(api, ann["slug"], "values", {"values": {"Start": "2025-12-30"}})
    assert (reply.status, reply.json) == (422, {"error": "Start: must be on or after 31/12/2025"})


async def test_validation_at_completion_checks_the_stored_values_the_completion_reads_and_writes(api, db, clock):
    ann, _ = await send(api, await options_template(api), ANN, BOB)
    assert (await act(api, ann["slug"], "values", {"values": {"Zip": "12345"}})).status == 200
    # Written beside the service, as a save committed after a completion's body was checked and before its
    # transaction would be: the completion checks what it reads and writes in its transaction, not just its body.
    found = await stored.get_submitter(db, ann["id"])
    assert found is not None
    [zip_uuid] = [uuid for uuid, value in found.field_values.items() if value == "12345"]
    await stored.update_submitter(
        db, stored.changed(found, field_values={**found.field_values, zip_uuid: "ABCDE"}), clock.now()
    )
    expected = (422, {"error": "Zip: must be a ZIP code (12345 or 12345-6789)"})
    reply = await act(api, ann["slug"], "complete", {"values": ANN_VALUES})
    assert (reply.status, reply.json) == expected
    reply = await api.put(f"/api/submitters/{ann['id']}", json={"completed": True, "values": ANN_VALUES})
    assert (reply.status, reply.json) == expected
    assert (await api.get(f"/api/submitters/{ann['id']}")).json["completed_at"] is None


async def test_validation_at_completion_checks_a_saved_date_again_on_the_completion_day(api, clock):
    ann, _ = await send(api, await options_template(api), ANN, BOB)
    today = clock.now().date()
    assert (await act(api, ann["slug"], "values", {"values": {"Start": today.isoformat()}})).status == 200
    clock.advance(timedelta(days=3))  # `min: {{date}}`: the day saved is in the past by the time the signer completes
    reply = await act(api, ann["slug"], "complete", {"values": ANN_VALUES})
    shown = (clock.now().date() - timedelta(days=1)).strftime("%d/%m/%Y")  # a day's slack for the signer's zone
    assert (reply.status, reply.json) == (422, {"error": f"Start: must be on or after {shown}"})


async def test_a_number_field_is_a_number_input_asking_a_phones_decimal_pad_only_where_it_cannot_be_negative(api):
    fields = [
        field("Amount", "number", 0.1, validation={"min": 0}),
        field("Balance", "number", 0.2, validation={"min": -100}),
        field("Count", "number", 0.3),
    ]
    [ann] = await send(api, await template(api, fields), ANN)
    html = (await api.with_key(None).get(f"/s/{ann['slug']}")).body.decode()
    found = re.findall(r'<label for="f-[^"]+">(\w+)</label>\s*<input [^>]*type="number" ([^>]*)>', html)
    assert {name: 'inputmode="decimal"' in attributes for name, attributes in found} == {
        "Amount": True,
        "Balance": False,
        "Count": False,
    }


# preferences.format


async def test_format_draws_dates_and_numbers_in_the_fields_format(api, worker):
    ann, _ = await send(api, await options_template(api), ANN, BOB)
    values = {**ANN_VALUES, "Start": "2026-02-03", "Amount": 42.5}
    assert (await act(api, ann["slug"], "complete", {"values": values})).status == 200
    assert (await stored_values(api, ann["id"]))["Start"] == "2026-02-03"
    text = text_of(await signed_document(api, worker, ann["submission_id"]))
    assert "03/02/2026" in text and "$42.50" in text


# preferences.mask


async def test_mask_masks_the_value_in_the_document_for_the_next_signer_in_emails_and_in_the_audit_log(
    mailing, smtp_server
):
    worker = mailing.app[WORKER]
    ann, bob = await send(
        mailing,
        await options_template(mailing),
        ANN,
        BOB,
        message={"subject": "Your turn, {{submitter.first_name}}", "body": "IBAN given: {{submitters[1].IBAN}}"},
    )
    await worker.drain()
    values = {**ANN_VALUES, "IBAN": "DE89 3704 0044 0532 0130 00"}
    assert (await act(mailing, ann["slug"], "complete", {"values": values})).status == 200
    assert (await stored_values(mailing, ann["id"]))["IBAN"] == "DE89 3704 0044 0532 0130 00", "stored as given"
    shown = "XXXX XXXX XXXX XXXX XXX0 00"  # the last 4 characters kept
    page = (await mailing.with_key(None).get(f"/s/{bob['slug']}")).body.decode()
    assert shown in page and "DE89" not in page
    assert shown in text_of(await signed_document(mailing, worker, ann["submission_id"]))
    bob_email = smtp_server.messages[-1]
    assert bob_email["Subject"] == "Your turn, Bob"
    assert bob_email.get_body(("plain",)).get_content().startswith(f"IBAN given: {shown}")
    assert (await act(mailing, bob["slug"], "complete", {"values": {"Buyer Name": "Bob"}})).status == 200
    await worker.drain()
    audit_log = text_of(await fetch(mailing, (await submission(mailing, ann["submission_id"]))["audit_log_url"]))
    assert shown in " ".join(audit_log.split()) and "DE89" not in audit_log, "the audit log goes to every signer"


# font, font_size, font_type, color, align, valign


async def test_font_font_type_font_size_color_align_and_valign_are_drawn(api, worker):
    ann, _ = await send(api, await options_template(api), ANN, BOB)
    assert (await act(api, ann["slug"], "complete", {"values": ANN_VALUES})).status == 200
    pdf = await signed_document(api, worker, ann["submission_id"])
    overlay = _overlay_streams(pdf)
    assert "/Times-Bold" in _font_names(pdf), "Times in bold, a standard font"
    assert re.search(rb"0\.8 0(\.0+)? 0(\.0+)? rg", overlay), "#c00"
    left, top, right, bottom = _text_box(pdf, "Ann Lee")
    page_width, page_height = pypdfium2.PdfDocument(pdf)[0].get_size()
    area_right = (NAME_AREA["x"] + NAME_AREA["w"]) * page_width
    area_top = page_height * (1 - NAME_AREA["y"])
    assert area_right - 4 < right <= area_right and left > (NAME_AREA["x"] + 0.2) * page_width, "aligned right"
    assert area_top - 6 < top <= area_top, "at the top of its box"
    assert 6 < top - bottom < 11, "10 pt, not the box's height"


def _font_names(pdf: bytes) -> set[str]:
    names = set()
    for page in pypdf.PdfReader(io.BytesIO(pdf)).pages:
        stack = [page["/Resources"]]
        while stack:
            resources = stack.pop().get_object()
            for font in (resources.get("/Font") or {}).values():
                names.add(str(font.get_object()["/BaseFont"]))
            for xobject in (resources.get("/XObject") or {}).values():
                if "/Resources" in xobject.get_object():
                    stack.append(xobject.get_object()["/Resources"])
    return names


def _overlay_streams(pdf: bytes) -> bytes:
    found = b""
    for page in pypdf.PdfReader(io.BytesIO(pdf)).pages:
        for xobject in (page["/Resources"].get("/XObject") or {}).values():
            found += xobject.get_object().get_data()
    return found


def _text_box(pdf: bytes, text: str) -> tuple[float, float, float, float]:
    """(left, top, right, bottom) in PDF points of the first place `text` is drawn on the first page."""
    page = pypdfium2.PdfDocument(pdf)[0].get_textpage()
    at = page.get_text_range().index(text)
    boxes = [page.get_charbox(index) for index in range(at, at + len(text)) if text[index - at] != " "]
    return (
        min(b[0] for b in boxes),
        max(b[3] for b in boxes),
        max(b[2] for b in boxes),
        min(b[1] for b in boxes),
    )


# The options' shapes


async def test_field_options_of_the_wrong_shape_are_refused_when_the_template_is_saved(api):
    cases = [
        ({"preferences": {"font": "Comic Sans"}}, "preferences.font must be one of: Times, Helvetica, Courier"),
        ({"preferences": {"font_type": "heavy"}}, "preferences.font_type must be one of: bold, italic, bold_italic"),
        ({"preferences": {"align": "middle"}}, "preferences.align must be one of: left, center, right"),
        ({"preferences": {"valign": "middle"}}, "preferences.valign must be one of: top, center, bottom"),
        ({"preferences": {"font_size": 0}}, "preferences.font_size must be a number above 0, at most 999"),
        ({"preferences": {"color": "rgb(1,2,3)"}}, "preferences.color must be a colour name (blue) or a hex colour"),
        ({"preferences": {"mask": "yes"}}, "preferences.mask must be true, false, or an integer"),
        ({"validation": {"min": "soon"}}, "validation.min must be a number, a date as YYYY-MM-DD, or {{date}} (today)"),
        ({"validation": {"step": -1}}, "validation.step must be a number above 0"),
    ]
    for options, error in cases:
        reply = await api.post(
            "/api/templates",
            json={
                "name": "T",
                "documents": [{"name": "t", "file": b64(pdf()), "fields": [field("A", "text", 0.1, **options)]}],
            },
        )
        assert reply.status == 422 and reply.json["error"].startswith(f"documents[0].fields[0].{error}"), reply.json


async def test_date_format_without_a_day_month_or_year_and_unknown_colours_are_refused_when_saved(api):
    cases = [
        (field("A", "date", 0.1, preferences={"format": "MMMM YYYY"}), "preferences.format must name the day"),
        (field("A", "date", 0.1, preferences={"format": "dd/mm/yyyy"}), "preferences.format must name the day"),
        (field("A", "text", 0.1, preferences={"color": "orange"}), "preferences.color must be a colour name (blue)"),
    ]
    for one, error in cases:
        reply = await api.post(
            "/api/templates", json={"name": "T", "documents": [{"name": "t", "file": b64(pdf()), "fields": [one]}]}
        )
        assert reply.status == 422 and reply.json["error"].startswith(f"documents[0].fields[0].{error}"), reply.json
    kept = field("A", "date", 0.1, preferences={"format": "DD de MMMM de YYYY", "color": "blue"})
    assert (await template(api, [kept])) > 0


async def test_title_and_description_longer_than_500_and_5000_characters_are_refused_when_saved(api):
    for key, limit in (("title", 500), ("description", 5_000)):
        one = field("A", "text", 0.1, **{key: "*a " * limit})
        reply = await api.post(
            "/api/templates", json={"name": "T", "documents": [{"name": "t", "file": b64(pdf()), "fields": [one]}]}
        )
        error = f"documents[0].fields[0].{key} is too long: at most {limit} characters"
        assert (reply.status, reply.json) == (422, {"error": error})


# Email message variables


async def test_message_variables_fill_template_submission_signers_their_fields_account_and_sender(mailing, smtp_server):
    worker = mailing.app[WORKER]
    template_id = await options_template(mailing)
    body = (
        "{{template.name}} #{{template.id}} / {{submission.name}} #{{submission.id}} / {{submission.link}}\n"
        "{{{submitter.name}}} {{submitter.first_name}} {{SUBMITTER.EMAIL}} {{submitter.id}} {{submitter.slug}}\n"
        "{{submitters}} / {{submitters[1].name}} {{submitters[1].first_name}} {{submitters[1].email}} "
        "{{submitters[1].Full Name}} / {{submitter.Buyer Name}}\n"
        "{{account.name}} / {{sender.name}} {{sender.email}} / {{documents.link}} {{unknown.thing}}"
    )
    ann, bob = await send(
        mailing,
        template_id,
        ANN,
        {**BOB, "values": {"Buyer Name": "B. Buyer"}},
        message={"subject": "{{submitter.name}}, sign {{template.name}}", "body": body},
    )
    await worker.drain()
    assert (await act(mailing, ann["slug"], "complete", {"values": ANN_VALUES})).status == 200
    await worker.drain()
    to_bob = next(m for m in smtp_server.messages if m["To"] == "bob@example.com")
    assert to_bob["Subject"] == "Bob Buyer, sign NDA"
    id_ = ann["submission_id"]
    assert (
        to_bob.get_body(("plain",))
        .get_content()
        .startswith(
            f"NDA #{template_id} / NDA #{id_} / http://signsvc.test/console/submissions/{id_}\n"
            f"Bob Buyer Bob bob@example.com {bob['id']} {bob['slug']}\n"
            "Ann Lee, Bob Buyer / Ann Lee Ann ann@example.com Ann Lee / B. Buyer\n"
            f"{DEFAULT_ACCOUNT_NAME} / Admin User admin@example.com / {{{{documents.link}}}} {{{{unknown.thing}}}}"
        )
    )


async def test_message_variables_are_found_in_linear_time_so_braces_and_spaces_cannot_stall_the_service(
    mailing, smtp_server
):
    # A backtracking search took cubic time on these (22 s for 2,000 characters): the service stalled.
    body = "{" * 10_000 + "a." + " " * 9_990
    subject = "{" * 120 + "submitter.name" + " " * 120
    message = {"subject": subject, "body": body}
    await send(mailing, await options_template(mailing), ANN, BOB, message=message)
    await mailing.app[WORKER].drain()
    assert smtp_server.messages[0].get_body(("plain",)).get_content().startswith("{" * 10_000 + "a.")


async def test_message_variables_name_fields_whose_names_have_extra_spaces_and_any_case(mailing, smtp_server):
    fields = [*FIELDS, {"name": "Buyer  Ref ", "type": "text", "role": "Second Party", "areas": [area(0.8)]}]
    await send(
        mailing,
        await template(mailing, fields),
        {**ANN, "send_email": False},
        {**BOB, "values": {"Buyer  Ref ": "R-7"}},
        message={"subject": "Ref {{ submitter.buyer ref }}", "body": "x"},
        order="random",
    )
    await mailing.app[WORKER].drain()
    to_bob = next(m for m in smtp_server.messages if m["To"] == "bob@example.com")
    assert to_bob["Subject"] == "Ref R-7"


async def test_message_variables_are_filled_once_so_a_value_naming_a_variable_stays_as_written(mailing, smtp_server):
    worker = mailing.app[WORKER]
    ann, _ = await send(
        mailing,
        await template(mailing, [*FIELDS, field("Note", "text", 0.8)]),
        ANN,
        BOB,
        message={"subject": "Note: {{submitters[1].Note}}", "body": "Ann wrote: {{submitters[1].Note}}"},
    )
    await worker.drain()
    values = {**ANN_VALUES, "Note": "{{submitter.link}}"}
    assert (await act(mailing, ann["slug"], "complete", {"values": values})).status == 200
    await worker.drain()
    to_bob = next(m for m in smtp_server.messages if m["To"] == "bob@example.com")
    assert to_bob["Subject"] == "Note: {{submitter.link}}"
    assert to_bob.get_body(("plain",)).get_content().startswith("Ann wrote: {{submitter.link}}\n")
