"""Email: composed invitations and copies, the outbox, delivery over SMTP to a real local server."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from email.utils import parsedate_to_datetime

import pytest

import storage.emails as stored
from signsvc.http.appkeys import OUTBOX, WORKER
from signsvc.infra import jobs, mail, smtp
from signsvc.results import emails
from signsvc.submissions import invitations
from storage.records import Email
from tests.smtp_server import SmtpServer

LINK = "http://signsvc.test/s/sLuG123"
ACCOUNT_ID = 1


def invite(**changes) -> mail.Composed:
    arguments = dict(account_name="Acme", template_name="NDA", submitter_name="Bob Stone",
                     submitter_email="bob@example.com", link=LINK, expire_at=None, message=None)
    return invitations.compose(**{**arguments, **changes})


@dataclass
class Outbox:
    """The app's outbox with a worker that knows the mail jobs."""

    outbox: mail.Outbox
    worker: jobs.Worker

    async def queue(self, composed: mail.Composed | None = None, **changes) -> Email:
        arguments = dict(account_id=ACCOUNT_ID, kind="invitation", to="bob@example.com",
                         composed=composed or invite(), reply_to="ada@example.com")
        async with self.outbox.db.transaction() as tx:
            return await self.outbox.queue(tx, **{**arguments, **changes})

    async def email(self, email_id: int) -> Email:
        return await stored.get_email(self.outbox.db, email_id)


@pytest.fixture
def start(aiohttp_client, make_app):
    async def start(**config_changes) -> Outbox:
        app = (await aiohttp_client(make_app(**config_changes))).app
        worker = app[WORKER]
        await worker.drain()  # the periodic jobs due at start, so a test counts only its own
        return Outbox(app[OUTBOX], worker)

    return start


@pytest.fixture
async def smtp_server():
    async with SmtpServer() as server:
        yield server


@pytest.fixture
async def outbox(start, smtp_server) -> Outbox:
    return await start(smtp_url=smtp_server.url)


# Composition

def test_an_invitation_has_the_default_subject_and_names_the_template_and_link():
    composed = invite(expire_at=datetime(2026, 2, 3, 4, 5, tzinfo=timezone.utc))
    assert composed.subject == "You are invited to sign a document"
    for body in (composed.text, composed.html):
        assert "NDA" in body and LINK in body and "Bob Stone" in body
        assert "February 3, 2026 at 04:05 UTC" in body


def test_custom_message_variables_are_substituted_in_any_case_with_spaces_inside_braces():
    composed = invite(expire_at=datetime(2026, 2, 3, 4, 5, tzinfo=timezone.utc), message={
        "subject": "Please sign {{ Template.Name }} for {{account.name}}",
        "body": "Dear {{SUBMITTER.NAME}} <{{ submitter.email }}>,\n{{submitter.link}}\nby {{submission.expire_at}}"})
    assert composed.subject == "Please sign NDA for Acme"
    assert composed.text == f"Dear Bob Stone <bob@example.com>,\n{LINK}\nby February 3, 2026 at 04:05 UTC\n"


def test_unknown_variables_in_a_custom_message_are_left_as_typed():
    composed = invite(message={"subject": "{{sender.name}} asks", "body": "Hi {{ who.knows }}, {{template.name}}"})
    assert composed.subject == "{{sender.name}} asks"
    assert composed.text.startswith("Hi {{ who.knows }}, NDA")


def test_values_from_users_are_html_escaped():
    composed = invite(submitter_name="<script>alert(1)</script>", template_name="<b>NDA</b>", account_name="A&B")
    assert "<script>" not in composed.html and "<b>NDA" not in composed.html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in composed.html and "A&amp;B" in composed.html
    assert "<script>alert(1)</script>" in composed.text, "the text version is text, not markup"


def test_a_custom_body_is_escaped_in_html_with_its_line_breaks_kept_and_the_link_as_a_button():
    composed = invite(message={"body": "Hello <b>{{submitter.name}}</b>,\nplease sign.\n\nThanks"})
    assert "<p>Hello &lt;b&gt;Bob Stone&lt;/b&gt;,<br>please sign.</p>\n<p>Thanks</p>" in composed.html
    assert re.search(rf'<a href="{re.escape(LINK)}"[^>]*>Review and sign</a>', composed.html)


