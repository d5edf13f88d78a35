"""Conditions over HTTP: taken, checked, stored and returned with templates (`fields[].conditions`,
`schema[].conditions`); applied by the service on every save and at completion, through the signer's actions and
`PUT /api/submitters/{id}`: a field that does not apply is neither required nor stored nor drawn in the signed
documents, one that applies and is required is required."""

import json
import re
from typing import Any

import storage.submissions as stored
from tests.support.documents import b64, pdf, png
from tests.support.pdf_text import page_texts
from tests.support.results import fetch
from tests.support.signing import act, submission

SELLER, BUYER = "Seller", "Buyer"
PLAN_OPTIONS = [{"uuid": "opt-basic", "value": "Basic"}, {"uuid": "opt-pro", "value": "Pro"}]


def box(y: float, page: int = 1) -> dict[str, Any]:
    return {"x": 0.1, "y": y, "w": 0.5, "h": 0.04, "page": page}


def field(uuid: str, name: str, kind: str = "text", y: float = 0.1, role: str = SELLER, **more: Any) -> dict[str, Any]:
    return {"uuid": uuid, "name": name, "type": kind, "role": role, "areas": [box(y)], **more}


AGREE = field("f-agree", "Agree", "checkbox", 0.1, required=False)
DETAILS = field("f-details", "Details", y=0.2, conditions=[{"field_uuid": "f-agree", "action": "checked"}])
PLAN = field("f-plan", "Plan", "radio", 0.3, options=PLAN_OPTIONS)
COMPANY = field(
    "f-company", "Company", y=0.4, conditions=[{"field_uuid": "f-plan", "action": "equal", "value": "opt-pro"}]
)
NAME = field("f-name", "Name", y=0.5)
FORM = [AGREE, DETAILS, PLAN, COMPANY, NAME]
GATE = field("f-gate", "Gate", "checkbox", 0.1, required=False)


async def make_template(api, fields: list[dict[str, Any]], **document: Any) -> dict[str, Any]:
    reply = await api.post(
        "/api/templates",
        json={"name": "Order", "documents": [{"name": "order", "file": b64(pdf(2)), "fields": fields, **document}]},
    )
    assert reply.status == 201, reply.json
    return reply.json


async def with_annex(api) -> dict[str, Any]:
    """Two documents: the annex applies only while Gate (on the first) is ticked, and holds one required field."""
    reply = await api.post(
        "/api/templates",
        json={
            "name": "Order with annex",
            "documents": [
                {"name": "order", "file": b64(pdf(1)), "fields": [GATE, {**PLAN, "required": False}, NAME]},
                {
                    "name": "annex",
                    "file": b64(pdf(1)),
                    "fields": [field("f-annex", "Annex term", y=0.3)],
                    "conditions": [{"field_uuid": "f-gate", "action": "checked"}],
                },
            ],
        },
    )
    assert reply.status == 201, reply.json
    return reply.json


async def refused(api, fields: list[dict[str, Any]], **document: Any) -> tuple[int, Any]:
    reply = await api.post(
        "/api/templates",
        json={"name": "Order", "documents": [{"name": "order", "file": b64(pdf(2)), "fields": fields, **document}]},
    )
    return reply.status, reply.json


async def signers(api, template_id: int, *roles: str) -> list[dict[str, Any]]:
    people = [{"role": role, "email": f"{role.lower()}@example.com", "name": role} for role in roles or (SELLER,)]
    reply = await api.post(
        "/api/submissions", json={"template_id": template_id, "send_email": False, "submitters": people}
    )
    assert reply.status == 200, reply.json
    return reply.json


async def stored_values(api, submitter_id: int) -> dict[str, Any]:
    reply = await api.get(f"/api/submitters/{submitter_id}")
    return {v["field"]: v["value"] for v in reply.json["values"]}


async def signed_text(api, worker, submission_id: int) -> str:
    await worker.drain()
    found = await submission(api, submission_id)
    assert found["status"] == "completed", found["status"]
    return "\n".join(page_texts(await fetch(api, found["documents"][0]["url"])))


# Taken, checked, stored and returned


async def test_field_conditions_are_stored_and_returned_with_the_template(api):
    template = await make_template(api, FORM)
    by_name = {f["name"]: f for f in template["fields"]}
    assert by_name["Details"]["conditions"] == [{"field_uuid": "f-agree", "action": "checked"}]
    assert by_name["Company"]["conditions"] == [{"field_uuid": "f-plan", "action": "equal", "value": "opt-pro"}]
    assert "conditions" not in by_name["Name"]
    again = (await api.get(f"/api/templates/{template['id']}")).json
    assert again["fields"] == template["fields"]


