"""Email verification before the signing form opens (`require_email_2fa`), through the signer's pages and actions:
the page that emails a 6-digit code, its expiry and rate limits, the browser's pass (a cookie, or a token the
embedding server asks the API for), the form's actions refused without one, the events recorded, the template's
setting and its public link.

The code is read from the outbox, where every email the service sends is kept."""

from __future__ import annotations

import asyncio
import re
from datetime import datetime, timedelta
from html import unescape
from typing import Any

import pytest

import storage.emails as stored_emails
import storage.submissions as stored_submissions
from signsvc.results import audit_log
from tests.support.app import Api
from tests.support.console import signed_in
from tests.support.signing import ANN_VALUES, FIELDS, act, send, template

ANN = {"email": "ann.smith@example.com", "name": "Ann", "role": "First Party"}
BOB = {"email": "bob@example.com", "name": "Bob", "role": "Second Party"}
REQUIRED = "Verification required, refresh the page and pass 2FA."


def text(reply) -> str:
    shown = re.sub(r"<(script|title)\b.*?</\1>", " ", reply.body.decode(), flags=re.S)
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", shown)).split())


async def page(api: Api, path: str, **headers: str):
    return await api.with_key(None).get(path, headers={"Accept": "text/html", **headers})


async def post(api: Api, path: str, **form: str):
    return await api.with_key(None).post(path, data=form, allow_redirects=False)


async def last_code(db) -> str:
    [email] = await stored_emails.list_emails(db, 1, limit=1)
    assert email.kind == "verification_code"
    return re.search(r"\b(\d{6})\b", email.text_body).group(1)


async def wrong_code(db) -> str:
    """A code that is not the one last sent."""
    return f"{(int(await last_code(db)) + 1) % 1_000_000:06d}"


def new_browser(api: Api) -> None:
    api.client.session.cookie_jar.clear()


@pytest.fixture
async def nda(api) -> int:
    return await template(api)


@pytest.fixture
async def ann(api, nda) -> dict[str, Any]:
    first, _ = await send(api, nda, {**ANN, "require_email_2fa": True}, BOB)
    return first


async def verified(api: Api, db, slug: str, base: str = "/s") -> Any:
    assert (await post(api, f"{base}/{slug}/verification/send")).status == 200
    return await post(api, f"{base}/{slug}/verification/check", code=await last_code(db))


async def test_a_signer_who_must_verify_sees_the_verification_page_naming_their_masked_email(api, ann):
    for path in (f"/s/{ann['slug']}", f"/apiemb/{ann['slug']}"):
        reply = await page(api, path)
        shown = text(reply)
        assert reply.status == 200 and "Verify your email address" in shown
        assert "an*******@example.com" in shown and "ann.smith" not in shown
        assert "Send code" in shown and ">Complete<" not in reply.body.decode()
    assert (await page(api, f"/apiemb/{ann['slug']}")).headers["Content-Security-Policy"].endswith("frame-ancestors *")


async def test_sending_a_code_emails_six_digits_through_the_outbox_and_records_send_2fa_email(api, db, ann):
    reply = await post(api, f"/s/{ann['slug']}/verification/send")
    assert reply.status == 200
    shown = text(reply)  # no SMTP server here: the code is kept in the outbox (test_outbox_notices.py: with one)
    assert "A code for an*******@example.com is ready in the sender\u2019s outbox" in shown
    assert "It works for 10 minutes." in shown
    body = reply.body.decode()
    assert re.search(r'<label for="code">Verification code</label>', body)
    assert 'inputmode="numeric"' in body and 'autocomplete="one-time-code"' in body
    [email] = await stored_emails.list_emails(db, 1, limit=1)
    assert (email.to_address, email.subject, email.submitter_id) == (ANN["email"], "Your verification code", ann["id"])
    assert re.search(r"open NDA:\s+\d{6}\s", email.text_body)
    events = await stored_submissions.events_of(db, ann["submission_id"])
    assert [(e.event_type, e.data) for e in events if e.event_type == "send_2fa_email"] == [
        ("send_2fa_email", {"email": ANN["email"]})
    ]


