"""Email: the outbox and delivery over SMTP to a real local server.

Composed messages and SMTP URLs are in tests/unit/test_mail_messages.py."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta
from email.utils import parsedate_to_datetime

import pytest

import storage.emails as stored
from signsvc.http.appkeys import OUTBOX, WORKER
from signsvc.infra import jobs, mail
from storage.records import Email
from tests.support.emails import LINK, invite
from tests.support.smtp_server import SmtpServer

ACCOUNT_ID = 1


@dataclass
class Outbox:
    """The app's outbox with a worker that knows the mail jobs."""

    outbox: mail.Outbox
    worker: jobs.Worker

    async def queue(self, composed: mail.Composed | None = None, **changes) -> Email:
        arguments = dict(
            account_id=ACCOUNT_ID,
            kind="invitation",
            to="bob@example.com",
            composed=composed or invite(),
            reply_to="ada@example.com",
        )
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
async def outbox(start, smtp_server) -> Outbox:
    return await start(smtp_url=smtp_server.url)


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
            await outbox.outbox.queue(
                tx, account_id=ACCOUNT_ID, kind="invitation", to="bob@example.com", composed=invite()
            )
            raise RuntimeError("the change that decided to send it failed")
    assert await stored.list_emails(outbox.outbox.db, ACCOUNT_ID, limit=10) == []
    assert await outbox.worker.drain() == 0
    assert smtp_server.received == []


async def test_an_invitation_reaches_the_smtp_server_with_headers_text_and_html(outbox, smtp_server, clock):
    composed = invite(
        submitter_name="<script>", message={"subject": "Sign {{template.name}}", "body": "Hi {{submitter.name}}"}
    )
    email = await outbox.queue(composed)
    await outbox.worker.drain()
    [received] = smtp_server.received
    message = received.message
    assert (received.sender, received.recipients) == ("signsvc@signsvc.test", ["bob@example.com"])
    assert (message["From"], message["To"], message["Reply-To"]) == (
        "signsvc@signsvc.test",
        "bob@example.com",
        "ada@example.com",
    )
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


async def test_when_the_smtp_server_is_down_the_email_stays_pending_and_its_job_retries_later(
    outbox, smtp_server, clock
):
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
    assert [
        email.id for email in await stored.list_emails(outbox.outbox.db, ACCOUNT_ID, limit=10, after=second.id)
    ] == [first.id]
