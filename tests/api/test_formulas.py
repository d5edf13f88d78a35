"""Formula fields (`preferences.formula`) through the API and the signing form's actions, on both databases: saved
with their references checked, computed by the service at completion from the stored values (what a client sends
for them is ignored), stored and drawn in the signed documents."""

from __future__ import annotations

import json
import re
from typing import Any

import storage.templates as stored_templates
from tests.support.pdf_text import page_texts
from tests.support.results import fetch
from tests.support.signing import act, area, send, submission, template

FIELDS = [
    {"name": "Quantity", "type": "number", "role": "Buyer", "areas": [area(0.1)]},
    {"name": "Price", "type": "number", "role": "Buyer", "areas": [area(0.2)]},
    {
        "name": "Total",
        "type": "number",
        "role": "Buyer",
        "areas": [area(0.3)],
        "preferences": {"formula": "{{Quantity}} * {{Price}}"},
    },
    {
        "name": "Summary",
        "type": "text",
        "role": "Buyer",
        "areas": [area(0.4)],
        "preferences": {"formula": "{{Quantity}} pieces at {{Price}} make {{Total}}"},
    },
    {
        "name": "Per piece share",
        "type": "number",
        "role": "Buyer",
        "required": False,
        "areas": [area(0.5)],
        "preferences": {"formula": "round(100 / {{Quantity}}, 2)"},
    },
]


def by_name(template_json: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f["name"]: f for f in template_json["fields"]}


def values_of(found: dict[str, Any]) -> dict[str, Any]:
    return {item["field"]: item["value"] for item in found["submitters"][0]["values"]}


async def formula_template(api, fields: list[dict[str, Any]] = FIELDS) -> int:
    return await template(api, fields)


async def signed_text(api, worker, submission_id: int) -> str:
    await worker.drain()
    found = await submission(api, submission_id)
    return "\n".join(page_texts(await fetch(api, found["documents"][0]["url"])))


async def test_saving_a_template_stores_formula_references_by_uuid_and_not_a_read_only_flag(api):
    fields = by_name((await api.get(f"/api/templates/{await formula_template(api)}")).json)
    quantity, price = fields["Quantity"]["uuid"], fields["Price"]["uuid"]
    assert fields["Total"]["preferences"]["formula"] == f"{{{{{quantity}}}}} * {{{{{price}}}}}"
    # The form locks a formula field for its formula: a saved flag would outlive a formula removed later.
    assert fields["Total"]["readonly"] is False and fields["Summary"]["readonly"] is False


async def test_saving_formulas_inside_one_another_more_than_200_operations_high_is_422_never_a_500_later(api):
    fields = [
        {"name": f"F{i}", "type": "number", "role": "Buyer", "areas": [area(0.1 * i)], "preferences": {"formula": f}}
        for i, f in enumerate(["{{F2}}" + " + 1" * 150, "{{F3}}" + " + 1" * 150, "{{N}}" + " + 1" * 150], start=1)
    ]
    fields.append({"name": "N", "type": "number", "role": "Buyer", "areas": [area(0.5)]})
    reply = await api.post("/api/templates", json={"name": "x", "documents": [_document(fields)]})
    assert reply.status == 422
    assert reply.json == {
        "error": "F1: preferences.formula is more than 200 operations high with the formulas inside it"
    }


async def test_a_template_whose_formulas_have_more_than_20000_characters_in_all_is_422(api):
    formula = "{{Quantity}}" + " + 1" * 120
    fields = [*FIELDS[:2], *({**FIELDS[2], "name": f"T{i}", "preferences": {"formula": formula}} for i in range(42))]
    reply = await api.post("/api/templates", json={"name": "x", "documents": [_document(fields)]})
    assert reply.status == 422
    assert reply.json == {
        "error": "the fields' formulas have 20328 characters in all: a template's have at most 20000 (not counting "
        "the names and uuids inside {{ }})"
    }


async def test_a_formula_of_2000_characters_as_written_is_saved_again_as_it_is_read(api):
    # Stored, {{Quantity}} becomes a 36-character uuid: the limit does not count what a reference names.
    formula = "sum({{Quantity}}" + ", 1" * 661 + ")"
    assert len(formula) == 2000
    fields = [*FIELDS[:2], {**FIELDS[2], "preferences": {"formula": formula}}]
    template_id = await template(api, fields)
    read = (await api.get(f"/api/templates/{template_id}")).json["fields"]
    assert len(by_name({"fields": read})["Total"]["preferences"]["formula"]) > 2000
    reply = await api.put(f"/api/templates/{template_id}", json={"fields": read})
    assert reply.status == 200, reply.json
    assert (await api.get(f"/api/templates/{template_id}")).json["fields"] == read