def test_a_custom_body_without_the_link_gets_it_appended_in_text():
    assert invite(message={"body": "Please sign."}).text == f"Please sign.\n\n{LINK}\n"
    assert invite(message={"body": "Sign at {{submitter.link}} today."}).text == f"Sign at {LINK} today.\n"


def test_a_subject_stays_on_one_line_whatever_the_values():
    assert invite(message={"subject": "Sign {{submitter.name}}"}, submitter_name="Bob\r\nBcc: x@y").subject == \
        "Sign Bob Bcc: x@y"


def test_a_completed_copy_says_who_completed_it_with_links_to_documents_and_audit_log():
    composed = emails.compose(account_name="Acme", template_name="NDA", submitter_names=["Bob", "<Ann>"],
                                   documents=[("nda", "http://signsvc.test/file/t/nda.pdf")],
                                   audit_log_url="http://signsvc.test/file/a/audit.pdf")
    assert composed.subject == "NDA has been completed by Bob, <Ann>"
    assert "NDA has been completed by Bob, <Ann>." in composed.text
    assert "http://signsvc.test/file/t/nda.pdf" in composed.text and "audit.pdf" in composed.text
    assert '<a href="http://signsvc.test/file/t/nda.pdf">nda</a>' in composed.html
    assert "Bob, &lt;Ann&gt;" in composed.html


# SMTP URL

def test_an_smtp_url_gives_host_port_and_percent_decoded_credentials():
    server = smtp.parse_smtp_url("smtp://ada%40example.com:p%40ss%3Aword@mail.example.com:2525")
    assert server == smtp.Server("mail.example.com", 2525, "ada@example.com", "p@ss:word", implicit_tls=False)
    assert "p@ss" not in repr(server)


def test_an_smtp_url_without_port_uses_the_port_of_its_kind():
    assert smtp.parse_smtp_url("smtps://u:p@mail.example.com").port == 465
    assert smtp.parse_smtp_url("smtps://u:p@mail.example.com").implicit_tls
    assert smtp.parse_smtp_url("smtp://u:p@mail.example.com").port == 587
    assert smtp.parse_smtp_url("smtp://localhost").port == 25


@pytest.mark.parametrize("url", ["http://mail.example.com", "smtp://", "smtp://host:port", "smtp://host:99999",
                                 "smtp://:secret@host", "smtp://host/path", "mail.example.com:25"])
def test_a_bad_smtp_url_is_a_clear_error_without_its_password(url):
    with pytest.raises(ValueError, match="SIGNSVC_SMTP_URL") as raised:
        smtp.parse_smtp_url(url)
    assert "secret" not in str(raised.value)


# Outbox and delivery

async def test_without_smtp_an_email_is_kept_in_the_outbox_and_counts_as_sent(start, clock):
    outbox = await start()
    email = await outbox.queue()
    assert (email.status, email.sent_at, email.attempts) == ("kept", clock.now(), 0)
    assert (email.to_address, email.reply_to, email.kind) == ("bob@example.com", "ada@example.com", "invitation")
    assert await outbox.worker.drain() == 0, "no job"


async def test_with_smtp_an_email_waits_as_pending_for_its_job(outbox):
    email = await outbox.queue()
    assert (email.status, email.sent_at) == ("pending", None)
    assert await outbox.worker.drain() == 1


async def test_an_email_and_its_job_are_dropped_with_a_rolled_back_transaction(outbox, smtp_server):
    with pytest.raises(RuntimeError):
        async with outbox.outbox.db.transaction() as tx:
            await outbox.outbox.queue(tx, account_id=ACCOUNT_ID,
                             kind="invitation", to="bob@example.com", composed=invite())
            raise RuntimeError("the change that decided to send it failed")
    assert await stored.list_emails(outbox.outbox.db, ACCOUNT_ID, limit=10) == []
    assert await outbox.worker.drain() == 0
    assert smtp_server.received == []


