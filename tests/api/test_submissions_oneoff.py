"""One-off submissions (POST /api/submissions/pdf): documents sent for signing without a template, stored with
their own roles, fields and documents, and signed, sealed, emailed and announced like any other submission."""

from __future__ import annotations

import io
import json
from datetime import timedelta
from typing import Any

import pypdf
import pytest

import storage.submissions as stored
from signsvc.app import OPENAPI_PATH
from signsvc.http.appkeys import WORKER
from tests.api.test_results import validate
from tests.api.test_webhook_payloads import hooked, of_type, received  # noqa: F401 (hooked: a fixture)
from tests.support.app import TEST_KEY, Api
from tests.support.console import signed_in
from tests.support.documents import b64, pdf
from tests.support.pdf_text import page_texts
from tests.support.results import fetch
from tests.support.samples import form_pdf, text_pdf
from tests.support.signing import act, area, submission, template
from tests.support.system import CJK_FONT

FIELDS = [
    {"name": "Tenant Name", "type": "text", "role": "Tenant", "areas": [area(0.1)]},
    {"name": "Tenant Signature", "type": "signature", "role": "Tenant", "areas": [area(0.2)]},
    {"name": "Landlord Name", "type": "text", "role": "Landlord", "areas": [area(0.4)]},
]
TENANT = {"role": "Tenant", "email": "tenant@example.com", "name": "Tia"}
LANDLORD = {"role": "Landlord", "email": "landlord@example.com", "name": "Leo"}
TENANT_VALUES = {"Tenant Name": "Tia Tenant", "Tenant Signature": "Tia Tenant"}


def lease(pages: int = 1, fields: list[dict[str, Any]] | None = None, **more: Any) -> dict[str, Any]:
    return {
        "name": "lease",
        "file": b64(pdf(pages, text="Lease")),
        "fields": FIELDS if fields is None else fields,
        **more,
    }


async def one_off(api, *submitters: dict[str, Any], status: int = 200, **body: Any):
    body.setdefault("documents", [lease()])
    reply = await api.post("/api/submissions/pdf", json={"submitters": list(submitters or (TENANT, LANDLORD)), **body})
    assert reply.status == status, reply.json
    return reply.json


async def refused(api, body: dict[str, Any], status: int = 422) -> str:
    reply = await api.post("/api/submissions/pdf", json={"submitters": [TENANT], "documents": [lease()], **body})
    assert reply.status == status, reply.json
    return reply.json["error"]


# The answer


async def test_the_answer_has_id_name_submitters_with_embed_src_source_order_status_schema_fields_and_dates(api):
    made = await one_off(api, expire_at="2026-02-01 12:00:00 UTC")
    assert set(made) == {
        "id",
        "name",
        "submitters",
        "source",
        "submitters_order",
        "status",
        "schema",
        "fields",
        "expire_at",
        "created_at",
    }
    assert (made["name"], made["source"], made["submitters_order"], made["status"]) == (
        "lease",
        "api",
        "preserved",
        "pending",
    )
    assert made["expire_at"] == "2026-02-01T12:00:00.000Z" and made["created_at"] == "2026-01-01T12:00:00.000Z"
    [document] = made["schema"]
    assert document["name"] == "lease"
    assert [f["name"] for f in made["fields"]] == ["Tenant Name", "Tenant Signature", "Landlord Name"]
    assert {a["attachment_uuid"] for f in made["fields"] for a in f["areas"]} == {document["attachment_uuid"]}
    assert all(a["page"] == 0 for f in made["fields"] for a in f["areas"]), "pages are given from 1, kept from 0"
    tenant, landlord = made["submitters"]
    assert (tenant["role"], tenant["email"], tenant["submission_id"]) == ("Tenant", "tenant@example.com", made["id"])
    assert tenant["embed_src"] == f"http://signsvc.test/apiemb/{tenant['slug']}" and landlord["role"] == "Landlord"


async def test_the_name_given_names_the_submission(api):
    assert (await one_off(api, name="Rental Agreement"))["name"] == "Rental Agreement"


# Stored without a template


async def test_the_submission_shows_template_null_in_its_record_and_in_the_list(api):
    made = await one_off(api)
    assert (await submission(api, made["id"]))["template"] is None
    [listed] = (await api.get("/api/submissions")).json["data"]
    assert listed["id"] == made["id"] and listed["template"] is None


async def test_no_template_is_made_one_appears_nowhere_in_the_template_list(api):
    await one_off(api)
    assert (await api.get("/api/templates")).json["data"] == []
    assert (await api.get("/api/templates?archived=true")).json["data"] == []