async def test_a_condition_naming_no_field_of_the_template_is_a_422_naming_it(api):
    status, body = await refused(api, [field("f-x", "X", conditions=[{"field_uuid": "nope", "action": "not_empty"}])])
    assert (status, body) == (
        422,
        {"error": "documents[0].fields[0].conditions[0].field_uuid names no field of the template: nope"},
    )


async def test_an_unknown_action_is_a_422_naming_it(api):
    status, body = await refused(
        api, [AGREE, field("f-x", "X", conditions=[{"field_uuid": "f-agree", "action": "ticked"}])]
    )
    assert status == 422
    assert body["error"].startswith("documents[0].fields[1].conditions[0].action is unknown: ticked; one of checked,")


async def test_an_action_that_compares_needs_a_value(api):
    status, body = await refused(
        api, [PLAN, field("f-x", "X", conditions=[{"field_uuid": "f-plan", "action": "equal"}])]
    )
    assert (status, body) == (
        422,
        {"error": "documents[0].fields[1].conditions[0].value is required for equal: a text or a number"},
    )


async def test_a_number_comparison_needs_a_number(api):
    amount = field("f-amount", "Amount", "number")
    wrong = field("f-x", "X", conditions=[{"field_uuid": "f-amount", "action": "greater_than", "value": "lots"}])
    status, body = await refused(api, [amount, wrong])
    assert (status, body) == (
        422,
        {"error": "documents[0].fields[1].conditions[0].value must be a number for greater_than on Amount: lots"},
    )


async def test_an_option_is_named_by_its_uuid_or_its_text_and_stored_by_its_uuid(api):
    by_text = field("f-x", "X", conditions=[{"field_uuid": "f-plan", "action": "equal", "value": "Pro"}])
    template = await make_template(api, [PLAN, by_text])
    assert template["fields"][1]["conditions"] == [{"field_uuid": "f-plan", "action": "equal", "value": "opt-pro"}]
    unknown = field("f-x", "X", conditions=[{"field_uuid": "f-plan", "action": "equal", "value": "Gold"}])
    assert await refused(api, [PLAN, unknown]) == (
        422,
        {"error": "documents[0].fields[1].conditions[0].value names no option of Plan: Gold"},
    )


async def test_an_unknown_operation_or_key_is_a_422(api):
    odd = field("f-x", "X", conditions=[{"field_uuid": "f-agree", "action": "checked", "operation": "xor"}])
    assert await refused(api, [AGREE, odd]) == (
        422,
        {"error": "documents[0].fields[1].conditions[0].operation must be and or or, not xor"},
    )
    extra = field("f-x", "X", conditions=[{"field_uuid": "f-agree", "action": "checked", "when": "now"}])
    status, body = await refused(api, [AGREE, extra])
    assert status == 422 and body["error"].startswith("documents[0].fields[1].conditions[0].when is not a key")


async def test_a_field_whose_conditions_lead_back_to_itself_is_refused(api):
    a = field("f-a", "A", conditions=[{"field_uuid": "f-b", "action": "not_empty"}])
    b = field("f-b", "B", conditions=[{"field_uuid": "f-a", "action": "empty"}])
    assert await refused(api, [a, b]) == (
        422,
        {"error": "documents[0].fields[0].conditions depend on the field itself: A -> B -> A"},
    )


async def test_the_shorthand_field_colon_value_reads_as_the_same_structure(api):
    template = await make_template(
        api, [AGREE, PLAN, field("f-x", "X", conditions="Plan:Pro"), field("f-y", "Y", conditions="Agree")]
    )
    assert template["fields"][2]["conditions"] == [{"field_uuid": "f-plan", "action": "equal", "value": "opt-pro"}]
    assert template["fields"][3]["conditions"] == [{"field_uuid": "f-agree", "action": "not_empty"}]