async def test_an_invitation_reaches_the_smtp_server_with_headers_text_and_html(outbox, smtp_server, clock):
    composed = invite(submitter_name="<script>", message={"subject": "Sign {{template.name}}",
                                                          "body": "Hi {{submitter.name}}"})
    email = await outbox.queue(composed)
    await outbox.worker.drain()
    [received] = smtp_server.received
    message = received.message
    assert (received.sender, received.recipients) == ("signsvc@signsvc.test", ["bob@example.com"])
    assert (message["From"], message["To"], message["Reply-To"]) == (
        "signsvc@signsvc.test", "bob@example.com", "ada@example.com")
    assert message["Subject"] == "Sign NDA"
    assert parsedate_to_datetime(message["Date"]) == clock.now()
    assert re.fullmatch(rf"<signsvc\.{email.id}\.\d+@signsvc\.test>", message["Message-ID"])
    assert message.get_content_type() == "multipart/alternative"
    assert message.get_body(("plain",)).get_content() == f"Hi <script>\n\n{LINK}\n"
    html = message.get_body(("html",)).get_content()
    assert "Hi &lt;script&gt;" in html and "<script>" not in html and f'href="{LINK}"' in html
    sent = await outbox.email(email.id)
    assert (sent.status, sent.sent_at, sent.attempts, sent.last_error) == ("sent", clock.now(), 1, None)


async def test_mail_from_sets_the_sender(start, smtp_server):
    outbox = await start(smtp_url=smtp_server.url, mail_from="Acme Signing <sign@acme.example>")
    await outbox.queue()
    await outbox.worker.drain()
    [received] = smtp_server.received
    assert (received.sender, received.message["From"]) == ("sign@acme.example", "Acme Signing <sign@acme.example>")


async def test_smtp_credentials_from_the_url_log_in(start):
    async with SmtpServer(users={"ada@example.com": "p@ss:word"}) as server:
        outbox = await start(smtp_url=f"smtp://ada%40example.com:p%40ss%3Aword@127.0.0.1:{server.port}")
        email = await outbox.queue()
        await outbox.worker.drain()
        assert [received.login for received in server.received] == ["ada@example.com"]
        assert (await outbox.email(email.id)).status == "sent"


async def test_when_the_smtp_server_is_down_the_email_stays_pending_and_its_job_retries_later(outbox, smtp_server,
                                                                                               clock):
    await smtp_server.stop()
    email = await outbox.queue()
    assert await outbox.worker.drain() == 1
    failed = await outbox.email(email.id)
    assert (failed.status, failed.attempts, failed.sent_at) == ("pending", 1, None)
    assert failed.last_error.startswith("SMTPConnectError")
    await smtp_server.start()
    assert await outbox.worker.drain() == 0, "not before the backoff has passed"
    clock.advance(timedelta(minutes=1))
    assert await outbox.worker.drain() == 1
    sent = await outbox.email(email.id)
    assert (sent.status, sent.sent_at, sent.attempts, sent.last_error) == ("sent", clock.now(), 2, None)
    assert len(smtp_server.received) == 1


async def test_delivering_an_email_twice_sends_it_once(outbox, smtp_server):
    email = await outbox.queue()
    first = await outbox.outbox.send(email.id)
    again = await outbox.outbox.send(email.id)
    assert first == again and first.status == "sent"
    assert len(smtp_server.received) == 1
    assert await outbox.worker.drain() == 1, "the job finds it sent"
    assert len(smtp_server.received) == 1


async def test_a_pending_email_is_kept_when_the_service_runs_on_without_smtp(start, outbox, clock):
    email = await outbox.queue()
    without_smtp = await start()
    kept = await without_smtp.outbox.send(email.id)
    assert (kept.status, kept.sent_at) == ("kept", clock.now())


async def test_emails_of_an_account_are_listed_newest_first(start):
    outbox = await start()
    first, second = await outbox.queue(), await outbox.queue(to="ann@example.com")
    listed = await stored.list_emails(outbox.outbox.db, ACCOUNT_ID, limit=10)
    assert [email.id for email in listed] == [second.id, first.id]
    assert [email.id for email in await stored.list_emails(outbox.outbox.db, ACCOUNT_ID, limit=10,
                                                           after=second.id)] == [first.id]