async def test_the_right_code_opens_the_form_and_keeps_this_browser_verified_with_an_httponly_samesite_cookie(
    api, db, ann
):
    reply = await verified(api, db, ann["slug"])
    assert reply.status == 303 and reply.headers["Location"] == f"/s/{ann['slug']}"
    cookie = reply.headers["Set-Cookie"]
    assert cookie.startswith(f"signsvc_verified_{ann['id']}=")
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Max-Age=43200" in cookie and "Path=/" in cookie
    opened = await page(api, f"/s/{ann['slug']}")
    assert opened.status == 200 and ">Complete<" in opened.body.decode()
    assert "two_factor_token" not in opened.body.decode()  # the HttpOnly cookie's pass stays out of the page
    events = await stored_submissions.events_of(db, ann["submission_id"])
    assert [e.data for e in events if e.event_type == "email_verified"] == [{"email": ANN["email"]}]
    new_browser(api)
    assert "Verify your email address" in text(await page(api, f"/s/{ann['slug']}"))


async def test_a_wrong_code_says_so_and_keeps_the_form_closed(api, db, ann):
    await post(api, f"/s/{ann['slug']}/verification/send")
    right = await last_code(db)
    wrong = f"{(int(right) + 1) % 1_000_000:06d}"
    reply = await post(api, f"/s/{ann['slug']}/verification/check", code=wrong)
    assert reply.status == 422 and "That code is not right." in text(reply)
    assert 'aria-invalid="true"' in reply.body.decode()
    assert "Verify your email address" in text(await page(api, f"/s/{ann['slug']}"))
    empty = await post(api, f"/s/{ann['slug']}/verification/check", code=" ")
    assert empty.status == 422 and "Type the 6-digit code from the email." in text(empty)


async def test_a_code_expires_after_ten_minutes_by_the_service_clock(api, db, clock, ann):
    await post(api, f"/s/{ann['slug']}/verification/send")
    code = await last_code(db)
    clock.advance(timedelta(minutes=10))
    reply = await post(api, f"/s/{ann['slug']}/verification/check", code=code)
    assert reply.status == 422 and "That code has expired. Send a new code." in text(reply)
    assert "Send code" in text(await page(api, f"/s/{ann['slug']}"))  # no live code: no input


async def test_a_new_code_replaces_the_one_sent_before_and_a_used_code_works_once(api, db, ann):
    await post(api, f"/s/{ann['slug']}/verification/send")
    first = await last_code(db)
    await post(api, f"/s/{ann['slug']}/verification/send")
    second = await last_code(db)
    if first != second:
        assert (await post(api, f"/s/{ann['slug']}/verification/check", code=first)).status == 422
    assert (await post(api, f"/s/{ann['slug']}/verification/check", code=f"{second[:3]} {second[3:]}")).status == 303
    new_browser(api)
    assert (await post(api, f"/s/{ann['slug']}/verification/check", code=second)).status == 422


async def test_sends_are_limited_to_three_per_signer_in_five_minutes(api, db, clock, ann):
    for _ in range(3):
        assert (await post(api, f"/s/{ann['slug']}/verification/send")).status == 200
    refused = await post(api, f"/s/{ann['slug']}/verification/send")
    assert refused.status == 429 and "Too many attempts." in text(refused)
    assert len(await stored_emails.list_emails(db, 1, limit=20)) == 1 + 3  # Ann's invitation, three codes
    clock.advance(timedelta(minutes=5))
    assert (await post(api, f"/s/{ann['slug']}/verification/send")).status == 200


