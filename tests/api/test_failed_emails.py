"""Emails that end: one the SMTP server refused until its attempts ran out is `failed`, with the last
error, wherever emails are listed; its job fails with it and nothing sends it again."""

import pytest
from aiosmtpd.smtp import SMTP, Envelope, Session

import storage.jobs as stored_jobs
from signsvc.http.appkeys import OUTBOX, WORKER
from signsvc.infra import jobs, mail, retries
from signsvc.submissions import invitations
from storage.records import JobStatus
from tests.support.app import Api
from tests.support.emails import invite
from tests.support.signing import send, submission, template
from tests.support.smtp_server import SmtpServer

TESTING = "/api/_testing"
REFUSAL = "554 5.7.1 Delivery refused"


class RefusingSmtpServer(SmtpServer):
    """A real SMTP server that answers every message with a refusal while `refusing` holds."""

    refusing = True

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        return REFUSAL if self.refusing else await super().handle_DATA(server, session, envelope)


@pytest.fixture
async def refusing():
    async with RefusingSmtpServer() as server:
        yield server


@pytest.fixture
async def kit(aiohttp_client, make_app, refusing) -> Api:
    """The service with the testing extension, sending through the refusing server."""
    api = Api(await aiohttp_client(make_app(testing=True, smtp_url=refusing.url)))
    await api.app[WORKER].drain()
    return api


async def run_out_the_retries(worker: jobs.Worker, clock) -> None:
    """Runs the sending jobs through every retry, moving the clock past each wait (`retries.JOBS.longest`, six
    hours, is at least the longest wait of any schedule the emails' jobs follow)."""
    for _ in range(retries.EMAILS.attempts + 2):
        await worker.drain()
        clock.advance(retries.JOBS.longest)


async def test_an_invitation_refused_until_its_attempts_ran_out_is_failed_with_the_last_error(kit, clock):
    await send(kit, await template(kit), {"email": "ann@example.com", "name": "Ann"})
    await kit.app[WORKER].drain()
    [pending] = (await kit.get(f"{TESTING}/emails")).json["data"]
    assert (pending["status"], pending["attempts"]) == ("pending", 1)
    await run_out_the_retries(kit.app[WORKER], clock)
    [email] = (await kit.get(f"{TESTING}/emails")).json["data"]
    assert (email["to"], email["status"], email["attempts"], email["sent_at"]) == (
        "ann@example.com",
        "failed",
        retries.EMAILS.attempts,
        None,
    )
    assert email["last_error"].startswith("SMTPDataError") and "Delivery refused" in email["last_error"]
    assert (await kit.get(f"{TESTING}/emails/{email['id']}")).json == email
    assert (await submission(kit, 1))["submitters"][0]["status"] == "awaiting", "a failed invitation was not sent"


async def test_an_outbox_email_refused_until_its_attempts_ran_out_is_failed_and_its_job_too(kit, clock, db):
    outbox: mail.Outbox = kit.app[OUTBOX]
    async with db.transaction() as tx:
        queued = await outbox.queue(tx, account_id=1, kind="copy", to="bob@example.com", composed=invite())
    await run_out_the_retries(kit.app[WORKER], clock)
    [email] = (await kit.get(f"{TESTING}/emails")).json["data"]
    assert (email["id"], email["status"], email["attempts"]) == (queued.id, "failed", retries.EMAILS.attempts)
    job = await job_of_email(db, queued.id)
    assert (job.status, job.attempts) == (JobStatus.FAILED, retries.EMAILS.attempts)
    assert "Delivery refused" in job.last_error


async def test_an_invitation_fails_for_good_after_the_email_strategys_attempts_its_email_and_its_job_alike(
    kit, clock, db
):
    await send(kit, await template(kit), {"email": "ann@example.com", "name": "Ann"})
    await run_out_the_retries(kit.app[WORKER], clock)
    [email] = (await kit.get(f"{TESTING}/emails")).json["data"]
    assert (email["status"], email["attempts"]) == ("failed", retries.EMAILS.attempts)
    job = await job_of_email(db, email["id"])
    assert (job.kind, job.status, job.attempts) == (invitations.SEND_JOB, JobStatus.FAILED, retries.EMAILS.attempts)
    assert kit.app[WORKER].kinds[invitations.SEND_JOB].backoff == retries.EMAILS, "its job's own limit is the same"


async def test_a_failed_email_is_not_sent_again(kit, clock, refusing):
    outbox: mail.Outbox = kit.app[OUTBOX]
    async with outbox.db.transaction() as tx:
        queued = await outbox.queue(tx, account_id=1, kind="copy", to="bob@example.com", composed=invite())
    await run_out_the_retries(kit.app[WORKER], clock)
    refusing.refusing = False
    with pytest.raises(jobs.GiveUp, match=f"email {queued.id} failed after"):
        await outbox.send(queued.id)
    assert refusing.received == []


async def job_of_email(db, email_id: int):
    """The sending job of an email (a test's queue holds a few dozen jobs at most)."""
    for job_id in range(1, 100):
        job = await stored_jobs.get_job(db, job_id)
        if job and job.payload == {"email_id": email_id}:
            return job
    raise AssertionError(f"no job sends email {email_id}")