async def test_no_template_id_reaches_the_one_off_submission_read_or_send(api, db):
    made = await one_off(api)
    assert (await stored.get_submission(db, made["id"])).template_id is None
    for template_id in (1, made["id"]):  # no template row exists to read, list the submissions of or send
        assert (await api.get(f"/api/templates/{template_id}")).status == 404
        assert (await api.get(f"/api/templates/{template_id}/submissions")).status == 404
        reply = await api.post("/api/submissions", json={"template_id": template_id, "submitters": [TENANT]})
        assert reply.status == 404


async def test_the_console_lists_no_template_for_it_and_lists_the_submission(api):
    await one_off(api, name="Lease of flat 7391")
    console = await signed_in(api)
    templates = await console.get("/console/templates")
    assert templates.status == 200 and "7391" not in templates.body.decode()
    submissions = await console.get("/console/submissions")
    assert submissions.status == 200 and "Lease of flat 7391" in submissions.body.decode()
    shown = await console.get("/console/submissions/1")
    assert shown.status == 200 and "tenant@example.com" in shown.body.decode()


# Every option of POST /submissions


async def test_send_email_false_sends_no_invitation_and_variables_are_kept(api):
    made = await one_off(api, send_email=False, variables={"unit": "4B"})
    await api.app[WORKER].drain()
    found = await submission(api, made["id"])
    assert [s["status"] for s in found["submitters"]] == ["awaiting", "awaiting"]
    assert found["variables"] == {"unit": "4B"}


async def test_invitations_go_by_email_in_order_with_the_message_given(mailing, smtp_server):
    message = {"subject": "Your lease", "body": "Sign {{submission.name}} at {{submitter.link}}"}
    made = await one_off(mailing, message=message)
    await mailing.app[WORKER].drain()
    assert [to for received in smtp_server.received for to in received.recipients] == ["tenant@example.com"]
    [sent] = smtp_server.messages
    text = sent.get_body(("plain",)).get_content()
    assert sent["Subject"] == "Your lease"
    assert f"Sign lease at http://signsvc.test/s/{made['submitters'][0]['slug']}" in text


async def test_order_random_invites_everyone_at_once(mailing, smtp_server):
    await one_off(mailing, order="random")
    await mailing.app[WORKER].drain()
    assert sorted(to for r in smtp_server.received for to in r.recipients) == [
        "landlord@example.com",
        "tenant@example.com",
    ]


async def test_submitter_options_values_metadata_redirect_and_readonly_fields_are_kept(api):
    made = await one_off(
        api,
        {
            **TENANT,
            "external_id": "t-1",
            "metadata": {"unit": 4},
            "fields": [{"name": "Tenant Name", "default_value": "Tia Tenant", "readonly": True}],
        },
        LANDLORD,
        completed_redirect_url="https://example.com/done",
    )
    tenant = made["submitters"][0]
    assert (tenant["external_id"], tenant["metadata"]) == ("t-1", {"unit": 4})
    assert tenant["values"] == [{"field": "Tenant Name", "value": "Tia Tenant"}]
    assert [f["readonly"] for f in made["fields"] if f["name"] == "Tenant Name"] == [True]
    reply = await act(api, tenant["slug"], "complete", {"values": {"Tenant Signature": "Tia Tenant"}})
    assert reply.json["redirect_url"] == "https://example.com/done?event=completed"


async def test_the_options_are_checked_as_post_submissions_checks_them(api):
    assert await refused(api, {"order": "sideways"}) == "order must be one of preserved, random"
    assert await refused(api, {"submitters": [{"role": "Tenant"}]}) == (
        "email or phone or name is required in `submitters[0]`."
    )
    assert await refused(api, {"message": {"subject": "x"}}) == "body is required in `message`."
    assert (await refused(api, {"submitters": [{**TENANT, "role": "Janitor"}]})).startswith(
        "Unknown submitter role: Janitor."
    )
    assert await refused(api, {"submitters": []}) == "submitters is required"
    assert await refused(api, {"colour": "red"}) == "Unknown key: colour"
    assert await refused(api, {"template_id": 1}) == "Unknown key: template_id"


async def test_expire_at_expires_it_when_its_time_comes(api, clock):
    made = await one_off(api, expire_at="2026-01-02 12:00:00 UTC")
    clock.advance(timedelta(days=2))
    await api.app[WORKER].drain()
    assert (await submission(api, made["id"]))["status"] == "expired"


# The documents


