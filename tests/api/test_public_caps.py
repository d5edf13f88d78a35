"""Public links cannot be farmed: a public page's form posts only with a nonce the service issued with a view of
that page (no post without loading it, none after a day); new submissions of a template's link and consents on
a clickwrap's page are capped per page and per client address in the rate-limit windows, each over-cap answer a
429 page with Retry-After; the emails a public page causes are capped per recipient address and hour, the
others kept in the outbox as failed with the reason; their subjects never hold what a visitor typed, and names
with line breaks never break them."""

import base64
import hashlib
import hmac
from datetime import timedelta

import pytest

import storage.emails as stored_emails
from signsvc.clickwraps.consent_page import SUBMISSION_SOURCE
from signsvc.http.appkeys import DB, WORKER
from signsvc.results.emails import PUBLIC_SOURCES
from signsvc.submissions.template_links import SOURCE
from tests.api.test_clickwrap_page import agree, clickwrap
from tests.api.test_template_links import (
    ANN,
    FIRST_PARTY,
    opened,
    page,
    post,
    shared,
    signing_slug,
    submissions,
    text,
    token_of,
)
from tests.support.app import Api
from tests.support.documents import b64, pdf
from tests.support.signing import ANN_VALUES, act, send, template
from tests.support.smtp_server import SmtpServer

PROXY = frozenset({"127.0.0.1"})
CAPPED = "Too many in a short time"


def forged(key: str, slug: str, nonce: str = "n" * 22) -> str:
    """A token as the client can make it for a cookie it chose: the HMAC of the path and a nonce of its own."""
    digest = hmac.new(key.encode(), f"/d/{slug}|{nonce}".encode(), hashlib.sha256).digest()
    return f"{nonce}.{base64.urlsafe_b64encode(digest).rstrip(b'=').decode()}"


async def start(api: Api, slug: str, **headers: str):
    """A visitor opens the link's page and posts it, both from the address `X-Forwarded-For` names, if any."""
    reply = await page(api, f"/d/{slug}", **headers)
    assert reply.status == 200, reply.body
    return await post(api, slug, {"form_token": token_of(reply), **ANN}, **headers)


# Nonces


async def test_a_post_with_a_token_the_client_made_for_its_own_cookie_is_refused_without_a_page_load(api):
    slug = await shared(api)
    reply = await post(api, slug, {"form_token": forged("chosen", slug), **ANN}, Cookie="signsvc_form=chosen")
    assert reply.status == 403 and "This form expired" in text(reply)
    assert await submissions(api) == []
    # The page it answers is the form again, with a nonce the service issued: sending it starts the submission.
    assert (await post(api, slug, {"form_token": token_of(reply), **ANN})).status == 303


async def test_a_clickwrap_consent_posted_without_loading_the_page_is_refused(api):
    terms = await clickwrap(api)
    slug = terms["slug"]
    nonce = "n" * 22
    digest = hmac.new(b"chosen", f"/c/{slug}|{nonce}".encode(), hashlib.sha256).digest()
    token = f"{nonce}.{base64.urlsafe_b64encode(digest).rstrip(b'=').decode()}"
    reply = await api.with_key(None).post(
        f"/c/{slug}",
        data={"form_token": token, "version": "1", "name": "Ada", "email": "ada@example.com", "checkbox-0": "yes"},
        headers={"Accept": "text/html", "Cookie": "signsvc_form=chosen"},
    )
    assert reply.status == 403
    assert (await api.get(f"/api/clickwraps/{terms['id']}/consents")).json["data"] == []


async def test_a_form_token_of_a_page_opened_more_than_a_day_ago_is_refused(api, clock):
    slug = await shared(api)
    token = await opened(api, slug)
    clock.advance(timedelta(hours=24, seconds=1))
    reply = await post(api, slug, {"form_token": token, **ANN})
    assert reply.status == 403 and await submissions(api) == []


async def test_a_form_token_posted_within_a_day_starts_one_submission_and_its_replay_finds_it(api, clock):
    slug = await shared(api)
    token = await opened(api, slug)
    clock.advance(timedelta(hours=23))
    first = signing_slug(await post(api, slug, {"form_token": token, **ANN}))
    assert signing_slug(await post(api, slug, {"form_token": token, **ANN})) == first
    assert len(await submissions(api)) == 1


async def test_page_views_count_against_the_pages_limit_per_address_as_each_stores_a_nonce(aiohttp_client, make_app):
    api = Api(await aiohttp_client(make_app(rate_limit_per_ip=3)))
    slug = await shared(api)
    statuses = [(await page(api, f"/d/{slug}")).status for _ in range(4)]
    assert statuses == [200, 200, 200, 429]