async def test_put_template_fields_checks_conditions_and_a_document_condition_must_keep_its_field(api):
    template = await with_annex(api)
    annex = template["schema"][1]["attachment_uuid"]
    assert template["schema"][1]["conditions"] == [{"field_uuid": "f-gate", "action": "checked"}]
    without_gate = [f for f in template["fields"] if f["name"] != "Gate"]
    reply = await api.put(f"/api/templates/{template['id']}", json={"fields": without_gate})
    assert (reply.status, reply.json) == (
        422,
        {"error": "schema[1].conditions[0].field_uuid names no field of the template: f-gate"},
    )
    reply = await api.put(
        f"/api/templates/{template['id']}",
        json={"fields": without_gate, "schema": [{"attachment_uuid": annex, "conditions": []}]},
    )
    assert reply.status == 200, reply.json
    assert "conditions" not in (await api.get(f"/api/templates/{template['id']}")).json["schema"][1]
    broken = [{**without_gate[0], "conditions": [{"field_uuid": "f-gone", "action": "empty"}]}, *without_gate[1:]]
    reply = await api.put(f"/api/templates/{template['id']}", json={"fields": broken})
    assert (reply.status, reply.json) == (
        422,
        {"error": "fields[0].conditions[0].field_uuid names no field of the template: f-gone"},
    )


async def test_schema_conditions_are_stored_and_returned_and_checked(api):
    template = await with_annex(api)
    document = template["schema"][1]["attachment_uuid"]
    wanted = [{"field_uuid": "f-plan", "action": "not_equal", "value": "Basic", "operation": "and"}]
    reply = await api.put(
        f"/api/templates/{template['id']}", json={"schema": [{"attachment_uuid": document, "conditions": wanted}]}
    )
    assert reply.status == 200, reply.json
    stored = [{"field_uuid": "f-plan", "action": "not_equal", "value": "opt-basic"}]
    schema = (await api.get(f"/api/templates/{template['id']}")).json["schema"]
    assert schema[1] == {"attachment_uuid": document, "name": "annex", "conditions": stored}
    assert "conditions" not in schema[0]
    reply = await api.put(
        f"/api/templates/{template['id']}", json={"schema": [{"attachment_uuid": "nope", "conditions": wanted}]}
    )
    assert (reply.status, reply.json) == (
        422,
        {"error": "schema[0].attachment_uuid names no document of the template: nope"},
    )
    reply = await api.put(
        f"/api/templates/{template['id']}", json={"schema": [{"attachment_uuid": {}, "conditions": "0"}]}
    )
    assert (reply.status, reply.json) == (
        422,
        {"error": "schema[0].attachment_uuid names no document of the template: {}"},
    )


async def test_a_document_condition_on_a_field_only_on_that_document_is_refused(api):
    status, body = await refused(api, FORM, conditions=[{"field_uuid": "f-name", "action": "not_empty"}])
    assert (status, body) == (
        422,
        {
            "error": "documents[0].conditions[0].field_uuid names Name, "
            "a field only on this document, which would never be shown"
        },
    )


async def test_a_clone_keeps_its_conditions_on_its_own_fields(api):
    template = await make_template(api, FORM)
    clone = (await api.post(f"/api/templates/{template['id']}/clone", json={})).json
    by_name = {f["name"]: f for f in clone["fields"]}
    assert by_name["Details"]["conditions"] == [{"field_uuid": by_name["Agree"]["uuid"], "action": "checked"}]
    assert by_name["Agree"]["uuid"] != "f-agree"
    pro = next(o["uuid"] for o in by_name["Plan"]["options"] if o["value"] == "Pro")
    assert by_name["Company"]["conditions"][0]["value"] == pro != "opt-pro"


# Applied on every save and at completion


async def test_a_hidden_field_is_not_required_and_its_value_sent_is_neither_stored_nor_drawn(api, worker):
    template = await make_template(api, FORM)
    [seller] = await signers(api, template["id"])
    values = {"Agree": False, "Details": "SECRET-DETAIL", "Plan": "Basic", "Company": "Hidden Corp", "Name": "Ann Able"}
    reply = await act(api, seller["slug"], "complete", {"values": values})
    assert reply.status == 200, reply.json
    stored = await stored_values(api, seller["id"])
    assert stored["Details"] is None and stored["Company"] is None and stored["Name"] == "Ann Able"
    text = await signed_text(api, worker, seller["submission_id"])
    assert "Ann Able" in text and "SECRET-DETAIL" not in text and "Hidden Corp" not in text


async def test_a_visible_required_field_is_required(api):
    template = await make_template(api, FORM)
    [seller] = await signers(api, template["id"])
    reply = await act(api, seller["slug"], "complete", {"values": {"Agree": True, "Plan": "Basic", "Name": "Ann"}})
    assert (reply.status, reply.json) == (422, {"error": "Details is required"})
    reply = await act(api, seller["slug"], "complete", {"values": {"Plan": "Pro", "Details": "More", "Name": "Ann"}})
    assert (reply.status, reply.json) == (422, {"error": "Company is required"})


