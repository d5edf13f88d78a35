"""Clickwraps and consents."""

from datetime import timedelta

import pytest

from tests.support.app import TEST_KEY
from tests.support.documents import b64, pdf
from tests.support.signing import template

TERMS = {
    "name": "Terms of Service",
    "kind": "no_document",
    "content": "Line one\nLine <b>two</b>",
    "button_text": "Accept",
    "require_name": True,
    "require_email": False,
    "checkboxes": [{"text": "I read the privacy notice", "required": True}],
}


async def create(api, **changes):
    reply = await api.post("/api/clickwraps", json={**TERMS, **changes})
    assert reply.status == 200, reply.json
    return reply.json


async def template_id(api, **changes) -> int:
    reply = await api.post("/api/templates", json={"documents": [{"name": "terms.pdf", "file": b64(pdf())}], **changes})
    return reply.json["id"]


async def test_create_answers_the_clickwrap_with_its_draft_settings_and_public_url(api):
    clickwrap = await create(api)
    assert clickwrap["id"] == 1 and clickwrap["name"] == "Terms of Service" and clickwrap["kind"] == "no_document"
    assert (clickwrap["published"], clickwrap["active_version_number"]) == (False, None)
    assert clickwrap["url"] == f"http://signsvc.test/c/{clickwrap['slug']}"
    assert clickwrap["button_text"] == "Accept" and clickwrap["require_name"] is True
    assert clickwrap["checkboxes"] == [{"text": "I read the privacy notice", "required": True}]


async def test_content_is_plain_text_kept_with_line_breaks_and_html_as_text(api):
    clickwrap = await create(api)
    assert clickwrap["content"] == "Line one\nLine <b>two</b>"


async def test_create_with_publish_true_releases_version_1(api):
    clickwrap = await create(api, publish=True)
    assert (clickwrap["published"], clickwrap["active_version_number"]) == (True, 1)


async def test_publish_releases_the_draft_as_the_next_version(api):
    clickwrap = await create(api)
    first = await api.post(f"/api/clickwraps/{clickwrap['id']}/publish")
    second = await api.post(f"/api/clickwraps/{clickwrap['id']}/publish")
    assert (first.json["active_version_number"], second.json["active_version_number"]) == (1, 2)


async def test_put_edits_the_draft_and_leaves_the_active_version_until_the_next_publish(api):
    clickwrap = await create(api, publish=True)
    edited = await api.put(f"/api/clickwraps/{clickwrap['id']}", json={"content": "New terms"})
    assert (edited.status, edited.json["content"], edited.json["active_version_number"]) == (200, "New terms", 1)
    released = await api.put(f"/api/clickwraps/{clickwrap['id']}", json={"name": "Terms v2", "publish": True})
    assert (released.json["name"], released.json["active_version_number"]) == ("Terms v2", 2)


async def test_published_versions_never_change(api, db):
    import storage.clickwraps as stored

    clickwrap = await create(api, publish=True)
    await api.put(f"/api/clickwraps/{clickwrap['id']}", json={"content": "Changed afterwards", "name": "Renamed"})
    version = await stored.get_version(db, clickwrap["id"], 1)
    assert (version.name, version.settings["content"]) == ("Terms of Service", "Line one\nLine <b>two</b>")


async def test_get_answers_settings_version_number_and_url(api):
    clickwrap = await create(api, publish=True)
    reply = await api.get(f"/api/clickwraps/{clickwrap['id']}")
    assert reply.json == clickwrap


async def test_list_is_paginated_newest_first(api):
    ids = [(await create(api, name=f"Terms {n}"))["id"] for n in range(3)]
    reply = await api.get("/api/clickwraps?limit=2")
    assert [c["id"] for c in reply.json["data"]] == ids[:0:-1]
    assert reply.json["pagination"] == {"count": 2, "next": ids[1], "prev": ids[2]}


async def test_document_kinds_need_a_template_of_the_account(api):
    template = await template_id(api)
    view = await create(api, kind="view_only", template_id=template, content=None, publish=True)
    assert (view["template_id"], view["active_version_number"]) == (template, 1)
    signed = await create(api, kind="requires_signature", template_id=template)
    assert signed["kind"] == "requires_signature"


async def test_publishing_a_draft_whose_template_was_archived_is_422(api):
    template = await template_id(api)
    clickwrap = await create(api, kind="view_only", template_id=template)
    await api.delete(f"/api/templates/{template}")
    reply = await api.post(f"/api/clickwraps/{clickwrap['id']}/publish")
    assert (reply.status, reply.json) == (422, {"error": f"template_id {template} names an archived template"})
    assert (await api.get(f"/api/clickwraps/{clickwrap['id']}")).json["published"] is False


