"""The clickwrap's page /c/{slug} over HTTP: what it shows, the consent posted from it with the rules it
enforces, its certificate (sealed, verified, emailed), the signing that follows a requires_signature
clickwrap, and the consent.created event.

What the page does in a browser is in tests/browser/test_clickwrap_page.py."""

import asyncio
import base64
import re
from datetime import timedelta
from html import unescape
from urllib.parse import urlsplit

import pytest

import storage.emails as stored_emails
import storage.files as stored_files
from tests.support.app import Api
from tests.support.documents import b64, pdf
from tests.support.every_field import ONE_FIELD, every_field_template
from tests.support.results import fetch

TERMS = {
    "name": "Terms of Service",
    "kind": "no_document",
    "content": "Line one\nLine <b>two</b>",
    "button_text": "Accept the terms",
    "require_name": True,
    "require_email": True,
    "publish": True,
    "checkboxes": [
        {"text": "I read the privacy notice", "required": True},
        {"text": "Send me news", "required": False},
    ],
}
ANSWERS = {"name": "Ada Lovelace", "email": "ada@example.com", "checkbox-0": "yes"}
BROWSER = "Mozilla/5.0 (X11; Linux x86_64) Chromium/120"


async def clickwrap(api: Api, **changes) -> dict:
    reply = await api.post("/api/clickwraps", json={**TERMS, **changes})
    assert reply.status == 200, reply.json
    return reply.json


async def open_page(api: Api, slug: str, query: str = ""):
    return await api.with_key(None).get(f"/c/{slug}{query}", headers={"Accept": "text/html"})


def form_of(reply) -> dict[str, str]:
    """The hidden inputs of the page's form."""
    body = reply.body.decode()
    return {
        name: unescape(value)
        for name, value in re.findall(r'<input type="hidden" name="([a-z_]+)" value="([^"]*)">', body)
    }


async def agree(api: Api, slug: str, answers: dict | None = None, *, page=None, **headers: str):
    """Opens the page (unless given) and posts its form with the answers, as a browser does."""
    page = page or await open_page(api, slug)
    data = {**form_of(page), **(ANSWERS if answers is None else answers)}
    return await api.with_key(None).post(
        f"/c/{slug}",
        data=data,
        allow_redirects=False,
        headers={"Accept": "text/html", "User-Agent": BROWSER, **headers},
    )


def text(reply) -> str:
    shown = re.sub(r"<(script|title)\b.*?</\1>", " ", reply.body.decode(), flags=re.S)
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", shown)).split())


async def consents(api: Api, clickwrap_id: int) -> list[dict]:
    return (await api.get(f"/api/clickwraps/{clickwrap_id}/consents")).json["data"]


async def one_signer_template(api: Api) -> int:
    """A template whose first role alone has fields: one person can sign it."""
    return await every_field_template(api, ONE_FIELD)


async def document_template(api: Api) -> int:
    reply = await api.post(
        "/api/templates", json={"name": "Licence", "documents": [{"name": "licence.pdf", "file": b64(pdf())}]}
    )
    return reply.json["id"]


async def test_the_page_shows_the_active_version_as_plain_text_with_its_line_breaks(api):
    terms = await clickwrap(api)
    reply = await open_page(api, terms["slug"])
    body = reply.body.decode()
    assert reply.status == 200 and reply.headers["Content-Type"].startswith("text/html")
    assert (
        '<div class="agreement" tabindex="0" role="region" aria-label="Agreement">'
        "Line one\nLine &lt;b&gt;two&lt;/b&gt;</div>"
    ) in body
    assert ">Accept the terms</button>" in body and "Version 1" in text(reply)
    assert '<label for="checkbox-0">I read the privacy notice <span class="hint">(required)</span></label>' in body


async def test_the_page_shows_the_published_version_not_the_draft_edited_since(api):
    terms = await clickwrap(api)
    await api.put(f"/api/clickwraps/{terms['id']}", json={"content": "Draft terms"})
    assert "Line one" in text(await open_page(api, terms["slug"]))
    assert "Draft terms" not in text(await open_page(api, terms["slug"]))


async def test_query_name_and_email_prefill_the_form_escaped(api):
    terms = await clickwrap(api)
    query = "?name=%3Cscript%3Ealert(1)%3C/script%3E&email=ada%40example.com&external_id=crm-7"
    reply = await open_page(api, terms["slug"], query)
    body = reply.body.decode()
    assert reply.status == 200 and "<script>alert" not in body
    assert 'value="&lt;script&gt;alert(1)&lt;/script&gt;"' in body and 'value="ada@example.com"' in body
    assert form_of(reply)["external_id"] == "crm-7"


