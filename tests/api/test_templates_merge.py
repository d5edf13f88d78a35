"""POST /api/templates/merge: a new template of several, their documents in order, every role, field, option and
document under a new uuid with the references to them (conditions, formulas, areas) following, roles collapsed by
index (`roles`) or by name; `template.created` raised."""

from __future__ import annotations

import io
from typing import Any

from pypdf import PdfReader

from tests.support.documents import b64, pdf
from tests.support.results import fetch
from tests.support.signing import act, event_types, send, submission

PLAN_OPTIONS = [{"uuid": "opt-basic", "value": "Basic"}, {"uuid": "opt-pro", "value": "Pro"}]


def box(y: float, page: int = 1) -> dict[str, Any]:
    return {"x": 0.1, "y": y, "w": 0.3, "h": 0.05, "page": page}


def field(name: str, role: str, y: float, kind: str = "text", page: int = 1, **more: Any) -> dict[str, Any]:
    return {"name": name, "type": kind, "role": role, "areas": [box(y, page)], **more}


ORDER_FIELDS = [
    field("Plan", "Seller", 0.1, "radio", uuid="f-plan", options=PLAN_OPTIONS, required=False),
    field("Company", "Seller", 0.2, conditions=[{"field_uuid": "f-plan", "action": "equal", "value": "opt-pro"}]),
    field("Quantity", "Seller", 0.3, "number", uuid="f-quantity"),
    field("Total", "Seller", 0.4, "number", preferences={"formula": "{{Quantity}} * 2"}),
    field("Buyer Name", "Buyer", 0.5, page=2),
]
TERMS_FIELDS = [field("Vendor Signature", "Vendor", 0.1, "signature"), field("Customer Name", "Customer", 0.2)]


async def make(api, name: str, *documents: dict[str, Any], **more: Any) -> dict[str, Any]:
    reply = await api.post("/api/templates", json={"name": name, "documents": list(documents), **more})
    assert reply.status == 201, reply.json
    return reply.json


def document(name: str, pages: int, fields: list[dict[str, Any]] | None = None, **more: Any) -> dict[str, Any]:
    return {"name": name, "file": b64(pdf(pages)), "fields": fields or [], **more}


async def order_and_terms(api) -> tuple[dict[str, Any], dict[str, Any]]:
    order = await make(api, "Order", document("order", 2, ORDER_FIELDS), folder_name="Sales")
    terms = await make(api, "Terms", document("terms", 1, TERMS_FIELDS), document("annex", 1))
    return order, terms


async def merge(api, **body: Any) -> dict[str, Any]:
    reply = await api.post("/api/templates/merge", json=body)
    assert reply.status == 201, reply.json
    return reply.json


def by_name(template: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f["name"]: f for f in template["fields"]}


def uuid_list(template: dict[str, Any]) -> list[str]:
    found = [role["uuid"] for role in template["submitters"]] + [d["uuid"] for d in template["documents"]]
    for one in template["fields"]:
        found += [one["uuid"]] + [option["uuid"] for option in one.get("options", [])]
    return found


def uuids_of(template: dict[str, Any]) -> set[str]:
    return set(uuid_list(template))


async def test_merging_answers_201_with_a_new_template_of_the_documents_in_order(api, db):
    order, terms = await order_and_terms(api)
    merged = await merge(api, template_ids=[order["id"], terms["id"]], external_id="pack-1")
    assert merged["id"] not in (order["id"], terms["id"])
    assert (merged["name"], merged["folder_name"], merged["external_id"], merged["shared_link"]) == (
        "Order (Merged)",
        "Sales",
        "pack-1",
        True,
    )
    assert [item["name"] for item in merged["schema"]] == ["order", "terms", "annex"]
    assert [item["attachment_uuid"] for item in merged["schema"]] == [d["uuid"] for d in merged["documents"]]
    assert [f["name"] for f in merged["fields"]] == [f["name"] for f in order["fields"] + terms["fields"]]
    assert await event_types(db, "template", merged["id"]) == ["template.created"]
    combined = (await api.get(f"/api/templates/{merged['id']}/pdf")).json
    assert len(PdfReader(io.BytesIO(await fetch(api, combined["pdf_url"]))).pages) == 4
    for one in merged["documents"]:
        assert (await fetch(api, one["url"]))[:5] == b"%PDF-"