async def test_a_field_shown_by_its_condition_is_stored_and_drawn(api, worker):
    template = await make_template(api, FORM)
    [seller] = await signers(api, template["id"])
    values = {"Agree": True, "Details": "Shown detail", "Plan": "Pro", "Company": "Visible Corp", "Name": "Ann Able"}
    assert (await act(api, seller["slug"], "complete", {"values": values})).status == 200
    stored = await stored_values(api, seller["id"])
    assert (stored["Details"], stored["Company"]) == ("Shown detail", "Visible Corp")
    text = await signed_text(api, worker, seller["submission_id"])
    assert "Shown detail" in text and "Visible Corp" in text


async def test_a_value_saved_before_its_field_was_hidden_is_dropped_on_the_next_save(api):
    template = await make_template(api, FORM)
    [seller] = await signers(api, template["id"])
    await act(api, seller["slug"], "values", {"values": {"Agree": True, "Details": "Typed first"}})
    assert (await stored_values(api, seller["id"]))["Details"] == "Typed first"
    await act(api, seller["slug"], "values", {"values": {"Agree": False}})
    assert "Details" not in await stored_values(api, seller["id"])
    reply = await act(api, seller["slug"], "values", {"values": {"Details": "Sent while hidden"}})
    assert reply.status == 200 and "Details" not in await stored_values(api, seller["id"])


async def test_or_binds_tighter_than_and_on_the_server(api):
    either = [
        {"field_uuid": "f-agree", "action": "checked"},
        {"field_uuid": "f-plan", "action": "equal", "value": "opt-pro", "operation": "or"},
        {"field_uuid": "f-name", "action": "not_empty"},
    ]
    template = await make_template(api, [AGREE, PLAN, NAME, field("f-extra", "Extra", y=0.6, conditions=either)])
    [seller] = await signers(api, template["id"])
    # (Agree or Plan is Pro) and Name: with Plan Pro and a name, Extra applies and is required.
    reply = await act(api, seller["slug"], "complete", {"values": {"Plan": "Pro", "Name": "Ann"}})
    assert (reply.status, reply.json) == (422, {"error": "Extra is required"})
    # Agree alone, without a name (not required here: Name is, so the form would say so first) does not apply.
    await act(api, seller["slug"], "values", {"values": {"Agree": True, "Plan": "Basic", "Extra": "x"}})
    assert "Extra" not in await stored_values(api, seller["id"])


async def test_transitive_hiding_a_field_that_depends_on_a_hidden_field_is_hidden(api, worker):
    chained = field("f-more", "More", y=0.6, conditions=[{"field_uuid": "f-details", "action": "not_empty"}])
    template = await make_template(api, [*FORM, chained])
    [seller] = await signers(api, template["id"])
    values = {"Agree": False, "Details": "Still typed", "More": "Chained value", "Plan": "Basic", "Name": "Ann Able"}
    assert (await act(api, seller["slug"], "complete", {"values": values})).status == 200
    stored = await stored_values(api, seller["id"])
    assert stored["Details"] is None and stored["More"] is None
    assert "Chained value" not in await signed_text(api, worker, seller["submission_id"])


async def test_a_condition_on_an_earlier_signers_field_reads_their_stored_value(api, worker):
    delivery = field("f-delivery", "Delivery", "select", 0.1, options=["Pickup", "Ship"])
    address = field(
        "f-address",
        "Address",
        y=0.2,
        role=BUYER,
        conditions=[{"field_uuid": "f-delivery", "action": "equal", "value": "Ship"}],
    )
    note = field("f-note", "Note", y=0.3, role=BUYER, required=False)
    template = await make_template(api, [delivery, address, note])
    seller, buyer = await signers(api, template["id"], SELLER, BUYER)
    assert (await act(api, seller["slug"], "complete", {"values": {"Delivery": "Pickup"}})).status == 200
    reply = await act(api, buyer["slug"], "complete", {"values": {"Address": "1 Hidden Road", "Note": "Thanks"}})
    assert reply.status == 200, reply.json
    stored = await stored_values(api, buyer["id"])
    assert stored["Address"] is None and stored["Note"] == "Thanks"
    text = await signed_text(api, worker, seller["submission_id"])
    assert "Pickup" in text and "Thanks" in text and "1 Hidden Road" not in text

    seller, buyer = await signers(api, template["id"], SELLER, BUYER)
    assert (await act(api, seller["slug"], "complete", {"values": {"Delivery": "Ship"}})).status == 200
    reply = await act(api, buyer["slug"], "complete", {"values": {"Note": "Thanks"}})
    assert (reply.status, reply.json) == (422, {"error": "Address is required"})


