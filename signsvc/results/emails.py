"""The completed email: once a submission is completed, its signed documents and audit log go to each
submitter, viewers too (and to `bcc_completed` and the account's extra recipients), attached, or linked when
they are too big to attach; each address once. A submitter's email is in their language (as their invitation),
the copies in the submission's, else English."""

from __future__ import annotations

import storage.accounts as stored_accounts
import storage.results as stored
import storage.submissions as stored_submissions
from signsvc.accounts import completed_recipients
from signsvc.infra import languages, mail
from signsvc.infra.files import Files
from signsvc.infra.mail import Composed, Outbox
from signsvc.results.slots import Produced
from signsvc.submissions import invitations
from storage import Connection
from storage.records import Submission, Submitter

ATTACHMENT_LIMIT = 10 * 1024 * 1024  # above it, the completed email links the files instead
# The sources of the submissions public pages make (`template_links.SOURCE`, `consent_page.SUBMISSION_SOURCE`;
# named here, below them): their signer's name and address are whatever a visitor typed.
PUBLIC_SOURCES = frozenset({"link", "clickwrap"})


async def queue(tx: Connection, outbox: Outbox, files: Files, submission: Submission, produced: list[Produced]) -> None:
    """In the transaction that records the documents: to each submitter who gets a copy, and to
    `bcc_completed` and the account's extra recipients when the submission sends email."""
    submitters = await stored_submissions.submitters_of(tx, submission.id)
    copies = languages.of(submission.preferences.get("language"))
    recipients = _once(
        [
            (s.email, s.id, invitations.language_of(submission, s))
            for s in submitters
            if s.email and gets_copy(submission, s)
        ]
        + [(address, None, copies) for address in await _copied(tx, submission)]
    )
    if not recipients:
        return
    results = [r for r in await stored.results_of(tx, submission.id) if r.kind in ("final", "audit_log")]
    attached = (
        bool(results)
        and sum(len(p.file.data) for p in produced if p.kind in ("final", "audit_log")) <= ATTACHMENT_LIMIT
    )
    account = await stored_accounts.required_account(tx, submission.account_id)
    documents = [(r.name, files.links.link(r.blob_uuid, r.filename)) for r in results if r.kind == "final"]
    audit_log_url = next((files.links.link(r.blob_uuid, r.filename) for r in results if r.kind == "audit_log"), None)
    composed: dict[str, Composed] = {}
    for address, submitter_id, language in recipients:
        if language not in composed:
            composed[language] = compose(
                account_name=account.name,
                template_name=submission.template_name,
                submitter_names=[s.name or s.email or s.phone or s.role for s in submitters if s.completed_at],
                documents=documents,
                audit_log_url=audit_log_url,
                attached=attached,
                public=submission.source in PUBLIC_SOURCES,
                language=language,
            )
        await outbox.queue(
            tx,
            account_id=submission.account_id,
            kind="completed_copy",
            to=address,
            composed=composed[language],
            submitter_id=submitter_id,
            attachments=[r.blob_id for r in results] if attached else None,
            capped=submission.source in PUBLIC_SOURCES,
        )


async def _copied(tx: Connection, submission: Submission) -> list[str]:
    """The addresses that get a copy besides the submitters: none when the submission sends no email."""
    if not submission.send_email:
        return []
    bcc = submission.preferences.get("bcc_completed")
    return ([bcc] if bcc else []) + await completed_recipients.of(tx, submission.account_id)


def _once(recipients: list[tuple[str, int | None, str]]) -> list[tuple[str, int | None, str]]:
    """Each address once (its first, a submitter's before the copies'): one person, one email."""
    seen: set[str] = set()
    kept = []
    for address, submitter_id, language in recipients:
        if address.lower() not in seen:
            seen.add(address.lower())
            kept.append((address, submitter_id, language))
    return kept


def gets_copy(submission: Submission, submitter: Submitter) -> bool:
    """`send_copy_email` when given (a visitor of a public page asks for no invitation, but for the copy),
    else as the invitation: not when the submission or the submitter sends no email."""
    if (asked := submitter.preferences.get("send_copy_email")) is not None:
        return bool(asked)
    return submission.send_email and submitter.preferences.get("send_email") is not False


def compose(
    *,
    account_name: str,
    template_name: str,
    submitter_names: list[str],
    documents: list[tuple[str, str]],
    audit_log_url: str | None,
    attached: bool = False,
    public: bool = False,
    language: str = languages.DEFAULT,
) -> Composed:
    """Tells that a submission is completed: its documents and audit log attached, or linked when too big. The
    subject of a submission a `public` page made names the template only: its signer's name is what a visitor
    typed, and a subject is what an inbox shows before anyone opens the email."""
    names = ", ".join(submitter_names)
    context = {
        "account_name": account_name,
        "template_name": template_name,
        "names": names,
        "documents": documents,
        "audit_log_url": audit_log_url,
        "attached": attached,
    }
    t = languages.translator(language)
    subject = (
        t("email.completed.subject_public", name=template_name)
        if public
        else t("email.completed.subject", name=template_name, names=names)
    )
    return mail.compose("completed", subject, context, language)