async def test_a_prefill_of_10000_characters_is_kept_and_refused_with_a_message_not_cut(api):
    terms = await clickwrap(api)
    reply = await open_page(api, terms["slug"], "?name=" + "A" * 10_000 + "&external_id=" + "x" * 10_000)
    assert reply.status == 200
    assert '<span class="problem" id="name-problem">Please enter at most 255 characters.</span>' in reply.body.decode()
    assert "The link's reference cannot be used" in text(reply)
    assert form_of(reply)["external_id"] == "x" * 10_000
    posted = await agree(api, terms["slug"], {**ANSWERS, "external_id": "x" * 10_000}, page=reply)
    assert posted.status == 422 and await consents(api, terms["id"]) == []


async def test_a_clickwrap_never_published_is_a_human_404(api):
    draft = await clickwrap(api, publish=False)
    reply = await open_page(api, draft["slug"])
    assert reply.status == 404 and reply.headers["Content-Type"].startswith("text/html")
    assert "Not found" in text(reply) or "not found" in text(reply).lower()
    assert (await open_page(api, "nosuchslug")).status == 404


async def test_the_page_refuses_framing(api):
    terms = await clickwrap(api)
    reply = await open_page(api, terms["slug"])
    assert reply.headers["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in reply.headers["Content-Security-Policy"]
    posted = await agree(api, terms["slug"], {"name": ""})
    assert posted.headers["X-Frame-Options"] == "DENY"


async def test_a_view_only_clickwrap_shows_its_template_pages_as_pictures(api):
    template_id = await document_template(api)
    licence = await clickwrap(api, kind="view_only", template_id=template_id, content=None)
    body = (await open_page(api, licence["slug"])).body.decode()
    images = re.findall(r'<img src="(/file/[^"]+)" width="\d+" height="\d+" alt="Page 1 of licence"', body)
    assert len(images) == 1
    assert (await api.with_key(None).get(images[0])).status == 200


async def test_agreeing_records_the_consent_with_address_browser_version_and_answers(api):
    terms = await clickwrap(api)
    reply = await agree(api, terms["slug"], {**ANSWERS, "external_id": "crm-7"})
    assert reply.status == 200 and "Thank you" in text(reply) and "ada@example.com" in text(reply)
    [consent] = await consents(api, terms["id"])
    assert consent["clickwrap_version_number"] == 1 and consent["agreed_at"] == "2026-01-01T12:00:00.000Z"
    assert (consent["name"], consent["email"], consent["external_id"]) == ("Ada Lovelace", "ada@example.com", "crm-7")
    assert consent["ip"] == "127.0.0.1" and consent["user_agent"] == BROWSER and consent["source"] == "page"
    assert consent["checkboxes"] == [
        {"text": "I read the privacy notice", "required": True, "checked": True},
        {"text": "Send me news", "required": False, "checked": False},
    ]


async def test_behind_a_trusted_proxy_the_consent_records_the_forwarded_address(make_app, aiohttp_client):
    api = Api(await aiohttp_client(make_app(trusted_proxies=("127.0.0.1",))))
    terms = await clickwrap(api)
    await agree(api, terms["slug"], **{"X-Forwarded-For": "203.0.113.9"})
    assert (await consents(api, terms["id"]))[0]["ip"] == "203.0.113.9"


@pytest.mark.parametrize(
    ("answers", "where", "message"),
    [
        ({**ANSWERS, "name": "  "}, "name", "Please enter your name."),
        ({**ANSWERS, "email": ""}, "email", "Please enter your email address."),
        ({**ANSWERS, "email": "ada at example"}, "email", "Please enter an email address such as name@example.com."),
        ({**ANSWERS, "name": "A" * 256}, "name", "Please enter at most 255 characters."),
        ({**ANSWERS, "name": "Ada\x00"}, "name", "Please enter your name without special characters."),
        ({"name": "Ada", "email": "ada@example.com"}, "checkbox-0", "Please tick this box to agree."),
    ],
)
async def test_required_name_email_and_checkboxes_are_enforced_beside_each_input(api, answers, where, message):
    terms = await clickwrap(api)
    reply = await agree(api, terms["slug"], answers)
    body = reply.body.decode()
    assert reply.status == 422
    assert f'<span class="problem" id="{where}-problem">{message}</span>' in body
    assert re.search(rf'id="{where}"[^>]*aria-invalid="true" aria-describedby="{where}-problem"', body)
    assert await consents(api, terms["id"]) == []


async def test_a_reference_that_cannot_be_stored_is_refused_not_half_written(api):
    terms = await clickwrap(api)
    reply = await agree(api, terms["slug"], {**ANSWERS, "external_id": "crm\x007"})
    assert reply.status == 422 and "The link's reference cannot be used" in text(reply)
    assert await consents(api, terms["id"]) == []


async def test_a_refused_form_keeps_the_answers_given(api):
    terms = await clickwrap(api)
    reply = await agree(api, terms["slug"], {"name": "Ada <b>", "email": "ada@example.com", "checkbox-1": "yes"})
    body = reply.body.decode()
    assert 'value="Ada &lt;b&gt;"' in body and re.search(r'id="checkbox-1"[^>]* checked', body)


async def test_optional_name_and_email_may_be_left_out(api):
    terms = await clickwrap(api, require_name=False, require_email=False, checkboxes=[])
    reply = await agree(api, terms["slug"], {})
    assert reply.status == 200
    [consent] = await consents(api, terms["id"])
    assert (consent["name"], consent["email"]) == (None, None)


async def test_a_form_posted_twice_records_one_consent(api):
    terms = await clickwrap(api)
    page = await open_page(api, terms["slug"])
    first = await agree(api, terms["slug"], page=page)
    again = await agree(api, terms["slug"], page=page)
    assert first.status == again.status == 200
    assert len(await consents(api, terms["id"])) == 1


async def test_a_double_click_of_concurrent_posts_records_one_consent(api):
    terms = await clickwrap(api)
    page = await open_page(api, terms["slug"])
    replies = await asyncio.gather(*(agree(api, terms["slug"], page=page) for _ in range(3)))
    assert [reply.status for reply in replies] == [200, 200, 200]
    assert len(await consents(api, terms["id"])) == 1


async def test_a_post_not_made_from_the_page_in_this_browser_is_refused_403(api):
    terms = await clickwrap(api)
    page = await open_page(api, terms["slug"])
    api.client.session.cookie_jar.clear()
    reply = await agree(api, terms["slug"], page=page)
    assert reply.status == 403 and "could not be checked" in text(reply)
    forged = await api.with_key(None).post(f"/c/{terms['slug']}", data={**ANSWERS, "version": "1"})
    assert forged.status == 403
    assert await consents(api, terms["id"]) == []


async def test_a_version_published_while_the_page_was_open_is_shown_before_anyone_agrees_to_it(api):
    terms = await clickwrap(api)
    page = await open_page(api, terms["slug"])
    await api.put(f"/api/clickwraps/{terms['id']}", json={"content": "Terms, second edition", "publish": True})
    reply = await agree(api, terms["slug"], page=page)
    assert reply.status == 409 and "updated while the page was open" in text(reply)
    assert "Terms, second edition" in text(reply) and form_of(reply)["version"] == "2"
    assert await consents(api, terms["id"]) == []
    assert (await agree(api, terms["slug"], page=reply)).status == 200
    assert [c["clickwrap_version_number"] for c in await consents(api, terms["id"])] == [2]


async def test_a_clickwrap_whose_template_was_archived_is_no_longer_available_410(api):
    template_id = await document_template(api)
    licence = await clickwrap(api, kind="view_only", template_id=template_id, content=None)
    page = await open_page(api, licence["slug"])
    await api.delete(f"/api/templates/{template_id}")
    for reply in (await open_page(api, licence["slug"]), await agree(api, licence["slug"], page=page)):
        assert reply.status == 410 and "No longer available" in text(reply)
    assert await consents(api, licence["id"]) == []


async def test_a_clickwrap_archived_while_the_page_was_open_is_no_longer_available_410(api):
    terms = await clickwrap(api)
    page = await open_page(api, terms["slug"])
    await api.put(f"/api/clickwraps/{terms['id']}", json={"archived": True})
    for reply in (await open_page(api, terms["slug"]), await agree(api, terms["slug"], page=page)):
        assert reply.status == 410 and "No longer available" in text(reply)
    assert await consents(api, terms["id"]) == []


@pytest.mark.parametrize("version", ["\u00b2", "9" * 5000, "-1", ""])
async def test_a_version_that_is_no_number_is_a_changed_version_not_an_error(api, version):
    terms = await clickwrap(api)
    page = await open_page(api, terms["slug"])
    reply = await api.with_key(None).post(
        f"/c/{terms['slug']}", allow_redirects=False, data={**form_of(page), **ANSWERS, "version": version}
    )
    assert reply.status == 409 and await consents(api, terms["id"]) == []


async def test_a_form_token_of_another_clickwrap_page_is_refused_as_expired(api):
    first, second = await clickwrap(api), await clickwrap(api, name="Other terms")
    page = await open_page(api, first["slug"])
    assert (await agree(api, first["slug"], page=page)).status == 200
    reply = await agree(api, second["slug"], page=page)
    assert reply.status == 403 and await consents(api, second["id"]) == []


async def test_a_token_seen_by_another_browser_cannot_replay_the_post(api):
    terms = await clickwrap(api)
    page = await open_page(api, terms["slug"])
    assert (await agree(api, terms["slug"], page=page)).status == 200
    api.client.session.cookie_jar.clear()  # now another browser, with a form cookie of its own
    await open_page(api, terms["slug"])
    reply = await agree(api, terms["slug"], page=page)
    assert reply.status == 403 and "Ada Lovelace" not in text(reply)


async def test_an_archived_clickwrap_with_a_bad_token_is_no_longer_available_410(api):
    terms = await clickwrap(api)
    await api.put(f"/api/clickwraps/{terms['id']}", json={"archived": True})
    reply = await api.with_key(None).post(f"/c/{terms['slug']}", data={**ANSWERS, "version": "1"})
    assert reply.status == 410


async def test_the_persons_email_is_kept_lowercased_and_the_author_mailed_once(api, worker, db):
    author = (await api.get("/api/user")).json["email"]
    terms = await clickwrap(api)
    await agree(api, terms["slug"], {**ANSWERS, "email": author.upper()})
    await worker.drain()
    assert (await consents(api, terms["id"]))[0]["email"] == author
    emails = [e for e in await stored_emails.list_emails(db, 1, limit=10) if e.kind == "consent_certificate"]
    assert [e.to_address for e in emails] == [author]


async def test_a_post_that_is_not_a_form_is_refused_with_a_page(api):
    terms = await clickwrap(api)
    reply = await api.with_key(None).post(f"/c/{terms['slug']}", json=ANSWERS, headers={"Accept": "text/html"})
    assert reply.status == 415 and "could not be read" in text(reply)
    huge = await api.with_key(None).post(f"/c/{terms['slug']}", data={"name": "x" * 100_000})
    assert huge.status == 413 and "could not be read" in text(huge)


async def test_a_clickwrap_pages_token_is_refused_by_a_template_link_and_stays_usable(api):
    terms = await clickwrap(api)
    template_slug = (await api.get(f"/api/templates/{await one_signer_template(api)}")).json["slug"]
    page = await open_page(api, terms["slug"])
    started = await api.with_key(None).post(
        f"/d/{template_slug}", allow_redirects=False, data={**form_of(page), "email": "ada@example.com"}
    )
    assert started.status == 403 and (await api.get("/api/submissions")).json["data"] == []
    assert (await agree(api, terms["slug"], page=page)).status == 200


async def test_the_certificate_is_made_sealed_and_verified_as_issued_by_the_service(api, worker):
    terms = await clickwrap(api)
    await agree(api, terms["slug"])
    assert (await consents(api, terms["id"]))[0]["certificate_url"] is None  # until the job ran
    await worker.drain()
    [consent] = await consents(api, terms["id"])
    assert urlsplit(consent["certificate_url"]).path.endswith("/Consent%20Certificate%20-%20Terms%20of%20Service.pdf")
    assert (await api.get(f"/api/consents/{consent['id']}")).json["certificate_url"] == consent["certificate_url"]
    certificate = await fetch(api, consent["certificate_url"])
    verified = await api.post("/api/tools/verify", json={"file": base64.b64encode(certificate).decode()})
    assert verified.json["issued_by_service"] is True


async def test_the_certificate_link_lasts_40_minutes(api, worker, clock):
    terms = await clickwrap(api)
    await agree(api, terms["slug"])
    await worker.drain()
    url = (await consents(api, terms["id"]))[0]["certificate_url"]
    clock.advance(timedelta(minutes=41))
    parts = urlsplit(url)
    assert (await api.with_key(None).get(parts.path)).status == 403


async def test_the_certificate_is_emailed_to_the_person_and_to_the_clickwraps_author(api, worker, db):
    author = (await api.get("/api/user")).json["email"]
    terms = await clickwrap(api)
    await agree(api, terms["slug"])
    await worker.drain()
    emails = {
        e.to_address: e for e in await stored_emails.list_emails(db, 1, limit=10) if e.kind == "consent_certificate"
    }
    assert set(emails) == {"ada@example.com", author}
    assert emails["ada@example.com"].subject == "You agreed to Terms of Service"
    assert "version 1" in emails["ada@example.com"].text_body
    assert emails[author].subject == "New consent to Terms of Service"  # the name the person typed: in the text
    assert "Ada Lovelace" in emails[author].text_body
    for email in emails.values():
        [blob_id] = email.attachments
        blob = await stored_files.required_blob(db, blob_id)
        assert blob.filename == "Consent Certificate - Terms of Service.pdf"


async def test_without_an_email_only_the_author_gets_the_certificate(api, worker, db):
    terms = await clickwrap(api, require_email=False)
    await agree(api, terms["slug"], {"name": "Ada", "checkbox-0": "yes"})
    await worker.drain()
    emails = [e for e in await stored_emails.list_emails(db, 1, limit=10) if e.kind == "consent_certificate"]
    assert len(emails) == 1 and emails[0].subject == "New consent to Terms of Service"


async def test_requires_signature_continues_to_the_signing_form_of_a_submission_for_the_person(api, worker):
    template_id = await one_signer_template(api)
    nda = await clickwrap(api, kind="requires_signature", template_id=template_id, content=None)
    reply = await agree(api, nda["slug"])
    assert reply.status == 303
    slug = reply.headers["Location"].removeprefix("/s/")
    [consent] = await consents(api, nda["id"])
    submission = (await api.get(f"/api/submissions/{consent['submission_id']}")).json
    [signer] = submission["submitters"]
    assert (signer["slug"], signer["name"], signer["email"]) == (slug, "Ada Lovelace", "ada@example.com")
    assert submission["source"] == "clickwrap" and submission["template"]["id"] == template_id
    form = await api.with_key(None).get(f"/s/{slug}", headers={"Accept": "text/html"})
    assert form.status == 200 and ">Complete<" in form.body.decode()


async def test_requires_signature_whose_template_lost_its_fields_says_it_cannot_be_signed(api):
    template_id = await one_signer_template(api)
    nda = await clickwrap(api, kind="requires_signature", template_id=template_id, content=None)
    page = await open_page(api, nda["slug"])
    assert (await api.put(f"/api/templates/{template_id}", json={"fields": []})).status == 200
    for reply in (await open_page(api, nda["slug"]), await agree(api, nda["slug"], page=page)):
        assert reply.status == 409 and "cannot be signed" in text(reply)
    assert await consents(api, nda["id"]) == []


async def test_requires_signature_without_required_name_or_email_asks_the_name(api):
    template_id = await one_signer_template(api)
    nda = await clickwrap(
        api,
        kind="requires_signature",
        template_id=template_id,
        content=None,
        require_name=False,
        require_email=False,
        checkboxes=[],
    )
    page = await open_page(api, nda["slug"])
    assert re.search(r'id="name"[^>]* required', page.body.decode())
    refused = await agree(api, nda["slug"], {}, page=page)
    assert refused.status == 422 and "Please enter your name." in text(refused)
    signed = await agree(api, nda["slug"], {"name": "Ada"})
    assert signed.status == 303


async def test_requires_signature_posted_twice_makes_one_submission(api):
    template_id = await one_signer_template(api)
    nda = await clickwrap(api, kind="requires_signature", template_id=template_id, content=None)
    page = await open_page(api, nda["slug"])
    replies = await asyncio.gather(*(agree(api, nda["slug"], page=page) for _ in range(2)))
    assert replies[0].headers["Location"] == replies[1].headers["Location"]
    assert len(await consents(api, nda["id"])) == 1
    assert (await api.get("/api/submissions")).json["pagination"]["count"] == 1


async def test_consent_created_is_sent_with_the_certificate_to_endpoints_that_chose_it(api, worker, receiver):
    await api.post("/api/webhooks", json={"url": receiver.url(), "events": ["consent.created"]})
    terms = await clickwrap(api)
    await agree(api, terms["slug"])
    await worker.drain()
    [received] = receiver.received
    Api.checker.check_webhook(received.body)
    assert received.json["event_type"] == "consent.created"
    assert received.json["data"]["certificate_url"] and received.json["data"]["name"] == "Ada Lovelace"


async def test_a_consent_recorded_through_the_api_sends_consent_created_without_certificate(api, worker, receiver):
    await api.post("/api/webhooks", json={"url": receiver.url(), "events": "all"})
    terms = await clickwrap(api)
    await api.post(f"/api/clickwraps/{terms['id']}/consents", json={"name": "Ada"})
    await worker.drain()
    [received] = [r for r in receiver.received if r.json["event_type"] == "consent.created"]
    assert received.json["data"]["certificate_url"] is None and received.json["data"]["source"] == "api"


async def test_consent_created_is_not_sent_to_endpoints_with_the_default_events(api, worker, receiver):
    await api.post("/api/webhooks", json={"url": receiver.url()})
    terms = await clickwrap(api)
    await agree(api, terms["slug"])
    await worker.drain()
    assert receiver.received == []