async def test_a_text_formula_showing_a_number_beyond_1e15_is_422_at_completion_never_a_500(api):
    fields = [
        {"name": "N", "type": "number", "role": "Buyer", "areas": [area(0.1)]},
        {"name": "T", "type": "text", "role": "Buyer", "areas": [area(0.2)], "preferences": {"formula": "n={{N}}"}},
    ]
    [buyer] = await send(api, await template(api, fields), {"email": "bea@example.com", "role": "Buyer"})
    done = await act(api, buyer["slug"], "complete", {"values": {"N": 1e20}})
    assert done.status == 422
    assert done.json == {"error": "T: the formula cannot be computed: number out of range"}


async def test_a_formula_stored_naming_a_field_by_name_is_computed_with_that_field(api, db, worker):
    template_id = await formula_template(api)
    stored = await stored_templates.get_template(db, template_id)
    fields = [
        {**f, "preferences": {"formula": "{{Quantity}} * {{price}}"}} if f["name"] == "Total" else f
        for f in stored.fields
    ]
    async with db.transaction() as tx:  # as stored before formulas were checked, when they were ignored
        await stored_templates.update_template(tx, stored, {"fields": fields}, stored.updated_at)
    [buyer] = await send(api, template_id, {"email": "bea@example.com", "role": "Buyer"})
    page = await api.with_key(None).get(f"/s/{buyer['slug']}")
    named = by_name({"fields": fields})
    sent = {f["uuid"]: f for f in _script_data(page.body.decode())["formulas"]["fields"]}
    total = f"{{{{{named['Quantity']['uuid']}}}}} * {{{{{named['Price']['uuid']}}}}}"
    assert sent[named["Total"]["uuid"]]["formula"] == total  # the form computes with uuids alone
    done = await act(api, buyer["slug"], "complete", {"values": {"Quantity": 3, "Price": 2}})
    assert done.status == 200, done.json
    assert values_of(await submission(api, buyer["submission_id"]))["Total"] == 6


async def test_a_blank_formula_leaves_its_field_for_the_signer_to_fill(api):
    template_id = await template(api, [{**FIELDS[0], "preferences": {"formula": "   "}}])
    [buyer] = await send(api, template_id, {"email": "bea@example.com", "role": "Buyer"})
    page = (await api.with_key(None).get(f"/s/{buyer['slug']}")).body.decode()
    quantity = (await api.get(f"/api/templates/{template_id}")).json["fields"][0]["uuid"]
    control = _tag(page, f"f-{quantity}")
    assert f'name="{quantity}"' in control and "readonly" not in control and "required" in control


async def test_a_formula_step_announces_its_result_alerts_its_error_and_keeps_its_description(api):
    fields = [*FIELDS[:2], {**FIELDS[2], "description": "Quantity times price, before tax."}]
    template_id = await template(api, fields)
    [buyer] = await send(api, template_id, {"email": "bea@example.com", "role": "Buyer"})
    page = (await api.with_key(None).get(f"/s/{buyer['slug']}")).body.decode()
    total = by_name((await api.get(f"/api/templates/{template_id}")).json)["Total"]["uuid"]
    step = page.split(f'id="step-{total}"')[1].split("</fieldset>")[0]
    assert "aria-live" not in _tag(page, f"f-{total}")  # an input's changes are not announced
    assert re.search(r'<output [^>]*role="status" aria-live="polite" data-result-of="Total"', step)
    assert re.search(rf'<p class="error" id="e-{total}" role="alert"', step)
    hint = step.split(f'id="d-{total}">')[1].split("</div>")[0]
    assert re.fullmatch(
        r"<p>Quantity times price, before tax\.</p>\s*<p>Computed from the other answers[^<]*</p>", hint
    )


async def test_saving_a_template_whose_formula_refers_to_an_unknown_field_is_422_naming_the_field(api):
    fields = [*FIELDS[:2], {**FIELDS[2], "preferences": {"formula": "{{Quantity}} * {{Cost}}"}}]
    reply = await api.post("/api/templates", json={"name": "x", "documents": [_document(fields)]})
    assert reply.status == 422
    assert reply.json == {"error": "Total: preferences.formula refers to an unknown field: {{Cost}}"}


async def test_saving_a_template_with_an_unreadable_formula_is_422_with_the_reason(api):
    fields = [*FIELDS[:2], {**FIELDS[2], "preferences": {"formula": "{{Quantity}} * (2"}}]
    reply = await api.post("/api/templates", json={"name": "x", "documents": [_document(fields)]})
    assert reply.status == 422
    assert reply.json == {"error": "Total: preferences.formula cannot be read: expected ) at 18, found the end"}


async def test_updating_a_templates_fields_into_a_formula_cycle_is_422_naming_the_fields(api):
    template_id = await formula_template(api)
    fields = (await api.get(f"/api/templates/{template_id}")).json["fields"]
    named = {f["name"]: f for f in fields}
    named["Quantity"]["preferences"] = {"formula": "{{Total}} + 1"}
    reply = await api.put(f"/api/templates/{template_id}", json={"fields": fields})
    assert reply.status == 422
    assert reply.json == {"error": "Quantity: preferences.formula refers to itself: Quantity → Total → Quantity"}