async def test_publishing_a_no_document_draft_without_content_is_422(api):
    clickwrap = await create(api, content=None)
    reply = await api.post(f"/api/clickwraps/{clickwrap['id']}/publish")
    assert (reply.status, reply.json) == (422, {"error": "content is required to publish a no_document clickwrap"})


async def test_a_consent_records_the_active_version_and_the_arrival_time(api, clock):
    clickwrap = await create(api, publish=True)
    clock.advance(timedelta(minutes=3))
    reply = await api.post(
        f"/api/clickwraps/{clickwrap['id']}/consents",
        json={
            "name": "Ada",
            "email": "ada@example.com",
            "external_id": "u-1",
            "ip": "203.0.113.9",
            "user_agent": "Mozilla/5.0",
        },
    )
    assert reply.status == 200
    assert reply.json == {
        "id": 1,
        "clickwrap_id": clickwrap["id"],
        "clickwrap_version_number": 1,
        "name": "Ada",
        "email": "ada@example.com",
        "external_id": "u-1",
        "ip": "203.0.113.9",
        "user_agent": "Mozilla/5.0",
        "agreed_at": "2026-01-01T12:03:00.000Z",
        "certificate_url": None,
        "source": "api",
        "checkboxes": [],
        "submission_id": None,
    }


async def test_a_consent_without_ip_and_user_agent_records_the_calling_server(api):
    clickwrap = await create(api, publish=True)
    reply = await api.post(
        f"/api/clickwraps/{clickwrap['id']}/consents", json={}, headers={"User-Agent": "crm-backend/2.0"}
    )
    assert (reply.json["ip"], reply.json["user_agent"]) == ("127.0.0.1", "crm-backend/2.0")


async def test_required_name_email_and_checkboxes_are_not_checked_on_the_consent_endpoint(api):
    clickwrap = await create(api, publish=True, require_email=True)
    reply = await api.post(f"/api/clickwraps/{clickwrap['id']}/consents", json={})
    assert reply.status == 200 and reply.json["name"] is None


async def test_a_consent_needs_a_published_clickwrap(api):
    clickwrap = await create(api)
    reply = await api.post(f"/api/clickwraps/{clickwrap['id']}/consents", json={"name": "Ada"})
    assert reply.status == 422
    assert reply.json == {
        "error": f"Clickwrap {clickwrap['id']} is not published: publish a version before recording consents"
    }


async def test_consents_are_attributed_to_the_version_active_when_they_arrived(api):
    clickwrap = await create(api, publish=True)
    path = f"/api/clickwraps/{clickwrap['id']}"
    await api.post(f"{path}/consents", json={"name": "First"})
    await api.put(path, json={"content": "Terms v2", "publish": True})
    await api.post(f"{path}/consents", json={"name": "Second"})
    listed = await api.get(f"{path}/consents")
    assert [(c["name"], c["clickwrap_version_number"]) for c in listed.json["data"]] == [("Second", 2), ("First", 1)]
    assert listed.json["pagination"]["count"] == 2


async def test_get_consent_answers_the_consent(api):
    clickwrap = await create(api, publish=True)
    created = (await api.post(f"/api/clickwraps/{clickwrap['id']}/consents", json={"email": "a@example.com"})).json
    assert (await api.get(f"/api/consents/{created['id']}")).json == created
    assert (await api.get("/api/consents/99")).status == 404


async def test_another_accounts_clickwrap_and_consent_are_403_not_authorized(api, other_account):
    clickwrap = await create(api, publish=True)
    consent = (await api.post(f"/api/clickwraps/{clickwrap['id']}/consents", json={})).json
    other = api.with_key(other_account.live)
    for method, path in (
        ("GET", f"/api/clickwraps/{clickwrap['id']}"),
        ("PUT", f"/api/clickwraps/{clickwrap['id']}"),
        ("POST", f"/api/clickwraps/{clickwrap['id']}/publish"),
        ("GET", f"/api/clickwraps/{clickwrap['id']}/consents"),
        ("POST", f"/api/clickwraps/{clickwrap['id']}/consents"),
        ("GET", f"/api/consents/{consent['id']}"),
    ):
        reply = await other.request(method, path, json={} if method != "GET" else None)
        assert (reply.status, reply.json) == (403, {"error": "Not authorized"}), (method, path)


async def test_a_live_clickwrap_asked_with_the_test_key_is_404_naming_the_key(api):
    clickwrap = await create(api)
    reply = await api.with_key(TEST_KEY).get(f"/api/clickwraps/{clickwrap['id']}")
    assert (reply.status, reply.json["error"]) == (
        404,
        f"Clickwrap {clickwrap['id']} not found using testing API "
        "key; Use production API key to access production clickwraps.",
    )
    assert (await api.with_key(TEST_KEY).get("/api/clickwraps")).json["data"] == []