async def test_fields_on_a_hidden_document_are_neither_required_nor_stored_nor_drawn(api, worker):
    both = await with_annex(api)
    assert both["schema"][1]["conditions"] == [{"field_uuid": "f-gate", "action": "checked"}]
    [seller] = await signers(api, both["id"])
    values = {"Gate": False, "Name": "Ann Able", "Annex term": "ANNEX-VALUE"}
    assert (await act(api, seller["slug"], "complete", {"values": values})).status == 200
    stored = await stored_values(api, seller["id"])
    assert stored["Annex term"] is None
    await worker.drain()
    found = await submission(api, seller["submission_id"])
    texts = ["\n".join(page_texts(await fetch(api, d["url"]))) for d in found["documents"]]
    assert "Ann Able" in texts[0] and all("ANNEX-VALUE" not in text for text in texts)

    [seller] = await signers(api, both["id"])
    reply = await act(api, seller["slug"], "complete", {"values": {"Gate": True, "Name": "Ann"}})
    assert (reply.status, reply.json) == (422, {"error": "Annex term is required"})


async def test_put_submitter_drops_values_of_hidden_fields_and_the_signed_document_does_not_draw_them(api, worker):
    template = await make_template(api, FORM)
    [seller] = await signers(api, template["id"])
    values = {"Agree": False, "Details": "PUT-SECRET", "Plan": "Pro", "Company": "Put Corp", "Name": "Ann Able"}
    reply = await api.put(f"/api/submitters/{seller['id']}", json={"values": values})
    assert reply.status == 200, reply.json
    stored = await stored_values(api, seller["id"])
    assert "Details" not in stored and stored["Company"] == "Put Corp"
    reply = await api.put(f"/api/submitters/{seller['id']}", json={"values": {"Plan": "Basic"}, "completed": True})
    assert reply.status == 200, reply.json
    stored = await stored_values(api, seller["id"])
    assert stored["Company"] is None and stored["Details"] is None
    text = await signed_text(api, worker, seller["submission_id"])
    assert "Ann Able" in text and "Put Corp" not in text and "PUT-SECRET" not in text


async def test_completed_true_at_creation_applies_conditions(api, worker):
    template = await make_template(api, FORM)
    reply = await api.post(
        "/api/submissions",
        json={
            "template_id": template["id"],
            "send_email": False,
            "submitters": [
                {
                    "role": SELLER,
                    "email": "s@example.com",
                    "completed": True,
                    "values": {"Agree": False, "Details": "CREATED-HIDDEN", "Plan": "Basic", "Name": "Ann Able"},
                }
            ],
        },
    )
    assert reply.status == 200, reply.json
    [seller] = reply.json
    assert (await stored_values(api, seller["id"]))["Details"] is None
    assert "CREATED-HIDDEN" not in await signed_text(api, worker, seller["submission_id"])


async def test_the_signing_form_is_given_only_the_other_signers_values_its_conditions_read(api):
    delivery = field("f-delivery", "Delivery", "select", 0.1, options=["Pickup", "Ship"])
    secret = field("f-secret", "Secret", y=0.2)
    sign = field("f-sign", "Seller signature", "signature", 0.3)
    address = field(
        "f-address",
        "Address",
        y=0.4,
        role=BUYER,
        conditions=[
            {"field_uuid": "f-delivery", "action": "equal", "value": "Ship"},
            {"field_uuid": "f-sign", "action": "not_empty"},
        ],
    )
    template = await make_template(api, [delivery, secret, sign, address])
    seller, buyer = await signers(api, template["id"], SELLER, BUYER)
    values = {"Delivery": "Ship", "Secret": "Not for the buyer", "Seller signature": "Sam Seller"}
    assert (await act(api, seller["slug"], "complete", {"values": values})).status == 200
    page = await api.with_key(None).get(f"/s/{buyer['slug']}", headers={"Accept": "text/html"})
    data = json.loads(
        re.search(r'<script type="application/json" id="signing-data">(.*?)</script>', page.body.decode(), re.S)[1]
    )
    assert data["conditions"]["values"] == {"f-delivery": "Ship", "f-sign": True}
    assert [f["uuid"] for f in data["conditions"]["fields"]] == ["f-delivery", "f-sign", "f-address"]
    assert data["conditions"]["documents"] == []