async def test_documents_and_fields_are_checked_with_their_location(api):
    assert await refused(api, {"documents": []}) == "documents must be a non-empty array"
    assert await refused(api, {"documents": [{"name": "x", "file": "%%%"}]}) == (
        "documents[0].file is neither valid base64 nor an https:// URL"
    )
    bad_page = [{**FIELDS[0], "areas": [{**area(0.1), "page": 3}]}]
    assert "documents[0].fields[0].areas[0].page" in await refused(api, {"documents": [lease(fields=bad_page)]})
    assert await refused(api, {"documents": [lease(fields=[])]}) == (
        "documents have no fields: give each document's fields, or use text tags"
    )
    assert await refused(api, {"flatten": "yes"}) == "flatten must be true or false"
    assert (
        await refused(api, {"documents": [lease(position=-1)]}) == "documents[0].position must be an integer, 0 or more"
    )


async def test_a_pdfs_own_form_fields_are_its_fields_unless_flatten(api):
    document = {"name": "form", "file": b64(form_pdf())}
    made = await one_off(api, {"email": "ann@example.com"}, documents=[document])
    assert made["fields"], "the form's own fields"
    assert await refused(api, {"documents": [document], "flatten": True}) == (
        "documents have no fields: give each document's fields, or use text tags"
    )


async def test_documents_keep_their_order_and_a_position_puts_one_in_its_place(api):
    documents = [
        lease(fields=FIELDS[:2]) | {"name": "first"},
        lease(fields=FIELDS[2:]) | {"name": "second"},
        {**lease(fields=[]), "name": "third", "position": 0.0},  # JSON's 0.0 is the integer 0
    ]
    made = await one_off(api, documents=documents)
    assert [d["name"] for d in made["schema"]] == ["third", "first", "second"]
    assert made["name"] == "first", "the name of the first document given"


# template_ids


async def test_template_ids_add_the_templates_documents_and_fields_with_roles_joined_by_name(api):
    template_id = await template(
        api,
        name="Annex",
        fields=[{"name": "Landlord Initials", "type": "initials", "role": "landlord", "areas": [area(0.5)]}],
    )
    original = (await api.get(f"/api/templates/{template_id}")).json
    made = await one_off(api, template_ids=[template_id])
    assert [d["name"] for d in made["schema"]] == ["lease", "nda"]
    assert made["schema"][1]["attachment_uuid"] != original["schema"][0]["attachment_uuid"], "fresh uuids"
    initials = next(f for f in made["fields"] if f["name"] == "Landlord Initials")
    landlord = next(f for f in made["fields"] if f["name"] == "Landlord Name")
    assert initials["submitter_uuid"] == landlord["submitter_uuid"], "the template's role joins the one of its name"
    assert initials["areas"][0]["attachment_uuid"] == made["schema"][1]["attachment_uuid"]
    assert initials["uuid"] != original["fields"][0]["uuid"]
    assert (await submission(api, made["id"]))["template"] is None
    assert [t["id"] for t in (await api.get("/api/templates")).json["data"]] == [template_id]


async def test_template_ids_must_be_the_callers_own_templates(api, other_account):
    assert await refused(api, {"template_ids": [99]}, status=404) == "Template 99 not found"
    assert await refused(api, {"template_ids": ["x"]}) == "template_ids[0] must be a template id"
    theirs = await template(api.with_key(other_account.live))
    assert await refused(api, {"template_ids": [theirs]}) == (
        f"template_ids[0] names template {theirs}, which is not a template of this account"
    )
    archived = await template(api)
    await api.delete(f"/api/templates/{archived}")
    assert (
        await refused(api, {"template_ids": [archived]})
        == f"template_ids[0] names template {archived}, which has been archived"
    )


async def test_template_ids_apply_the_named_templates_required_variables(api):
    template_id = await template(api, name="Annex")
    schema = {"variables_schema": {"tenant_iban": {"type": "string", "required": True}}}
    assert (await api.put(f"/api/templates/{template_id}", json=schema)).status == 200
    assert await refused(api, {"template_ids": [template_id]}) == (
        "variables.tenant_iban is required by the template's variables_schema"
    )
    made = await one_off(api, template_ids=[template_id], variables={"tenant_iban": "DE00 1234"})
    assert (await submission(api, made["id"]))["variables"] == {"tenant_iban": "DE00 1234"}


async def test_template_ids_naming_a_template_that_requires_email_2fa_require_it_of_every_signer(api):
    template_id = await template(api, name="Annex")
    reply = await api.put(f"/api/templates/{template_id}", json={"preferences": {"require_email_2fa": True}})
    assert reply.status == 200
    made = await one_off(api, {**TENANT, "require_email_2fa": False}, LANDLORD, template_ids=[template_id])
    assert [one["preferences"]["require_email_2fa"] for one in made["submitters"]] == [True, True]
    plain = await one_off(api, template_ids=[await template(api, name="Other")])
    assert ["require_email_2fa" in one["preferences"] for one in plain["submitters"]] == [False, False]