async def test_tries_are_limited_to_five_per_signer_in_five_minutes_across_codes_even_with_the_right_code(
    api, db, clock, ann
):
    await post(api, f"/s/{ann['slug']}/verification/send")
    for _ in range(3):
        assert (await post(api, f"/s/{ann['slug']}/verification/check", code=await wrong_code(db))).status == 422
    await post(api, f"/s/{ann['slug']}/verification/send")  # a new code: the tries in this window still count
    code = await last_code(db)
    for _ in range(2):
        assert (await post(api, f"/s/{ann['slug']}/verification/check", code=await wrong_code(db))).status == 422
    refused = await post(api, f"/s/{ann['slug']}/verification/check", code=code)
    assert refused.status == 429 and "Too many attempts." in text(refused)
    clock.advance(timedelta(minutes=5))  # the next window; the code works for ten minutes
    assert (await post(api, f"/s/{ann['slug']}/verification/check", code=code)).status == 303


async def test_a_code_is_deleted_after_five_wrong_tries_and_the_page_says_to_send_a_new_one(api, db, clock, ann):
    await post(api, f"/s/{ann['slug']}/verification/send")
    code, wrong = await last_code(db), await wrong_code(db)
    for _ in range(4):
        reply = await post(api, f"/s/{ann['slug']}/verification/check", code=wrong)
        assert reply.status == 422 and "That code is not right." in text(reply)
    fifth = await post(api, f"/s/{ann['slug']}/verification/check", code=wrong)
    assert fifth.status == 422 and "That code no longer works" in text(fifth) and "Send a new code." in text(fifth)
    assert 'name="code"' not in fifth.body.decode() and "Send code" in text(fifth)  # no code works: no input
    clock.advance(timedelta(minutes=5))  # past the window's limit, well within the code's ten minutes
    late = await post(api, f"/s/{ann['slug']}/verification/check", code=code)
    assert late.status == 422 and "That code no longer works" in text(late)
    assert 'name="code"' not in (await page(api, f"/s/{ann['slug']}")).body.decode()
    assert (await verified(api, db, ann["slug"])).status == 303  # a new code has tries of its own


async def test_a_signer_is_sent_at_most_ten_codes_a_day_and_the_code_before_still_works(api, db, clock, ann):
    for sent in range(10):
        if sent and sent % 3 == 0:
            clock.advance(timedelta(minutes=5))  # past the limit of three sends in five minutes
        assert (await post(api, f"/s/{ann['slug']}/verification/send")).status == 200
    clock.advance(timedelta(minutes=5))
    code = await last_code(db)
    refused = await post(api, f"/s/{ann['slug']}/verification/send")
    assert refused.status == 429 and "as many codes as a day allows" in text(refused)
    assert len(await stored_emails.list_emails(db, 1, limit=20)) == 1 + 10  # Ann's invitation, ten codes
    events = await stored_submissions.events_of(db, ann["submission_id"])
    assert sum(e.event_type == "send_2fa_email" for e in events) == 10
    assert (await post(api, f"/s/{ann['slug']}/verification/check", code=code)).status == 303
    new_browser(api)
    clock.advance(timedelta(hours=24) - timedelta(minutes=20, seconds=1))  # the day since the first codes
    assert (await post(api, f"/s/{ann['slug']}/verification/send")).status == 429
    clock.advance(timedelta(seconds=1))  # a day after the first three were sent: three more may go
    assert (await post(api, f"/s/{ann['slug']}/verification/send")).status == 200


async def test_two_concurrent_checks_of_one_code_pass_exactly_once(api, db, ann):
    await post(api, f"/s/{ann['slug']}/verification/send")
    code = await last_code(db)
    replies = await asyncio.gather(*(post(api, f"/s/{ann['slug']}/verification/check", code=code) for _ in range(2)))
    assert sorted(reply.status for reply in replies) == [303, 422]
    events = await stored_submissions.events_of(db, ann["submission_id"])
    assert [e.event_type for e in events].count("email_verified") == 1


async def test_a_verified_browser_stays_verified_for_twelve_hours_then_is_asked_again(api, db, clock, ann):
    await verified(api, db, ann["slug"])
    clock.advance(timedelta(hours=11, minutes=59))
    assert ">Complete<" in (await page(api, f"/s/{ann['slug']}")).body.decode()
    assert (await act(api, ann["slug"], "values", {"values": {"Full Name": "Ann"}})).status == 200
    clock.advance(timedelta(minutes=1))
    assert "Verify your email address" in text(await page(api, f"/s/{ann['slug']}"))
    assert (await act(api, ann["slug"], "values", {"values": {"Full Name": "Ann"}})).status == 403