# Scale, loops, formulas and every write path (the review's points)


async def test_a_chain_of_a_thousand_conditioned_fields_saves_signs_and_completes(api):
    # Each field is shown only while the one after it has a value (dependents first): decided without recursion.
    chain = [
        field(
            f"f-{i}",
            f"Step {i}",
            y=0.01 + 0.0009 * i,
            required=False,
            **({"conditions": [{"field_uuid": f"f-{i + 1}", "action": "not_empty"}]} if i < 999 else {}),
        )
        for i in range(1000)
    ]
    template = await make_template(api, chain)
    [seller] = await signers(api, template["id"])
    assert (await act(api, seller["slug"], "values", {"values": {"Step 0": "sent while hidden"}})).status == 200
    assert "Step 0" not in await stored_values(api, seller["id"])
    assert (await api.with_key(None).get(f"/s/{seller['slug']}")).status == 200
    reply = await act(api, seller["slug"], "complete", {"values": {"Step 999": "last", "Step 998": "next"}})
    assert reply.status == 200, reply.json
    stored = await stored_values(api, seller["id"])
    assert (stored["Step 999"], stored["Step 998"], stored["Step 0"]) == ("last", "next", None)


async def test_a_loop_through_a_document_is_refused_when_the_template_is_saved(api):
    reply = await api.post(
        "/api/templates",
        json={
            "name": "Looped",
            "documents": [
                {
                    "name": "main",
                    "file": b64(pdf(1)),
                    "fields": [field("f-b", "B", conditions=[{"field_uuid": "f-a", "action": "not_empty"}])],
                },
                {
                    "name": "annex",
                    "file": b64(pdf(1)),
                    "fields": [field("f-a", "A", y=0.3)],
                    "conditions": [{"field_uuid": "f-b", "action": "not_empty"}],
                },
            ],
        },
    )
    assert reply.status == 422
    assert re.fullmatch(
        r"conditions and formulas depend on each other in a loop: B -> A -> document [0-9a-f-]+ -> B",
        reply.json["error"],
    ), reply.json


def formula_form() -> list[dict[str, Any]]:
    """Total is computed from Quantity; Reason applies (and is required) only while Total is over 100."""
    return [
        field("f-qty", "Quantity", "number", 0.1),
        field("f-total", "Total", "number", 0.2, readonly=True, preferences={"formula": "{{f-qty}} * 10"}),
        field(
            "f-reason",
            "Reason",
            y=0.3,
            conditions=[{"field_uuid": "f-total", "action": "greater_than", "value": "100"}],
        ),
    ]


async def test_a_condition_on_a_formula_field_reads_the_computed_result_at_completion(api, worker):
    template = await make_template(api, formula_form())
    [seller] = await signers(api, template["id"])
    reply = await act(api, seller["slug"], "complete", {"values": {"Quantity": 20}})
    assert (reply.status, reply.json) == (422, {"error": "Reason is required"})
    reply = await act(api, seller["slug"], "complete", {"values": {"Quantity": 5, "Reason": "not asked for"}})
    assert reply.status == 200, reply.json
    stored = await stored_values(api, seller["id"])
    assert (stored["Total"], stored["Reason"]) == (50, None)
    assert "not asked for" not in await signed_text(api, worker, seller["submission_id"])


async def test_a_condition_on_a_formula_field_that_feeds_the_formula_is_refused_when_saved(api):
    looped = formula_form()
    looped[0] = {**looped[0], "conditions": [{"field_uuid": "f-total", "action": "not_empty"}]}
    status, body = await refused(api, looped)
    assert (status, body) == (
        422,
        {"error": "conditions and formulas depend on each other in a loop: Quantity -> Total -> Quantity"},
    )


async def test_a_pending_submitters_prefill_on_a_hidden_field_is_not_stored_when_the_submission_is_created(api):
    template = await make_template(api, FORM)
    reply = await api.post(
        "/api/submissions",
        json={
            "template_id": template["id"],
            "send_email": False,
            "submitters": [
                {"role": SELLER, "email": "s@example.com", "values": {"Agree": False, "Details": "prefilled"}}
            ],
        },
    )
    assert reply.status == 200, reply.json
    stored = await stored_values(api, reply.json[0]["id"])
    assert "Details" not in stored and stored["Agree"] is False