# Caps on new submissions and consents


async def test_forty_starts_from_one_address_stop_at_the_cap_with_a_429_page_until_the_window_ends(api, clock):
    slug = await shared(api)
    statuses = [(await start(api, slug)).status for _ in range(40)]
    assert statuses == [303] * 10 + [429] * 30
    assert len(await submissions(api)) == 10
    refused = await start(api, slug)
    assert refused.status == 429 and refused.headers["Retry-After"].isdigit()
    assert CAPPED in text(refused) and "Nothing was recorded" in text(refused)
    clock.advance(timedelta(seconds=int(refused.headers["Retry-After"])))
    assert (await start(api, slug)).status == 303


async def test_starts_of_one_link_from_many_addresses_stop_at_the_links_cap(aiohttp_client, make_app):
    api = Api(await aiohttp_client(make_app(trusted_proxies=PROXY, public_starts_per_link=3)))
    slug = await shared(api)
    statuses = [(await start(api, slug, **{"X-Forwarded-For": f"203.0.113.{n}"})).status for n in range(1, 6)]
    assert statuses == [303, 303, 303, 429, 429]
    other = await shared(api)  # another link has a cap of its own
    assert (await start(api, other, **{"X-Forwarded-For": "203.0.113.9"})).status == 303


async def test_the_cap_page_speaks_the_browsers_language(aiohttp_client, make_app):
    api = Api(await aiohttp_client(make_app(public_starts_per_address=1)))
    slug = await shared(api)
    assert (await start(api, slug)).status == 303
    refused = await start(api, slug, **{"Accept-Language": "de"})
    assert refused.status == 429 and "Zu viele in kurzer Zeit" in text(refused)


async def test_a_cap_of_0_is_lifted(aiohttp_client, make_app):
    api = Api(await aiohttp_client(make_app(public_starts_per_address=0, public_starts_per_link=0)))
    slug = await shared(api)
    assert [(await start(api, slug)).status for _ in range(12)] == [303] * 12


async def test_twenty_consents_from_one_address_stop_at_the_cap_with_a_429_page(api, clock):
    terms = await clickwrap(api)
    statuses = [(await agree(api, terms["slug"])).status for _ in range(20)]
    assert statuses == [200] * 10 + [429] * 10
    assert len((await api.get(f"/api/clickwraps/{terms['id']}/consents?limit=100")).json["data"]) == 10
    refused = await agree(api, terms["slug"])
    assert refused.headers["Retry-After"].isdigit() and CAPPED in text(refused)
    clock.advance(timedelta(minutes=5))
    assert (await agree(api, terms["slug"])).status == 200


async def test_consents_on_one_clickwrap_from_many_addresses_stop_at_its_cap(aiohttp_client, make_app):
    api = Api(await aiohttp_client(make_app(trusted_proxies=PROXY, consents_per_clickwrap=2)))
    terms = await clickwrap(api)
    statuses = [(await agree(api, terms["slug"], **{"X-Forwarded-For": f"203.0.113.{n}"})).status for n in range(1, 5)]
    assert statuses == [200, 200, 429, 429]


# Emails a public page causes


@pytest.fixture
async def mailing(aiohttp_client, make_app):
    """A service sending to a local SMTP server, two emails a recipient an hour."""
    async with SmtpServer() as server:
        yield Api(await aiohttp_client(make_app(smtp_url=server.url, emails_per_recipient_hour=2))), server


async def signed_on_link(api: Api, slug: str, visitor: dict = ANN) -> None:
    """A visitor starts a submission on the link and completes it; the completion and its emails run."""
    reply = await post(api, slug, {"form_token": await opened(api, slug), **visitor})
    assert (await act(api, signing_slug(reply), "complete", {"values": ANN_VALUES})).status == 200
    await api.app[WORKER].drain()


async def copies(api: Api) -> list:
    return [
        email for email in await stored_emails.list_emails(api.app[DB], 1, limit=100) if email.kind == "completed_copy"
    ]


async def test_completed_copies_a_link_causes_stop_at_the_recipients_cap_kept_as_failed_with_the_reason(mailing, clock):
    api, smtp_server = mailing
    slug = await shared(api)
    for _ in range(3):
        await signed_on_link(api, slug)
    assert [to for received in smtp_server.received for to in received.recipients] == ["ann@example.com"] * 2
    [suppressed, *sent] = await copies(api)
    assert [email.status for email in sent] == ["sent", "sent"]
    assert suppressed.status == "failed" and suppressed.attempts == 0 and suppressed.sent_at is None
    assert suppressed.last_error == (
        "Not sent: ann@example.com was sent 2 emails in the last hour (SIGNSVC_EMAILS_PER_RECIPIENT_HOUR)"
    )
    # Another address is not held back, nor the same one in any case an hour later.
    await signed_on_link(api, slug, {"name": "Bob", "email": "bob@example.com"})
    clock.advance(timedelta(hours=1, seconds=1))
    await signed_on_link(api, slug, {"name": "Ann", "email": "ANN@example.com"})
    assert [to for received in smtp_server.received for to in received.recipients][2:] == [
        "bob@example.com",
        "ann@example.com",
    ]


