"""Notices that tell the truth: without an SMTP server (the default start) every email is kept in the outbox and
nobody receives it, so the pages that would say an email went out say so instead: the console's notices and
hints with a link to the outbox, the signer's and the consenting visitor's pages plainly, without a link (they
are not console users). With an SMTP server the wording is as before."""

import re
from html import unescape

import pytest

from signsvc.http.appkeys import CONSOLE_USERS, WORKER
from tests.api.test_clickwrap_page import agree, clickwrap
from tests.support.app import Api
from tests.support.console import Console, location, signed_in
from tests.support.signing import ANN_VALUES, act, send, template

OUTBOX_LINK = '<a href="/console/outbox">Open the outbox</a>'
SIGNERS = {"email-0": "ann@example.com", "name-0": "Ann", "email-1": "bob@example.com", "name-1": "Bob"}


def text(reply) -> str:
    """The page's text as a person reads it: scripts and tags dropped, entities read, spaces folded."""
    shown = re.sub(r"<(script|title)\b.*?</\1>", " ", reply.body.decode(), flags=re.S)
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", shown)).split())


def flash(reply) -> str:
    """The console's notice of what was done, as HTML."""
    found = re.search(r'<p class="flash" role="status">(.*?)</p>', reply.body.decode(), re.S)
    assert found, "no notice on the page"
    return found.group(1)


@pytest.fixture(params=["kept", "smtp"])
async def service(request, aiohttp_client, make_app, smtp_server) -> tuple[str, Api]:
    """The service without an SMTP server ("kept") or with one ("smtp"), and which it is."""
    smtp_url = smtp_server.url if request.param == "smtp" else None
    return request.param, Api(await aiohttp_client(make_app(smtp_url=smtp_url)))


async def page(api, path: str):
    return await api.with_key(None).get(path, headers={"Accept": "text/html"})


async def sent_from_console(console: Console, template_id: int):
    """Sends the template from the console with emails on; answers the submission's page as the browser lands
    on it, and its address."""
    await console.get(f"/console/templates/{template_id}/send")
    reply = await console.post(
        f"/console/templates/{template_id}/send", {**SIGNERS, "order": "preserved", "send_email": "on"}
    )
    assert reply.status == 303 and "done=submission_sent" in location(reply), text(reply)
    return await console.get(location(reply)), location(reply).partition("?")[0]


async def invited_user(console: Console):
    await console.get("/console/users")
    reply = await console.post("/console/users/invite", {"email": "bob@example.com", "first_name": "Bob"})
    assert reply.status == 303, text(reply)
    return await console.get(location(reply))


# The console, without an SMTP server


async def test_without_smtp_a_sent_submission_says_the_invitations_are_kept_in_the_outbox_with_its_link(api):
    landed, _ = await sent_from_console(await signed_in(api), await template(api))
    notice = flash(landed)
    assert "no email was sent" in notice and "kept in the outbox" in notice and OUTBOX_LINK in notice
    assert "each signer gets an email" not in text(landed)
    assert "Invitation to Ann kept in the outbox (not sent: no SMTP server)" in text(landed)
    assert "Invitation sent to" not in text(landed)


async def test_without_smtp_inviting_a_signer_again_says_the_invitation_is_kept_in_the_outbox(api):
    console = await signed_in(api)
    landed, _ = await sent_from_console(console, await template(api))
    ann_id = re.search(r'action="/console/submitters/(\d+)/resend"', landed.body.decode()).group(1)
    reply = await console.post(f"/console/submitters/{ann_id}/resend", allow_redirects=True)
    notice = flash(reply)
    assert notice.startswith("No email was sent") and "new invitation is kept in the outbox" in notice
    assert OUTBOX_LINK in notice and "on its way" not in notice


async def test_without_smtp_inviting_a_user_says_the_invitation_is_kept_and_how_to_make_a_setup_link(api):
    console = await signed_in(api)
    users_page = text(await console.get("/console/users"))
    assert "the invitation email is kept in the outbox, not sent" in users_page
    assert "They get an email with a link" not in users_page
    notice = flash(await invited_user(console))
    assert "invitation is kept in the outbox" in notice and "python run.py users setup-link" in notice
    assert OUTBOX_LINK in notice and "on its way" not in notice