async def test_a_hidden_signature_sent_through_put_submitters_in_a_mode_it_does_not_take_is_dropped_not_refused(api):
    drawn = field(
        "f-sign",
        "Signature",
        "signature",
        0.6,
        preferences={"format": "drawn"},
        conditions=[{"field_uuid": "f-agree", "action": "checked"}],
    )
    template = await make_template(api, [AGREE, drawn])
    [seller] = await signers(api, template["id"])
    reply = await api.put(f"/api/submitters/{seller['id']}", json={"values": {"Agree": False, "Signature": "Ann"}})
    assert reply.status == 200, reply.json
    assert "Signature" not in await stored_values(api, seller["id"])
    reply = await api.put(f"/api/submitters/{seller['id']}", json={"values": {"Agree": True, "Signature": "Ann"}})
    assert reply.status == 422 and reply.json["error"].startswith("Signature: a typed signature is not allowed here")


async def test_a_hidden_signature_the_signer_sends_is_dropped_unread_as_through_the_api_its_mode_and_reason_unjudged(
    api, db
):
    # The rule on both paths: a value for a field that does not apply once the save is taken is dropped before
    # anything else reads it: its mode is not judged, its reason neither judged nor kept.
    drawn = field(
        "f-sign",
        "Signature",
        "signature",
        0.6,
        preferences={"format": "drawn", "reasons": ["Approved"]},
        conditions=[{"field_uuid": "f-agree", "action": "checked"}],
    )
    template = await make_template(api, [AGREE, drawn])
    [seller] = await signers(api, template["id"])
    body = {
        "values": {"Agree": False, "Signature": "Ann"},
        "signatures": {"Signature": {"mode": "typed", "reason": "Not one of the list"}},
    }
    reply = await act(api, seller["slug"], "values", body)
    assert reply.status == 200, reply.json
    kept = (await stored.get_submitter(db, seller["id"])).field_values
    assert set(kept) == {"f-agree"}  # neither the signature nor a reason beside it
    reply = await act(api, seller["slug"], "values", {**body, "values": {"Agree": True, "Signature": "Ann"}})
    assert reply.status == 422 and reply.json["error"].startswith("Signature: a typed signature is not allowed here")


def agreed_signature() -> dict[str, Any]:
    """A signature field that asks a reason of its own list and applies only while Agree is ticked."""
    return field(
        "f-sign",
        "Signature",
        "signature",
        0.6,
        preferences={"reasons": ["Approved", "Witnessed"]},
        conditions=[{"field_uuid": "f-agree", "action": "checked"}],
    )


DRAWING = "data:image/png;base64," + b64(png(300, 100))


async def test_a_signature_that_stops_applying_takes_its_reason_with_it(api, db):
    # Its reason does not wait for the next signature: one given when the field applies again asks its own.
    template = await make_template(api, [AGREE, agreed_signature()])
    [seller] = await signers(api, template["id"])
    signed = {"values": {"Agree": True, "Signature": DRAWING}, "signatures": {"Signature": {"mode": "drawn"}}}
    reasoned = {**signed, "signatures": {"Signature": {"mode": "drawn", "reason": "Approved"}}}
    assert (await act(api, seller["slug"], "values", reasoned)).status == 200
    assert (await stored.get_submitter(db, seller["id"])).field_values["f-sign:reason"] == "Approved"
    assert (await act(api, seller["slug"], "values", {"values": {"Agree": False}})).status == 200
    assert set((await stored.get_submitter(db, seller["id"])).field_values) == {"f-agree"}
    assert (await act(api, seller["slug"], "values", signed)).status == 200
    reply = await act(api, seller["slug"], "complete", {})
    assert (reply.status, reply.json) == (422, {"error": "Signature: choose a signing reason in `signatures`."})


async def test_a_reason_sent_alone_for_a_field_that_does_not_apply_is_neither_judged_nor_kept(api, db):
    template = await make_template(api, [AGREE, agreed_signature()])
    [seller] = await signers(api, template["id"])
    for reason in ("Not one of the list", "Approved"):
        body = {"values": {"Agree": False}, "signatures": {"Signature": {"reason": reason}}}
        reply = await act(api, seller["slug"], "values", body)
        assert reply.status == 200, reply.json
        assert set((await stored.get_submitter(db, seller["id"])).field_values) == {"f-agree"}


