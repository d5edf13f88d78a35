"""The console's outbox: the emails the service sent or kept for the account the console acts on (the test
account's in test mode), newest first, filtered by status, a failed one with its error and attempts; an
email's page with its text, its HTML only in a sandboxed frame of its own, and a console user's password link
never shown to anyone but its recipient."""

import html
import re

import pytest

import storage.emails as stored_emails
from signsvc.accounts.accounts import DEFAULT_EMAIL
from signsvc.http.appkeys import CONSOLE_USERS, DB, WORKER
from signsvc.infra import retries
from tests.api.test_failed_emails import RefusingSmtpServer
from tests.support.app import TEST_KEY, Api
from tests.support.console import Console, signed_in
from tests.support.signing import send, template

PAGE = "/console/outbox"


def visible(reply) -> str:
    """The page's text as a person reads it: tags dropped, entities decoded, spaces collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", reply.body.decode())).split())


def listed(reply) -> list[str]:
    """The email ids the list links to, top to bottom."""
    return re.findall(rf'<a href="{PAGE}/(\d+)">', reply.body.decode())


async def emails(api, key=None) -> list[dict]:
    """The outbox as the testing extension lists it."""
    reply = await (api.with_key(key) if key else api).get("/api/_testing/emails?limit=100")
    assert reply.status == 200, reply.json
    return reply.json["data"]


@pytest.fixture
async def kit(aiohttp_client, make_app) -> Api:
    """The service with the testing extension (its email listing to compare with); no SMTP server."""
    return Api(await aiohttp_client(make_app(testing=True)))


@pytest.fixture
async def refusing():
    async with RefusingSmtpServer() as server:
        yield server


async def test_the_outbox_lists_a_submissions_invitation_as_kept(kit):
    await send(kit, await template(kit), {"email": "ann@example.com", "name": "Ann"})
    [email] = await emails(kit)
    console = await signed_in(kit)
    reply = await console.get(PAGE)
    assert reply.status == 200 and listed(reply) == [str(email["id"])]
    page = visible(reply)
    assert (
        "You are invited to sign a document ann@example.com Invitation to sign Kept 2026-01-01 12:00 UTC "
        "2026-01-01 12:00 UTC" in page
    )
    assert "Without an SMTP server (SIGNSVC_SMTP_URL) emails are not sent" in page


async def test_the_outbox_filters_by_status_and_shows_an_errors_and_attempts(aiohttp_client, make_app, refusing):
    api = Api(await aiohttp_client(make_app(testing=True, smtp_url=refusing.url)))
    template_id = await template(api)
    await send(api, template_id, {"email": "ann@example.com"})
    await api.app[WORKER].drain()  # refused: pending, its next attempt a minute away
    refusing.refusing = False
    await send(api, template_id, {"email": "bob@example.com"})
    await api.app[WORKER].drain()
    by_address = {email["to"]: email for email in await emails(api)}
    assert (by_address["ann@example.com"]["status"], by_address["bob@example.com"]["status"]) == ("pending", "sent")

    console = await signed_in(api)
    assert listed(await console.get(PAGE)) == [
        str(by_address["bob@example.com"]["id"]),
        str(by_address["ann@example.com"]["id"]),
    ]
    pending = await console.get(f"{PAGE}?status=pending")
    assert listed(pending) == [str(by_address["ann@example.com"]["id"])]
    assert '<option value="pending" selected>' in pending.body.decode()
    assert "Pending SMTPDataError: (554, '5.7.1 Delivery refused') Attempts: 1" in visible(pending)
    sent = await console.get(f"{PAGE}?status=sent")
    assert listed(sent) == [str(by_address["bob@example.com"]["id"])]
    assert "Sent 2026-01-01 12:00 UTC 2026-01-01 12:00 UTC" in visible(sent)
    kept = await console.get(f"{PAGE}?status=kept")
    assert listed(kept) == [] and "No emails with this status." in visible(kept)
    assert listed(await console.get(f"{PAGE}?status=nonsense")) == listed(await console.get(PAGE)), (
        "a status the outbox does not know lists every email"
    )


async def test_a_failed_email_shows_its_last_error_and_its_attempts(aiohttp_client, make_app, refusing, clock):
    api = Api(await aiohttp_client(make_app(testing=True, smtp_url=refusing.url)))
    await send(api, await template(api), {"email": "ann@example.com"})
    for _ in range(retries.EMAILS.attempts + 2):
        await api.app[WORKER].drain()
        clock.advance(retries.JOBS.longest)
    [email] = await emails(api)
    assert email["status"] == "failed"
    console = await signed_in(api)
    failed = await console.get(f"{PAGE}?status=failed")
    assert listed(failed) == [str(email["id"])]
    assert f"Failed SMTPDataError: (554, '5.7.1 Delivery refused') Attempts: {retries.EMAILS.attempts}" in visible(
        failed
    )
    page = visible(await console.get(f"{PAGE}/{email['id']}"))
    assert (
        f"Status Failed SMTPDataError: (554, '5.7.1 Delivery refused') Attempts: {retries.EMAILS.attempts}" in page
        and "Sent Not yet" in page
    )


async def test_the_outbox_pages_newest_first(kit):
    template_id = await template(kit)
    for _ in range(11):  # two invitations each
        await send(kit, template_id, order="random")
    ids = [str(email["id"]) for email in await emails(kit)]
    assert len(ids) == 22
    console = await signed_in(kit)
    first = await console.get(PAGE)
    assert listed(first) == ids[:20]
    assert f'<a href="{PAGE}?after={ids[19]}">Older</a>' in first.body.decode()
    older = await console.get(f"{PAGE}?after={ids[19]}")
    assert listed(older) == ids[20:] and f'<a href="{PAGE}">Newest</a>' in older.body.decode()


async def test_an_emails_page_shows_its_text_and_frames_its_html_in_a_sandbox(kit):
    await send(
        kit,
        await template(kit),
        {"email": "ann@example.com", "name": "Ann"},
        message={"subject": "Please sign <b>{{template.name}}</b>", "body": "Hi <i>Ann</i>,\n\n{{submitter.link}}"},
    )
    [email] = await emails(kit)
    console = await signed_in(kit)
    reply = await console.get(f"{PAGE}/{email['id']}")
    assert reply.status == 200
    body = reply.body.decode()
    assert "<b>NDA</b>" not in body and "<i>Ann</i>" not in body, "nothing of the email is markup in our page"
    assert "Please sign &lt;b&gt;NDA&lt;/b&gt;" in body
    page = visible(reply)
    assert "To ann@example.com Kind Invitation to sign Status Kept" in page
    assert f"Text Hi <i>Ann</i>, {email['links'][0]}" in page
    assert re.search(rf'<iframe class="email-html" sandbox src="{PAGE}/{email["id"]}/html"', body)
    assert reply.headers["Content-Security-Policy"].endswith("; frame-src 'self'")
    assert "script-src 'self'" in reply.headers["Content-Security-Policy"]

    framed = await console.get(f"{PAGE}/{email['id']}/html")
    assert framed.status == 200 and framed.headers["Content-Type"].startswith("text/html")
    policy = framed.headers["Content-Security-Policy"]
    assert policy.startswith("sandbox; default-src 'none';") and "script-src" not in policy
    assert "frame-ancestors 'self'" in policy and framed.headers["X-Frame-Options"] == "SAMEORIGIN"
    assert "Hi &lt;i&gt;Ann&lt;/i&gt;" in framed.body.decode(), "the HTML as composed: values escaped"


async def test_a_console_users_password_link_is_listed_but_its_text_is_not_shown(kit):
    console = await signed_in(kit)
    users = kit.app[CONSOLE_USERS]
    await users.invite(
        await users.find_by_email(DEFAULT_EMAIL), email="bob@example.com", first_name="Bob", last_name=None
    )
    [email] = [e for e in await emails(kit) if e["to"] == "bob@example.com"]
    assert email["links"] == [], "the testing extension hides it from the key's user too"
    [stored] = [
        e for e in await stored_emails.list_emails(kit.app[DB], 1, limit=10) if e.to_address == "bob@example.com"
    ]
    link = re.search(r"http://\S+/console/setup/\w+", stored.text_body).group(0)
    assert listed(await console.get(PAGE)) == [str(email["id"])]
    reply = await console.get(f"{PAGE}/{email['id']}")
    assert reply.status == 200 and link not in reply.body.decode()
    assert "only its recipient may read it" in visible(reply)
    assert (await console.get(f"{PAGE}/{email['id']}/html")).status == 404


async def test_test_mode_shows_the_test_accounts_emails_and_another_accounts_email_is_not_found(kit, other_account):
    await send(kit, await template(kit), {"email": "live@example.com"})
    test_key = kit.with_key(TEST_KEY)
    await send(test_key, await template(test_key), {"email": "test@example.com"})
    other = kit.with_key(other_account.live)
    await send(other, await template(other), {"email": "other@example.com"})
    [live] = await emails(kit)
    [test] = await emails(kit, TEST_KEY)
    [theirs] = await emails(kit, other_account.live)

    console = await signed_in(kit)
    assert listed(await console.get(PAGE)) == [str(live["id"])]
    for email in (test, theirs):
        for path in (f"{PAGE}/{email['id']}", f"{PAGE}/{email['id']}/html"):
            reply = await console.get(path)
            assert reply.status == 404 and email["to"] not in reply.body.decode()
    await console.post("/console/mode", {"test_mode": "on", "next": PAGE})
    reply = await console.get(PAGE)
    assert listed(reply) == [str(test["id"])] and "The test account's emails" in visible(reply)
    assert (await console.get(f"{PAGE}/{test['id']}")).status == 200
    assert (await console.get(f"{PAGE}/{live['id']}")).status == 404


async def test_signed_out_the_outbox_sends_to_sign_in(kit):
    reply = await Console(kit).get(PAGE, allow_redirects=False)
    assert reply.status == 303 and reply.headers["Location"] == f"/console/sign-in?next={PAGE}"
