"""Invitation emails (SPEC section 4, `order`): queued in the transaction that makes a signer due.

`preserved` invites the next signer when the previous one completes; `random` invites everyone at
once; `send_email: false` on the submission or the signer sends nothing. An invitation moves its
signer to `sent` and records a `send_email` event once it is sent; without SMTP it is kept in the
outbox and counts as sent at once.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import storage.accounts as stored_accounts
import storage.submissions as stored
from signsvc.infra import jobs
from signsvc.infra import mail
from signsvc.submissions import statuses
from signsvc.infra.services import Services
from storage import Connection
from storage.records import Submission, Submitter

SEND_JOB = "invitations.send"


def signing_link(services: Services, signer: Submitter) -> str:
    return f"{services.config.site}/s/{signer.slug}"


async def invite_due(tx: Connection, services: Services, submission: Submission) -> None:
    """Invites every signer whose turn has come and who has not been invited yet."""
    if not submission.send_email:
        return
    signers = await stored.submitters_of(tx, submission.id)
    for signer in signers:
        if signer.preferences.get("send_email", True) and statuses.turn_has_come(submission, signer, signers):
            await invite(tx, services, submission, signer)


async def invite(tx: Connection, services: Services, submission: Submission, signer: Submitter) -> Submitter:
    """Queues the signer's invitation unless one was queued already or the signer cannot be invited."""
    if signer.invited_at or not signer.email or signer.completed_at or signer.declined_at:
        return signer
    settings = {**submission.preferences, **signer.preferences}
    account = await stored_accounts.get_account(tx, submission.account_id)
    composed = mail.invitation(
        account_name=account.name, template_name=submission.template_name,
        submitter_name=signer.name or signer.email, submitter_email=signer.email,
        link=signing_link(services, signer), expire_at=submission.expire_at, message=settings.get("message"))
    email = await mail.queue(tx, services.clock, services.config, account_id=submission.account_id,
                             kind="invitation", to=signer.email, composed=composed,
                             reply_to=settings.get("reply_to"), submitter_id=signer.id, job_kind=SEND_JOB)
    now = services.clock.now()
    if email.sent_at:  # kept in the outbox: it counts as sent now
        return await _mark_sent(tx, stored.changed(signer, invited_at=now), email.sent_at)
    return await stored.update_submitter(tx, stored.changed(signer, invited_at=now), now)


async def send(services: Services, payload: dict[str, Any]) -> None:
    """The job that sends one invitation through SMTP, then moves its signer to `sent`."""
    email = await mail.deliver(services, payload["email_id"])
    async with services.db.transaction() as tx:
        signer = await stored.get_submitter(tx, email.submitter_id) if email.submitter_id else None
        if signer:
            await _mark_sent(tx, signer, email.sent_at or services.clock.now())


async def _mark_sent(tx: Connection, signer: Submitter, sent_at: datetime) -> Submitter:
    if signer.sent_at:
        return signer
    signer = await stored.update_submitter(tx, stored.changed(signer, sent_at=sent_at), sent_at)
    await stored.insert_event(tx, submission_id=signer.submission_id, submitter_id=signer.id,
                              event_type="send_email", data={}, now=sent_at)
    return signer


KINDS = [jobs.Kind(SEND_JOB, send, backoff=jobs.Backoff(attempts=12))]