async def test_a_cloned_template_s_formulas_name_the_clone_s_own_fields(api):
    template_id = await formula_template(api)
    reply = await api.post(f"/api/templates/{template_id}/clone", json={})
    assert reply.status == 200, reply.json
    fields = by_name(reply.json)
    quantity, price = fields["Quantity"]["uuid"], fields["Price"]["uuid"]
    assert fields["Total"]["preferences"]["formula"] == f"{{{{{quantity}}}}} * {{{{{price}}}}}"


async def test_the_signers_form_completes_with_the_services_own_formula_results_stored_and_drawn(api, worker):
    [buyer] = await send(api, await formula_template(api), {"email": "bea@example.com", "role": "Buyer"})
    slug = buyer["slug"]
    # A value sent for a formula field is ignored, by the values action and by completion alike.
    saved = await act(api, slug, "values", {"values": {"Quantity": 4, "Total": 999, "Summary": "forged"}})
    assert saved.status == 200, saved.json
    done = await act(api, slug, "complete", {"values": {"Price": 2.5, "Total": 1}})
    assert done.status == 200, done.json
    found = await submission(api, buyer["submission_id"])
    assert values_of(found) == {
        "Quantity": 4,
        "Price": 2.5,
        "Total": 10,
        "Summary": "4 pieces at 2.5 make 10",
        "Per piece share": 25,
    }
    text = await signed_text(api, worker, buyer["submission_id"])
    assert "4 pieces at 2.5 make 10" in text and "999" not in text and "forged" not in text


async def test_put_submitters_ignores_a_value_for_a_formula_field_and_completion_computes_it(api, worker):
    [buyer] = await send(api, await formula_template(api), {"email": "bea@example.com", "role": "Buyer"})
    reply = await api.put(
        f"/api/submitters/{buyer['id']}",
        json={"values": {"Quantity": 3, "Price": 19.99, "Total": 5, "Summary": "forged"}, "completed": True},
    )
    assert reply.status == 200, reply.json
    values = {item["field"]: item["value"] for item in reply.json["values"]}
    assert values["Total"] == 59.97 and values["Summary"] == "3 pieces at 19.99 make 59.97"
    assert values["Per piece share"] == 33.33
    text = await signed_text(api, worker, buyer["submission_id"])
    assert "59.97" in text and "3 pieces at 19.99 make 59.97" in text and "forged" not in text


async def test_a_formula_that_cannot_be_computed_at_completion_is_422_naming_the_field_and_nothing_completes(api):
    [buyer] = await send(api, await formula_template(api), {"email": "bea@example.com", "role": "Buyer"})
    done = await act(api, buyer["slug"], "complete", {"values": {"Quantity": 0, "Price": 2}})
    assert done.status == 422
    assert done.json == {"error": "Per piece share: the formula cannot be computed: division by zero"}
    reply = await api.put(f"/api/submitters/{buyer['id']}", json={"values": {"Quantity": 0}, "completed": True})
    assert reply.status == 422
    assert reply.json == {"error": "Per piece share: the formula cannot be computed: division by zero"}
    assert (await submission(api, buyer["submission_id"]))["submitters"][0]["status"] != "completed"


async def test_a_formula_reads_the_values_of_a_signer_who_completed_before(api, worker):
    fields = [
        {"name": "Rent", "type": "number", "role": "Landlord", "areas": [area(0.1)]},
        {"name": "Months", "type": "number", "role": "Tenant", "areas": [area(0.2)]},
        {
            "name": "Due",
            "type": "number",
            "role": "Tenant",
            "areas": [area(0.3)],
            "preferences": {"formula": "{{Rent}} * {{Months}}"},
        },
    ]
    _, tenant = await send(
        api,
        await template(api, fields),
        {"email": "lou@example.com", "role": "Landlord", "values": {"Rent": 850}, "completed": True},
        {"email": "tim@example.com", "role": "Tenant"},
    )
    done = await act(api, tenant["slug"], "complete", {"values": {"Months": 12}})
    assert done.status == 200, done.json
    found = await submission(api, tenant["submission_id"])
    tenant_values = {item["field"]: item["value"] for item in found["submitters"][1]["values"]}
    assert tenant_values["Due"] == 10200
    assert "10200" in await signed_text(api, worker, tenant["submission_id"])


def _tag(page: str, element_id: str) -> str:
    return re.search(rf'<[^>]*id="{element_id}"[^>]*>', page, re.DOTALL).group()


def _script_data(page: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json" id="signing-data">(.*?)</script>', page, re.DOTALL)
    return json.loads(found.group(1))


def _document(fields: list[dict[str, Any]]) -> dict[str, Any]:
    from tests.support.documents import b64, pdf

    return {"name": "order", "file": b64(pdf()), "fields": fields}