async def test_the_forms_actions_refuse_a_browser_that_has_not_verified(api, db, ann):
    for action, body in (
        ("view", {}),
        ("values", {"values": {"Full Name": "Ann"}}),
        ("complete", {"values": ANN_VALUES}),
        ("decline", {"reason": "no"}),
    ):
        reply = await act(api, ann["slug"], action, body)
        assert (reply.status, reply.json) == (403, {"error": REQUIRED}), action
    await verified(api, db, ann["slug"])
    assert (await act(api, ann["slug"], "complete", {"values": ANN_VALUES})).status == 200


async def test_a_signer_who_need_not_verify_opens_the_form_as_before(api, nda):
    _, bob = await send(api, nda, {**ANN, "require_email_2fa": True}, BOB, order="random")
    assert ">Complete<" in (await page(api, f"/s/{bob['slug']}")).body.decode()
    assert (await act(api, bob["slug"], "view")).status == 200
    assert (await post(api, f"/s/{bob['slug']}/verification/send")).status == 303  # nothing to verify


async def test_require_email_2fa_at_the_top_level_applies_to_every_signer_unless_their_own_says_otherwise(api, nda):
    ann, bob = await send(api, nda, ANN, {**BOB, "require_email_2fa": False}, require_email_2fa=True, order="random")
    assert ann["preferences"]["require_email_2fa"] is True and bob["preferences"]["require_email_2fa"] is False
    assert "Verify your email address" in text(await page(api, f"/s/{ann['slug']}"))
    assert ">Complete<" in (await page(api, f"/s/{bob['slug']}")).body.decode()
    refused = await api.post("/api/submissions", json={"template_id": nda, "submitters": [ANN], "require_email_2fa": 1})
    assert refused.status == 422 and "require_email_2fa must be true or false" in refused.json["error"]


async def test_put_submitters_turns_verification_off_or_on_for_one_signer(api, ann):
    reply = await api.put(f"/api/submitters/{ann['id']}", json={"require_email_2fa": False})
    assert reply.status == 200 and reply.json["preferences"]["require_email_2fa"] is False
    assert ">Complete<" in (await page(api, f"/s/{ann['slug']}")).body.decode()
    await api.put(f"/api/submitters/{ann['id']}", json={"require_email_2fa": True})
    assert "Verify your email address" in text(await page(api, f"/s/{ann['slug']}"))


async def test_a_changed_email_address_ends_the_browsers_pass(api, db, ann):
    await verified(api, db, ann["slug"])
    await api.put(f"/api/submitters/{ann['id']}", json={"email": "ann@elsewhere.example"})
    shown = text(await page(api, f"/s/{ann['slug']}"))
    assert "Verify your email address" in shown and "an***@elsewhere.example" in shown


async def test_a_signer_without_an_email_address_is_told_to_ask_the_sender(api, db, nda):
    [vic] = await send(api, nda, {"name": "Vic", "phone": "+15551234567", "require_email_2fa": True})
    shown = text(await page(api, f"/s/{vic['slug']}"))
    assert "gave none for you" in shown and "Send code" not in shown
    await post(api, f"/s/{vic['slug']}/verification/send")
    assert await stored_emails.list_emails(db, 1, limit=5) == []