# merge_documents


async def test_merge_documents_makes_one_document_of_every_page_with_the_fields_on_their_pages(api):
    template_id = await template(api)
    made = await one_off(api, documents=[lease(pages=2)], template_ids=[template_id], merge_documents=True)
    [document] = made["schema"]
    assert {a["attachment_uuid"] for f in made["fields"] for a in f["areas"]} == {document["attachment_uuid"]}
    pages = {f["name"]: f["areas"][0]["page"] for f in made["fields"]}
    assert pages["Tenant Name"] == 0 and pages["Full Name"] == 2, "the template's page after the lease's two"


# Signing, sealing, webhooks


@CJK_FONT
async def test_the_signers_complete_it_and_the_signed_pdf_verifies(api, db):
    made = await one_off(api, order="random")
    tenant, landlord = made["submitters"]
    assert (await act(api, tenant["slug"], "complete", {"values": TENANT_VALUES})).status == 200
    reply = await act(api, landlord["slug"], "complete", {"values": {"Landlord Name": "Leo Landlord"}})
    assert reply.status == 200
    await api.app[WORKER].drain()
    found = await submission(api, made["id"])
    assert found["status"] == "completed" and found["template"] is None
    [document] = found["documents"]
    data = await fetch(api, document["url"])
    status = await validate(db, data)
    assert status.intact and status.valid and status.trusted
    text = "\n".join(page_texts(data))
    assert "Tia Tenant" in text and "Leo Landlord" in text
    assert len(pypdf.PdfReader(io.BytesIO(data)).pages) == 1
    for url in (found["audit_log_url"], found["combined_document_url"]):
        assert (await validate(db, await fetch(api, url))).valid


async def test_webhooks_carry_its_events_with_template_null(hooked, receiver):  # noqa: F811
    made = await one_off(hooked, TENANT, documents=[lease(fields=FIELDS[:2])])
    await act(hooked, made["submitters"][0]["slug"], "complete", {"values": TENANT_VALUES})
    envelopes = await received(hooked, receiver)
    assert [e["event_type"] for e in envelopes] == [
        "submission.created",
        "form.started",
        "form.completed",
        "submission.completed",
    ]
    [created] = of_type(envelopes, "submission.created")
    assert created["id"] == made["id"] and created["template"] is None
    [completed] = of_type(envelopes, "form.completed")
    assert completed["template"] is None and completed["submission"]["id"] == made["id"]


async def test_the_testing_api_completes_it_and_the_submitter_and_events_feed_show_template_null(
    aiohttp_client, make_app
):
    kit = Api(await aiohttp_client(make_app(testing=True)))
    made = await one_off(kit, TENANT, documents=[lease(fields=FIELDS[:2])])
    tenant = made["submitters"][0]
    reply = await kit.post(f"/api/_testing/submitters/{tenant['id']}/complete", json={"values": TENANT_VALUES})
    assert reply.status == 200, reply.json
    await kit.app[WORKER].drain()
    shown = (await kit.get(f"/api/submitters/{tenant['id']}")).json
    assert shown["status"] == "completed" and shown["template"] is None
    [item] = (await kit.get("/api/events/form/completed")).json["data"]
    assert item["data"]["submission"]["id"] == made["id"] and item["data"]["template"] is None


@pytest.mark.parametrize("other", ["another account", "the test account"])
async def test_another_account_cannot_read_it(api, other_account, other):
    made = await one_off(api)
    reader = api.with_key(other_account.live if other == "another account" else TEST_KEY)
    assert (await reader.get(f"/api/submissions/{made['id']}")).status == (403 if other == "another account" else 404)


async def test_the_openapi_example_is_accepted(api):
    document = json.loads(OPENAPI_PATH.read_text())
    content = document["paths"]["/submissions/pdf"]["post"]["requestBody"]["content"]["application/json"]
    reply = await api.post("/api/submissions/pdf", json=content["examples"]["lease"]["value"])
    assert reply.status == 200, reply.json
    assert reply.json["submitters"][0]["values"] == [{"field": "Rent", "value": "1200"}]


async def test_text_tags_become_fields_of_the_one_off_submission(api):
    document = {"name": "tagged", "file": b64(text_pdf("Tenant: {{Tenant Name;role=Tenant}}"))}
    made = await one_off(api, TENANT, documents=[document])
    assert [(f["name"], f["type"]) for f in made["fields"]] == [("Tenant Name", "text")]