async def test_the_audit_log_leaves_out_the_value_of_a_field_a_later_signer_hid(api, worker):
    later = field("f-hide", "Hide", "checkbox", 0.5, role=BUYER, required=False)
    note = field("f-note", "Note", y=0.6, conditions=[{"field_uuid": "f-hide", "action": "unchecked"}])
    template = await make_template(api, [NAME, note, later, field("f-buyer", "Buyer name", y=0.7, role=BUYER)])
    seller, buyer = await signers(api, template["id"], SELLER, BUYER)
    values = {"Name": "Ann Able", "Note": "Seller note kept from the log"}
    assert (await act(api, seller["slug"], "complete", {"values": values})).status == 200
    reply = await act(api, buyer["slug"], "complete", {"values": {"Hide": True, "Buyer name": "Bea"}})
    assert reply.status == 200, reply.json
    await worker.drain()
    found = await submission(api, seller["submission_id"])
    log = "\n".join(page_texts(await fetch(api, found["audit_log_url"])))
    assert "Ann Able" in log and "Seller note kept from the log" not in log


async def test_the_signing_form_gets_stand_ins_for_other_signers_values_never_a_masked_text_or_an_unseen_prefill(api):
    account = field("f-account", "Account", y=0.1, preferences={"mask": 4})
    amount = field("f-amount", "Amount", "number", 0.2)
    plan = field("f-plan", "Plan", "radio", 0.3, options=PLAN_OPTIONS)
    shown = [
        {"field_uuid": "f-account", "action": "not_empty"},
        {"field_uuid": "f-amount", "action": "greater_than", "value": "1000"},
        {"field_uuid": "f-plan", "action": "equal", "value": "opt-pro"},
    ]
    note = field("f-note", "Note", y=0.4, role=BUYER, conditions=shown)
    template = await make_template(api, [account, amount, plan, note])
    reply = await api.post(
        "/api/submissions",
        json={
            "template_id": template["id"],
            "send_email": False,
            "submitters": [
                {"role": SELLER, "email": "s@example.com", "values": {"Account": "DE44 5001 0517 5407 3249 31"}},
                {"role": BUYER, "email": "b@example.com"},
            ],
        },
    )
    seller, buyer = reply.json
    values = {"Amount": 1234.5, "Plan": "Basic"}
    assert (await act(api, seller["slug"], "complete", {"values": values})).status == 200
    page = (await api.with_key(None).get(f"/s/{buyer['slug']}", headers={"Accept": "text/html"})).body.decode()
    data = json.loads(re.search(r'<script type="application/json" id="signing-data">(.*?)</script>', page, re.S)[1])
    sent = data["conditions"]["values"]
    assert "5407" not in page and "1234.5" not in json.dumps(sent) and "Basic" not in json.dumps(sent)
    assert sent["f-account"] not in ("", None) and sent["f-amount"] > 1000 and sent["f-plan"] != "Pro"


async def test_a_default_the_signer_cleared_is_no_value_for_conditions_on_the_service_as_in_the_form(api):
    preset = field("f-preset", "Preset", y=0.1, required=False, default_value="preset")
    extra = field("f-extra", "Extra", y=0.2, conditions=[{"field_uuid": "f-preset", "action": "not_empty"}])
    template = await make_template(api, [preset, extra])
    [seller] = await signers(api, template["id"])
    assert (await act(api, seller["slug"], "values", {"values": {"Preset": ""}})).status == 200
    reply = await act(api, seller["slug"], "complete", {"values": {"Extra": "sent while hidden"}})
    assert reply.status == 200, reply.json
    assert (await stored_values(api, seller["id"]))["Extra"] is None


async def test_a_save_keeps_a_value_for_a_field_a_formula_result_shows(api):
    template = await make_template(api, formula_form())
    [seller] = await signers(api, template["id"])
    assert (
        await act(api, seller["slug"], "values", {"values": {"Quantity": 20, "Reason": "Bulk order"}})
    ).status == 200
    assert (await stored_values(api, seller["id"]))["Reason"] == "Bulk order"
    reply = await api.put(f"/api/submitters/{seller['id']}", json={"values": {"Quantity": 2, "Reason": "dropped"}})
    assert reply.status == 200 and "Reason" not in await stored_values(api, seller["id"])
    assert (await act(api, seller["slug"], "complete", {"values": {"Quantity": 30, "Reason": "Bulk"}})).status == 200
    stored = await stored_values(api, seller["id"])
    assert (stored["Total"], stored["Reason"]) == (300, "Bulk")