async def test_a_templates_require_email_2fa_applies_to_its_submissions_and_closes_its_public_link(api):
    one_role = await template(api, FIELDS[:3])
    slug = (await api.get(f"/api/templates/{one_role}")).json["slug"]
    assert (await page(api, f"/d/{slug}")).status == 200
    reply = await api.put(f"/api/templates/{one_role}", json={"preferences": {"require_email_2fa": True}})
    assert reply.status == 200
    assert (await api.get(f"/api/templates/{one_role}")).json["preferences"] == {"require_email_2fa": True}
    [ann] = await send(api, one_role, {**ANN, "require_email_2fa": False})
    assert ann["preferences"]["require_email_2fa"] is True  # the template's setting wins
    assert "Verify your email address" in text(await page(api, f"/s/{ann['slug']}"))
    assert (await page(api, f"/d/{slug}")).status == 404
    started = await api.with_key(None).post(f"/d/{slug}", data={"name": "Eve", "email": "eve@example.com"})
    assert started.status == 404


async def test_a_templates_require_email_2fa_set_later_gates_its_pending_signers_and_no_signer_lifts_it(api, db):
    one_role = await template(api, FIELDS[:3])
    [ann] = await send(api, one_role, ANN)
    assert ">Complete<" in (await page(api, f"/s/{ann['slug']}")).body.decode()
    await api.put(f"/api/templates/{one_role}", json={"preferences": {"require_email_2fa": True}})
    assert "Verify your email address" in text(await page(api, f"/s/{ann['slug']}"))
    assert (await act(api, ann["slug"], "view")).status == 403
    assert (await api.put(f"/api/submitters/{ann['id']}", json={"require_email_2fa": False})).status == 200
    assert "Verify your email address" in text(await page(api, f"/s/{ann['slug']}"))  # the template's still holds
    assert (await act(api, ann["slug"], "values", {"values": {"Full Name": "Ann"}})).status == 403
    assert (await verified(api, db, ann["slug"])).status == 303
    assert (await act(api, ann["slug"], "view")).status == 200
    new_browser(api)
    assert (await api.delete(f"/api/templates/{one_role}?permanently=true")).status == 200
    assert ">Complete<" in (await page(api, f"/s/{ann['slug']}")).body.decode()  # gone: the signer's own setting
    assert (await act(api, ann["slug"], "view")).status == 200


async def test_template_preferences_refuse_what_is_no_setting(api, nda):
    reply = await api.put(f"/api/templates/{nda}", json={"preferences": {"colour": "red"}})
    assert reply.status == 422 and reply.json["error"].startswith("preferences.colour is not a template setting")
    reply = await api.put(f"/api/templates/{nda}", json={"preferences": {"require_email_2fa": "yes"}})
    assert (reply.status, reply.json["error"]) == (422, "preferences.require_email_2fa must be true or false")


async def test_an_embedding_server_vouches_for_its_signer_with_a_token_from_the_api(api, clock, ann):
    reply = await api.post(f"/api/submitters/{ann['id']}/two_factor_token")
    assert reply.status == 200
    token = reply.json["two_factor_token"]
    assert reply.json["embed_src"] == f"http://signsvc.test/apiemb/{ann['slug']}?two_factor_token={token}"
    assert datetime.fromisoformat(reply.json["expires_at"]) == clock.now() + timedelta(hours=1)
    by_query = await page(api, f"/apiemb/{ann['slug']}?two_factor_token={token}")
    assert ">Complete<" in by_query.body.decode()
    assert f"two_factor_token={token}" in by_query.body.decode()  # the form's actions carry it
    new_browser(api)
    by_header = await page(api, f"/apiemb/{ann['slug']}", **{"X-Two-Factor-Token": token})
    assert ">Complete<" in by_header.body.decode()
    new_browser(api)
    saved = await api.with_key(None).post(
        f"/s/{ann['slug']}/values?two_factor_token={token}", json={"values": {"Full Name": "Ann"}}
    )
    assert saved.status == 200
    assert (await act(api, ann["slug"], "view", **{"X-Two-Factor-Token": token})).status == 200
    assert (await act(api, ann["slug"], "view", **{"X-Two-Factor-Token": token + "x"})).status == 403
    clock.advance(timedelta(hours=1))
    assert "Verify your email address" in text(await page(api, f"/apiemb/{ann['slug']}?two_factor_token={token}"))