async def test_every_uuid_is_new_and_every_reference_names_the_merged_template(api):
    order, terms = await order_and_terms(api)
    merged = await merge(api, template_ids=[order["id"], terms["id"]])
    assert not uuids_of(merged) & (uuids_of(order) | uuids_of(terms))
    fields, documents = by_name(merged), [d["uuid"] for d in merged["documents"]]
    plan, pro = fields["Plan"], next(o["uuid"] for o in fields["Plan"]["options"] if o["value"] == "Pro")
    assert fields["Company"]["conditions"] == [{"field_uuid": plan["uuid"], "action": "equal", "value": pro}]
    assert fields["Total"]["preferences"]["formula"] == "{{" + fields["Quantity"]["uuid"] + "}} * 2"
    assert {a["attachment_uuid"] for f in merged["fields"][:5] for a in f["areas"]} == {documents[0]}
    assert [a["page"] for a in fields["Buyer Name"]["areas"]] == [1]
    assert {a["attachment_uuid"] for f in merged["fields"][5:] for a in f["areas"]} == {documents[1]}
    roles = {role["uuid"] for role in merged["submitters"]}
    assert {f["submitter_uuid"] for f in merged["fields"]} == roles


async def test_roles_collapse_by_index_into_the_names_given(api):
    order, terms = await order_and_terms(api)
    merged = await merge(api, template_ids=[order["id"], terms["id"]], roles=["Party A", "Party B"])
    assert [role["name"] for role in merged["submitters"]] == ["Party A", "Party B"]
    role = {r["uuid"]: r["name"] for r in merged["submitters"]}
    assert {f["name"]: role[f["submitter_uuid"]] for f in merged["fields"]} == {
        "Plan": "Party A",
        "Company": "Party A",
        "Quantity": "Party A",
        "Total": "Party A",
        "Buyer Name": "Party B",
        "Vendor Signature": "Party A",
        "Customer Name": "Party B",
    }


async def test_without_roles_roles_of_the_same_name_collapse_and_the_others_follow_in_order(api):
    first = await make(api, "A", document("a", 1, [field("One", "Signer", 0.1), field("Two", "Witness", 0.2)]))
    second = await make(api, "B", document("b", 1, [field("Three", "Notary", 0.1), field("Four", "signer", 0.2)]))
    merged = await merge(api, template_ids=[first["id"], second["id"]], name="Pack", folder_name="Legal")
    assert [role["name"] for role in merged["submitters"]] == ["Signer", "Witness", "Notary"]
    role = {r["uuid"]: r["name"] for r in merged["submitters"]}
    assert [role[f["submitter_uuid"]] for f in merged["fields"]] == ["Signer", "Witness", "Notary", "Signer"]
    assert (merged["name"], merged["folder_name"]) == ("Pack", "Legal")


async def test_roles_past_the_names_given_keep_their_own_names(api):
    order, terms = await order_and_terms(api)
    merged = await merge(api, template_ids=[order["id"], terms["id"]], roles=["Party A"])
    assert [role["name"] for role in merged["submitters"]] == ["Party A", "Buyer", "Customer"]


async def test_the_merged_template_is_sent_signed_and_completed_with_its_conditions_and_formulas_working(api, worker):
    order, terms = await order_and_terms(api)
    merged = await merge(api, template_ids=[order["id"], terms["id"]], roles=["Seller", "Buyer"])
    seller, buyer = await send(
        api,
        merged["id"],
        {"role": "Seller", "email": "seller@example.com", "name": "Sam"},
        {"role": "Buyer", "email": "buyer@example.com", "name": "Bo"},
    )
    # Company applies only with the Pro plan: Basic leaves it neither required nor stored.
    values = {"Plan": "Basic", "Company": "Hidden Ltd", "Quantity": 4, "Vendor Signature": "Sam"}
    assert (await act(api, seller["slug"], "complete", {"values": values})).status == 200
    refused = await act(api, buyer["slug"], "complete", {"values": {"Buyer Name": "Bo"}})
    assert refused.status == 422, refused.json  # Customer Name, of the second template, is required of the Buyer
    done = await act(api, buyer["slug"], "complete", {"values": {"Buyer Name": "Bo", "Customer Name": "Bo Ltd"}})
    assert done.status == 200, done.json
    await worker.drain()
    found = await submission(api, seller["submission_id"])
    assert found["status"] == "completed"
    stored = {v["field"]: v["value"] for v in found["submitters"][0]["values"]}
    assert stored.get("Company") is None and stored["Total"] == 8