async def test_a_template_of_another_account_is_refused(api, other_account):
    theirs = await template_id(api.with_key(other_account.live))
    reply = await api.post("/api/clickwraps", json={**TERMS, "kind": "view_only", "template_id": theirs})
    assert (reply.status, reply.json) == (422, {"error": f"template_id {theirs} is not a template of this account"})


@pytest.mark.parametrize(
    "change,message",
    [
        ({"kind": "popup"}, "kind must be one of: no_document, view_only, requires_signature"),
        ({"kind": None}, "kind must be one of: no_document, view_only, requires_signature"),
        ({"name": ""}, "name is required"),
        ({"name": 7}, "name must be a String"),
        ({"kind": "view_only"}, "template_id is required for a view_only clickwrap"),
        ({"kind": "requires_signature", "template_id": "1"}, "template_id must be an integer"),
        ({"kind": "view_only", "template_id": 999}, "template_id 999 does not name a template"),
        ({"checkboxes": "agree"}, "checkboxes must be an array of at most 20 objects with text and required"),
        ({"checkboxes": ["agree"]}, "checkboxes[0] must be an object with text and required"),
        ({"checkboxes": [{"text": "x", "required": "yes"}]}, "checkboxes[0].required must be true or false"),
        ({"checkboxes": [{"required": True}]}, "checkboxes[0].text is required"),
        ({"require_name": "true"}, "require_name must be true or false"),
        ({"publish": 1}, "publish must be true or false"),
        ({"name": "x" * 256}, "name is too long: at most 255 characters"),
        ({"content": "x" * 100_001}, "content is too long: at most 100000 characters"),
    ],
)
async def test_bad_clickwrap_input_is_422_naming_the_problem_and_creates_nothing(api, change, message):
    reply = await api.post("/api/clickwraps", json={**TERMS, **change})
    assert (reply.status, reply.json) == (422, {"error": message})
    assert (await api.get("/api/clickwraps")).json["data"] == []


@pytest.mark.parametrize(
    "body,message",
    [
        ({"name": 5}, "name must be a String"),
        ({"user_agent": "x" * 1001}, "user_agent is too long: at most 1000 characters"),
    ],
)
async def test_bad_consent_input_is_422(api, body, message):
    clickwrap = await create(api, publish=True)
    reply = await api.post(f"/api/clickwraps/{clickwrap['id']}/consents", json=body)
    assert (reply.status, reply.json) == (422, {"error": message})


async def test_put_archived_true_archives_and_false_restores_an_extension(api, clock):
    clickwrap = await create(api, publish=True)
    clock.advance(timedelta(minutes=1))
    archived = await api.put(f"/api/clickwraps/{clickwrap['id']}", json={"archived": True})
    assert (archived.status, archived.json["archived_at"]) == (200, "2026-01-01T12:01:00.000Z")
    restored = await api.put(f"/api/clickwraps/{clickwrap['id']}", json={"archived": False})
    assert restored.json["archived_at"] is None


async def test_the_list_holds_active_clickwraps_and_archived_true_lists_the_archived(api):
    active, archived = await create(api, name="Active"), await create(api, name="Old")
    await api.put(f"/api/clickwraps/{archived['id']}", json={"archived": True})
    assert [c["id"] for c in (await api.get("/api/clickwraps")).json["data"]] == [active["id"]]
    assert [c["id"] for c in (await api.get("/api/clickwraps?archived=true")).json["data"]] == [archived["id"]]


async def test_an_archived_clickwrap_takes_no_consent_422(api):
    clickwrap = await create(api, publish=True)
    await api.put(f"/api/clickwraps/{clickwrap['id']}", json={"archived": True})
    reply = await api.post(f"/api/clickwraps/{clickwrap['id']}/consents", json={"name": "Ada"})
    assert (reply.status, reply.json) == (
        422,
        {
            "error": f"Clickwrap {clickwrap['id']} is archived: restore it with "
            "archived: false before recording consents"
        },
    )


async def test_publishing_requires_signature_needs_a_template_one_person_can_sign_422(api):
    empty, two_roles = await template_id(api), await template(api)
    for unsignable in (empty, two_roles):
        reply = await api.post(
            "/api/clickwraps", json={**TERMS, "kind": "requires_signature", "template_id": unsignable, "publish": True}
        )
        assert (reply.status, reply.json) == (
            422,
            {
                "error": f"template_id {unsignable} names a template one person "
                "cannot sign alone: a requires_signature clickwrap needs "
                "fields for the first role and none for the others"
            },
        )


@pytest.mark.parametrize("template", [0, 2**63, -(2**63) - 1, 10**30])
async def test_a_template_id_beyond_the_ids_names_no_template(api, template):
    reply = await api.post("/api/clickwraps", json={"name": "Terms", "kind": "view_only", "template_id": template})
    assert (reply.status, reply.json) == (422, {"error": f"template_id {template} does not name a template"})