async def test_completed_copies_of_submissions_sent_through_the_api_are_not_capped(mailing):
    api, _ = mailing
    template_id = await template(api, FIRST_PARTY)
    for _ in range(3):
        [signer] = await send(api, template_id, {"email": "ann@example.com", "role": "First Party"})
        assert (await act(api, signer["slug"], "complete", {"values": ANN_VALUES})).status == 200
        await api.app[WORKER].drain()
    assert [email.status for email in await copies(api)] == ["sent"] * 3


async def test_the_completed_copy_of_a_link_visitor_names_the_template_not_what_they_typed(mailing):
    api, smtp_server = mailing
    await signed_on_link(api, await shared(api), {"name": "Win a prize at spam.example", "email": "ann@example.com"})
    [message] = smtp_server.messages
    assert message["Subject"] == "NDA has been completed"
    assert "Win a prize at spam.example" in message.get_body(("plain",)).get_content()


@pytest.mark.parametrize("name", ["NDA\r\nBcc: eve@example.com", "NDA\x07\x1b\u2028draft"])
async def test_a_template_and_document_name_with_line_breaks_never_break_the_completed_copy(mailing, name):
    api, smtp_server = mailing
    reply = await api.post(
        "/api/templates", json={"name": name, "documents": [{"name": name, "file": b64(pdf()), "fields": FIRST_PARTY}]}
    )
    assert reply.status == 201, reply.json
    await signed_on_link(api, reply.json["slug"])
    [email] = await copies(api)
    assert email.status == "sent" and "\n" not in email.subject and "\x1b" not in email.subject
    [received] = smtp_server.received
    assert received.recipients == ["ann@example.com"]  # the name's "Bcc:" is no header
    assert received.message["Subject"].startswith("NDA ") and received.message["Bcc"] is None
    filenames = [part.get_filename() for part in received.message.iter_attachments()]
    assert filenames and all("\n" not in filename and "\r" not in filename for filename in filenames)


def test_the_public_sources_are_those_of_the_link_and_the_clickwrap():
    assert {SOURCE, SUBMISSION_SOURCE} == PUBLIC_SOURCES


async def test_consent_certificates_stop_at_the_recipients_cap_for_the_person_and_the_author(aiohttp_client, make_app):
    async with SmtpServer() as smtp_server:
        api = Api(await aiohttp_client(make_app(smtp_url=smtp_server.url, emails_per_recipient_hour=1)))
        author = (await api.get("/api/user")).json["email"]
        terms = await clickwrap(api)
        for _ in range(2):
            assert (await agree(api, terms["slug"])).status == 200
            await api.app[WORKER].drain()
        certificates = [
            email
            for email in await stored_emails.list_emails(api.app[DB], 1, limit=10)
            if email.kind == "consent_certificate"
        ]
        statuses = sorted((email.to_address, email.status) for email in certificates)
        assert statuses == [
            ("ada@example.com", "failed"),
            ("ada@example.com", "sent"),
            (author, "failed"),
            (author, "sent"),
        ]
        assert sorted(to for received in smtp_server.received for to in received.recipients) == sorted(
            ["ada@example.com", author]
        )


async def test_another_accounts_emails_to_the_address_do_not_count_against_the_cap(mailing, other_account):
    api, smtp_server = mailing
    theirs = api.with_key(other_account.live)
    their_slug = await shared(theirs)
    for _ in range(2):
        await signed_on_link(api, their_slug)
    await signed_on_link(api, await shared(api))
    assert [to for received in smtp_server.received for to in received.recipients] == ["ann@example.com"] * 3


async def test_spellings_of_one_mailbox_share_the_recipients_cap(mailing):
    api, smtp_server = mailing
    slug = await shared(api)
    for address in ("ann+1@example.com", "Ann@Example.com", "ANN+copies@example.COM"):
        await signed_on_link(api, slug, {"name": "Ann", "email": address})
    assert len([to for received in smtp_server.received for to in received.recipients]) == 2
    [suppressed, *sent] = await copies(api)
    assert [email.status for email in sent] == ["sent", "sent"]
    assert suppressed.status == "failed" and "was sent 2 emails in the last hour" in suppressed.last_error