async def test_a_document_condition_names_the_merged_field(api):
    gated = await make(
        api,
        "Gated",
        document("main", 1, [field("Gate", "Signer", 0.1, "checkbox", uuid="f-gate", required=False)]),
        document(
            "annex", 1, [field("Annex term", "Signer", 0.2)], conditions=[{"field_uuid": "f-gate", "action": "checked"}]
        ),
    )
    other = await make(api, "Other", document("other", 1, [field("Name", "Signer", 0.1)]))
    merged = await merge(api, template_ids=[other["id"], gated["id"]])
    assert merged["schema"][2]["conditions"] == [{"field_uuid": by_name(merged)["Gate"]["uuid"], "action": "checked"}]


async def test_a_template_merged_with_itself_has_everything_twice_under_new_uuids_but_its_roles_once(api):
    order, _ = await order_and_terms(api)
    merged = await merge(api, template_ids=[order["id"], order["id"]])
    assert [item["name"] for item in merged["schema"]] == ["order", "order"]
    # The roles of the same name are one: every other uuid comes twice, each time new.
    assert len(uuid_list(merged)) == len(uuids_of(merged)) == 2 * len(uuid_list(order)) - len(order["submitters"])
    assert merged["submitters"] != order["submitters"] and len(merged["submitters"]) == len(order["submitters"])


async def test_an_archived_template_may_be_merged_and_the_merged_template_is_not_archived(api):
    order, terms = await order_and_terms(api)
    assert (await api.delete(f"/api/templates/{order['id']}")).status == 200
    merged = await merge(api, template_ids=[order["id"], terms["id"]])
    assert merged["archived_at"] is None


async def test_an_unknown_template_id_is_404_naming_it(api):
    order, _ = await order_and_terms(api)
    reply = await api.post("/api/templates/merge", json={"template_ids": [order["id"], 999]})
    assert (reply.status, reply.json) == (404, {"error": "Template 999 not found"})
    huge = await api.post("/api/templates/merge", json={"template_ids": [order["id"], 10**30]})
    assert (huge.status, huge.json) == (404, {"error": f"Template {10**30} not found"})


async def test_another_accounts_template_is_422_as_for_a_submission_and_nothing_is_made(api, other_account, db):
    order, _ = await order_and_terms(api)
    theirs = await make(api.with_key(other_account.live), "Theirs", document("theirs", 1))
    reply = await api.post("/api/templates/merge", json={"template_ids": [order["id"], theirs["id"]]})
    assert (reply.status, reply.json) == (
        422,
        {"error": f"template_ids[1]: Template {theirs['id']} is not a template of this account"},
    )
    assert [t["id"] for t in (await api.get("/api/templates")).json["data"]] == [2, 1]


async def test_fewer_than_two_ids_or_not_ids_is_422(api):
    order, _ = await order_and_terms(api)
    for body in ({"template_ids": [order["id"]]}, {}, {"template_ids": [order["id"], "2"]}):
        reply = await api.post("/api/templates/merge", json=body)
        assert reply.status == 422, body
    one = await api.post("/api/templates/merge", json={"template_ids": [order["id"]]})
    assert one.json == {"error": "template_ids must name at least 2 templates and at most 50"}
    named = await api.post("/api/templates/merge", json={"template_ids": [1, 2], "roles": ["A", " "]})
    assert named.json == {"error": "roles must be an array of role names"}
    blank = await api.post("/api/templates/merge", json={"template_ids": [1, 2], "name": " "})
    assert (blank.status, blank.json) == (422, {"error": "name must not be empty"})


async def test_a_webhook_endpoint_receives_template_created_with_the_merged_template(api, worker, receiver):
    order, terms = await order_and_terms(api)
    reply = await api.post("/api/webhooks", json={"url": receiver.url(), "events": ["template.created"]})
    assert reply.status == 200, reply.json
    merged = await merge(api, template_ids=[order["id"], terms["id"]])
    await worker.drain()
    [received] = receiver.received
    assert received.json["event_type"] == "template.created"
    assert (received.json["data"]["id"], received.json["data"]["schema"]) == (merged["id"], merged["schema"])