async def test_without_smtp_sending_a_user_invitation_again_says_it_is_kept_in_the_outbox(api):
    console = await signed_in(api)
    await invited_user(console)
    bob = await api.app[CONSOLE_USERS].find_by_email("bob@example.com")
    await console.get("/console/users")
    notice = flash(await console.post(f"/console/users/{bob.id}/invitation", allow_redirects=True))
    assert "new invitation is kept in the outbox" in notice and "the earlier link no longer works" in notice
    assert OUTBOX_LINK in notice


async def test_without_smtp_the_home_and_send_pages_say_emails_are_kept_not_sent(api):
    console = await signed_in(api)
    assert "its emails are kept in the outbox, not sent" in text(await console.get("/console"))
    send_page = text(await console.get(f"/console/templates/{await template(api)}/send"))
    assert "these emails are kept in the outbox, not sent" in send_page


async def test_without_smtp_asking_for_a_password_reset_says_no_email_was_sent(api):
    console = Console(api)
    assert "it cannot email you a link" in text(await console.get("/console/reset"))
    reply = await console.post("/console/reset", {"email": "admin@example.com"}, allow_redirects=True)
    assert "No email was sent" in text(reply) and "Check your email" not in text(reply)


# The console, with an SMTP server: as before


async def test_with_smtp_the_console_says_the_emails_are_on_their_way_without_an_outbox_link(mailing):
    console = await signed_in(mailing)
    landed, submission_page = await sent_from_console(console, await template(mailing))
    assert flash(landed) == "Sent: each signer gets an email with their link when it is their turn."
    await mailing.app[WORKER].drain()
    assert "Invitation sent to Ann" in text(await console.get(submission_page))
    assert flash(await invited_user(console)) == "The invitation is on its way."
    assert "kept in the outbox" not in text(await console.get("/console"))
    assert "They get an email with a link" in text(await console.get("/console/users"))
    await console.post("/console/sign-out")
    reset = Console(mailing)
    await reset.get("/console/reset")
    reply = await reset.post("/console/reset", {"email": "admin@example.com"}, allow_redirects=True)
    assert "Check your email" in text(reply)


# The signer's and the visitor's pages: plain words, no link to the console


async def test_the_completed_page_says_no_copy_was_emailed_only_without_smtp(service):
    mode, api = service
    ann, _bob = await send(api, await template(api), order="random")
    await act(api, ann["slug"], "complete", {"values": ANN_VALUES})
    shown = text(await page(api, f"/s/{ann['slug']}"))
    assert "Thank you" in shown
    assert ("No copy was emailed to you: the sender\u2019s server does not send email." in shown) is (mode == "kept")
    assert "/console/outbox" not in shown


async def test_the_completed_page_of_a_signer_who_gets_no_copy_says_nothing_of_email(api):
    ann, _bob = await send(api, await template(api), order="random", send_email=False)
    await act(api, ann["slug"], "complete", {"values": ANN_VALUES})
    assert "emailed" not in text(await page(api, f"/s/{ann['slug']}"))


async def test_the_awaiting_page_promises_an_email_only_with_smtp(service):
    mode, api = service
    _ann, bob = await send(api, await template(api), order="preserved")
    shown = text(await page(api, f"/s/{bob['slug']}"))
    assert ("You will get an email when it is your turn" in shown) is (mode == "smtp")
    assert ("Open this link again when it is your turn" in shown) is (mode == "kept")


async def test_the_consent_page_says_the_certificate_is_on_its_way_only_with_smtp(service):
    mode, api = service
    terms = await clickwrap(api)
    shown = text(await agree(api, terms["slug"]))
    assert ("A certificate of your consent is on its way to ada@example.com." in shown) is (mode == "smtp")
    kept = "No email was sent to ada@example.com: this agreement\u2019s server does not send email."
    assert (kept in shown) is (mode == "kept")
    assert "/console/outbox" not in shown


async def test_the_email_verification_page_says_the_code_is_kept_in_the_senders_outbox_only_without_smtp(service):
    kind, api = service
    ann, _bob = await send(api, await template(api), order="random", require_email_2fa=True)
    opened = text(await page(api, f"/s/{ann['slug']}"))
    sent = text(await api.with_key(None).post(f"/s/{ann['slug']}/verification/send", data={}))
    email = re.escape(ann["email"][:2])
    if kind == "kept":
        assert "the 6-digit code is kept in the sender\u2019s outbox, so ask the sender for it" in opened
        assert re.search(f"A code for {email}\\*+@example.com is ready in the sender\u2019s outbox", sent), sent
    else:
        assert "We email a 6-digit code to that address." in opened and "outbox" not in opened
        assert re.search(f"We sent a code to {email}\\*+@example.com", sent) and "outbox" not in sent
