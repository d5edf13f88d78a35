"""The certificate of a consent given on a clickwrap's page: a PDF of who agreed, when, from where, to
which version (its text, or its template's documents with their hashes) and how they answered each
checkbox, sealed by the service like the signed documents.

The consent's transaction enqueues the job; the job makes the certificate and records it together with
`consent.created` and the emails that carry it (to the person when they gave an address, and to the
clickwrap's author), so the event's payload links a certificate that exists. A job run again after a
crash finds the certificate recorded and does nothing.

The certificate and the person's email speak the consent's language (its page's, as the browser asked for it),
else English; the author's email is in English, as nothing tells their language.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import storage.accounts as stored_accounts
import storage.clickwraps as stored
import storage.files as stored_files
import storage.submissions as stored_submissions
import storage.templates as stored_templates
from signsvc.clickwraps.clickwraps import API_SOURCE, CONSENT_CREATED
from signsvc.infra import jobs, languages, mail, pdf_calls
from signsvc.infra.clock import Clock
from signsvc.infra.files import Files, NewFile
from signsvc.infra.mail import Outbox
from signsvc.infra.pdf_calls import Sealed
from signsvc.infra.pool import PdfPool
from signsvc.results import produce, slots
from signsvc.results.sealing import Sealer
from signsvc.webhooks import events
from storage import Connection, Database
from storage.records import Clickwrap, ClickwrapVersion, Consent

log = logging.getLogger(__name__)

JOB = "consents.certificate"
WORDS = ("record.", "consent_certificate.")  # the catalogue's keys the drawing is handed
# An event's sentence naming the person, and its own without a person (a pronoun would not fit every language's).
_AGREED = ("consent_certificate.event.agreed", "consent_certificate.event.agreed_unnamed")
_AGREED_FROM = ("consent_certificate.event.agreed_from", "consent_certificate.event.agreed_from_unnamed")
_REQUEST = ("consent_certificate.event.request", "consent_certificate.event.request_unnamed")


async def enqueue(tx: Connection, clock: Clock, consent: Consent) -> None:
    """In the consent's transaction: the job that makes its certificate."""
    await jobs.enqueue(tx, clock, JOB, {"consent_id": consent.id}, dedupe_key=f"certificate:{consent.id}")


class _RecordedMeanwhile(Exception):
    """Another run of the job recorded the certificate first (this one outlived its lease)."""