async def test_a_token_is_issued_only_for_a_signer_of_the_keys_account(api, other_account, ann):
    reply = await api.with_key(other_account.live).post(f"/api/submitters/{ann['id']}/two_factor_token")
    assert reply.status in (403, 404) and "error" in reply.json
    missing = await api.post("/api/submitters/999999/two_factor_token")
    assert missing.status == 404
    assert (await api.with_key(None).post(f"/api/submitters/{ann['id']}/two_factor_token")).status == 401


async def test_a_token_for_one_signer_opens_no_other(api, nda):
    ann, bob = await send(
        api, nda, {**ANN, "require_email_2fa": True}, {**BOB, "require_email_2fa": True}, order="random"
    )
    token = (await api.post(f"/api/submitters/{bob['id']}/two_factor_token")).json["two_factor_token"]
    assert "Verify your email address" in text(await page(api, f"/apiemb/{ann['slug']}?two_factor_token={token}"))


async def test_an_embedded_signer_who_types_the_code_is_sent_to_the_form_with_the_pass_in_its_address(api, db, ann):
    reply = await verified(api, db, ann["slug"], base="/apiemb")
    assert reply.status == 303
    location = reply.headers["Location"]
    assert location.startswith(f"/apiemb/{ann['slug']}?two_factor_token=")
    new_browser(api)  # a framed page of another site may get no cookie
    opened = await page(api, location)
    assert opened.status == 200 and ">Complete<" in opened.body.decode()


async def test_the_events_the_audit_log_and_the_console_record_the_code_sent_and_the_email_verified(api, db, ann):
    await verified(api, db, ann["slug"])
    shown = (await api.get(f"/api/submissions/{ann['submission_id']}")).json["submission_events"]
    assert [e["event_type"] for e in shown if e["event_type"] in ("send_2fa_email", "email_verified")] == [
        "send_2fa_email",
        "email_verified",
    ]
    submission = await stored_submissions.get_submission(db, ann["submission_id"])
    submitters = await stored_submissions.submitters_of(db, submission.id)
    events = await stored_submissions.events_of(db, submission.id)
    log = audit_log.log(
        submission,
        submitters,
        events,
        documents=[],
        images={},
        filenames={},
        test_mode=False,
        generated_at=submission.created_at,
    )
    lines = [event["text"] for event in log["events"]]
    assert f"Verification code sent to {ANN['email']}" in lines
    assert f"Email address verified by {ANN['email']}" in lines
    console = await signed_in(api)
    timeline = (await console.get(f"/console/submissions/{ann['submission_id']}")).body.decode()
    assert "Verification code sent to Ann" in timeline and "Ann verified their email address" in timeline


async def test_the_testing_kits_actions_act_for_a_signer_who_must_verify(aiohttp_client, make_app):
    from tests.support.app import Api as Client

    kit = Client(await aiohttp_client(make_app(testing=True)))
    ann, _ = await send(kit, await template(kit), {**ANN, "require_email_2fa": True}, BOB)
    reply = await kit.post(f"/api/_testing/submitters/{ann['id']}/complete", json={"values": ANN_VALUES})
    assert reply.status == 200 and reply.json["status"] == "completed"


async def test_a_post_that_is_no_form_of_the_page_sends_nothing(api, db, ann):
    reply = await api.with_key(None).post(f"/s/{ann['slug']}/verification/send", json={"resend": True})
    assert reply.status == 415 and "The form could not be read" in text(reply)
    missing = await post(api, "/s/nosuchslug0000/verification/send")
    assert missing.status == 404
    assert [e.kind for e in await stored_emails.list_emails(db, 1, limit=5)] == ["invitation"]


async def test_the_submitters_language_picks_the_verification_pages_catalogue_before_the_browsers(api, nda):
    tess, _ = await send(api, nda, {**ANN, "require_email_2fa": True, "language": "de"}, BOB)
    reply = await page(api, f"/s/{tess['slug']}", **{"Accept-Language": "en"})
    assert reply.status == 200 and "E-Mail-Adresse bestätigen" in text(reply)
    assert "Verify your email address" not in text(reply)