class Certificates:
    def __init__(
        self,
        db: Database,
        clock: Clock,
        files: Files,
        pool: PdfPool,
        sealer: Sealer,
        outbox: Outbox,
        font_dir: str | None,
    ) -> None:
        self.db, self.clock, self.files, self.pool = db, clock, files, pool
        self.sealer, self.outbox, self.font_dir = sealer, outbox, font_dir

    def kinds(self) -> list[jobs.Kind]:
        return [jobs.Kind(JOB, self.make)]

    async def make(self, payload: dict[str, Any]) -> None:
        consent = await stored.get_consent(self.db, payload["consent_id"])
        if consent is None or await produce.emitted(self.db, "consent", consent.id, CONSENT_CREATED):
            return  # deleted since, or recorded by an earlier run
        clickwrap = await stored.required_clickwrap(self.db, consent.clickwrap_id)
        version = await stored.get_version(self.db, clickwrap.id, consent.clickwrap_version_number)
        assert version is not None, "a consent names a published version"
        made: tuple[NewFile, Sealed] | None
        try:
            made = await self._certificate(clickwrap, version, consent)
        except pdf_calls.EngineError as error:
            # The text can't be drawn (a font is missing, say): the person has still agreed.
            log.error("consent %s: certificate not made: %s", consent.id, error)
            made = None
        await self._record(clickwrap, consent, made)

    async def _certificate(
        self, clickwrap: Clickwrap, version: ClickwrapVersion, consent: Consent
    ) -> tuple[NewFile, Sealed]:
        data = await self._data(clickwrap, version, consent)
        made = await self.pool.run(pdf_calls.consent_certificate, data, self.font_dir)
        name = f"Consent Certificate - {version.name}"
        sealed = await self.sealer.seal(made.data, f"consent {consent.id}: {slots.filename(name)}")
        return slots.pdf_file(name, sealed), sealed

    async def _data(self, clickwrap: Clickwrap, version: ClickwrapVersion, consent: Consent) -> dict[str, Any]:
        """What the certificate shows (`signsvc.pdf.consent_certificate` documents the shape)."""
        settings = version.settings
        account = await stored_accounts.required_account(self.db, clickwrap.account_id)
        language = languages.of(consent.language)
        t = languages.translator(language)
        log_events = [{"time": consent.agreed_at.isoformat(), "text": _agreed(consent, version, t)}]
        submission = None
        if consent.submission_id and (found := await stored_submissions.get_submission(self.db, consent.submission_id)):
            submission = {"envelope_id": found.envelope_id}  # no link: the certificate outlives any signed link
            created = _told(t, _REQUEST, consent, envelope_id=found.envelope_id)
            log_events.append({"time": found.created_at.isoformat(), "text": created})
        return {
            "language": language,
            "words": languages.words(language, WORDS),
            "consent_id": consent.uuid or str(consent.id),
            "title": version.name,
            "version": version.number,
            "test_mode": account.is_test,
            "generated_at": self.clock.now().isoformat(),
            "agreed_at": consent.agreed_at.isoformat(),
            "button_text": settings.get("button_text"),
            "content": settings.get("content") if version.kind == "no_document" else None,
            "documents": await self._documents(settings.get("template_id")) if version.kind != "no_document" else [],
            "person": {
                "name": consent.name,
                "email": consent.email,
                "external_id": consent.external_id,
                "ip": consent.ip,
                "user_agent": consent.user_agent,
            },
            "checkboxes": consent.checkboxes,
            "submission": submission,
            "events": log_events,
        }

    async def _documents(self, template_id: int | None) -> list[dict[str, Any]]:
        if template_id is None:
            return []
        documents = await stored_templates.list_documents(self.db, template_id)
        return [
            {
                "name": d.name,
                "pages": len(d.pages),
                "sha256": (await stored_files.required_blob(self.db, d.blob_id)).sha256,
            }
            for d in documents
        ]

    async def _record(self, clickwrap: Clickwrap, consent: Consent, made: tuple[NewFile, Sealed] | None) -> None:
        file, sealed = made or (None, None)
        if file:
            await self.files.write([file])
        try:
            async with self.db.transaction() as tx:
                if file and sealed:
                    blob = await self.files.record(tx, consent.account_id, file)
                    renew_at = self.sealer.renew_at(sealed)
                    if not await stored.set_consent_certificate(tx, consent.id, blob.id, sealed.level, renew_at):
                        raise _RecordedMeanwhile()
                    await self._emails(tx, clickwrap, consent, blob.id, self.files.links.link(blob.uuid, blob.filename))
                await events.record(
                    tx,
                    self.clock,
                    account_id=consent.account_id,
                    event_type=CONSENT_CREATED,
                    record_type="consent",
                    record_id=consent.id,
                )
        except BaseException as failure:
            if file:
                await self.files.discard([file])
            if not isinstance(failure, _RecordedMeanwhile):
                raise
            log.info("consent %s: its certificate was recorded by another run", consent.id)

    async def _emails(self, tx: Connection, clickwrap: Clickwrap, consent: Consent, blob_id: int, link: str) -> None:
        account = await stored_accounts.required_account(tx, clickwrap.account_id)
        author = await stored_accounts.get_user(tx, clickwrap.author_id)
        recipients = [(consent.email, False)] if consent.email else []
        if author and author.email.lower() != (consent.email or "").lower():
            recipients.append((author.email, True))
        for address, to_author in recipients:
            composed = compose(
                account_name=account.name,
                clickwrap_name=clickwrap.name,
                consent=consent,
                certificate_url=link,
                to_author=to_author,
                language=languages.DEFAULT if to_author else languages.of(consent.language),
            )
            await self.outbox.queue(
                tx,
                account_id=clickwrap.account_id,
                kind="consent_certificate",
                to=address,
                composed=composed,
                attachments=[blob_id],
                capped=consent.source != API_SOURCE,
            )


def _agreed(consent: Consent, version: ClickwrapVersion, t: Callable[..., str]) -> str:
    if consent.ip:
        return _told(t, _AGREED_FROM, consent, version=version.number, ip=consent.ip)
    return _told(t, _AGREED, consent, version=version.number)


def _told(t: Callable[..., str], keys: tuple[str, str], consent: Consent, **values: Any) -> str:
    """The event's sentence naming the person who agreed, or the one without a person when they gave neither a
    name nor an address."""
    if who := consent.name or consent.email:
        return t(keys[0], who=who, **values)
    return t(keys[1], **values)


def compose(
    *,
    account_name: str,
    clickwrap_name: str,
    consent: Consent,
    certificate_url: str,
    to_author: bool,
    language: str = languages.DEFAULT,
) -> mail.Composed:
    """The certificate of a consent, attached: to the person, or telling the author who agreed (in the text: the
    subject never holds what the person typed)."""
    t = languages.translator(language)
    who = consent.name or consent.email or t("email.consent.someone")
    subject = t("email.consent.subject_author" if to_author else "email.consent.subject", name=clickwrap_name)
    context = {
        "account_name": account_name,
        "clickwrap_name": clickwrap_name,
        "who": who,
        "to_author": to_author,
        "agreed_at": mail.format_time(consent.agreed_at, language),
        "version": str(consent.clickwrap_version_number),  # a version is a name, as the certificate writes it: 1234
        "certificate_url": certificate_url,
    }
    return mail.compose("consent", subject, context, language)
