"""What a webhook carries as `data`: the JSON of the record an event is about, built when the delivery is
sent, so links in it are fresh. A webhook is the same wire format as the API, sent the other way."""

from __future__ import annotations

from typing import Any

import storage.clickwraps as stored_clickwraps
import storage.submissions as stored_submissions
import storage.templates as stored_templates
from signsvc.infra.clock import Clock
from signsvc.infra.files import Files
from signsvc.loaders import submissions as submission_loaders
from signsvc.loaders import templates as template_loaders
from signsvc.wire import clickwrap_json, submission_json, template_json
from storage import Connection


class Payloads:
    def __init__(self, clock: Clock, files: Files) -> None:
        self.clock, self.files = clock, files

    async def data(self, conn: Connection, record_type: str, record_id: int, event_type: str) -> dict[str, Any] | None:
        """The record's JSON for the event type; None when the record no longer exists."""
        if record_type == "template":
            return await self.template(conn, record_id)
        if record_type == "submitter":
            return await self.submitter(conn, record_id)
        if record_type == "submission":
            return await self.submission(conn, record_id, event_type)
        if record_type == "consent":
            return await self.consent(conn, record_id)
        raise LookupError(f"no webhook payload is defined for {record_type} records")

    async def template(self, conn: Connection, template_id: int) -> dict[str, Any] | None:
        """template.created and template.updated carry the template record."""
        template = await stored_templates.get_template(conn, template_id)
        if template is None:
            return None
        documents = await template_loaders.documents(conn, template.account_id, [template])
        return template_json.template_json(self.files.links, template, documents[template.id])

    async def submitter(self, conn: Connection, submitter_id: int) -> dict[str, Any] | None:
        """form.* events carry the submitter, with its submission and template."""
        submitter = await stored_submissions.get_submitter(conn, submitter_id)
        if submitter is None:
            return None
        related = await submission_loaders.submitters(
            conn, self.files, submitter.account_id, [submitter], siblings=True
        )
        return submission_json.webhook_submitter(self.files.links, self.clock.now(), related, submitter)

    async def submission(self, conn: Connection, submission_id: int, event_type: str) -> dict[str, Any] | None:
        """submission.* events carry the submission as GET /submissions/{id} answers it; archiving, less."""
        submission = await stored_submissions.get_submission(conn, submission_id)
        if submission is None:
            return None
        if event_type == "submission.archived":
            return {"id": submission.id, "slug": submission.slug, "archived_at": submission.archived_at}
        related = await submission_loaders.records(conn, self.files, submission.account_id, [submission], events=True)
        return submission_json.submission_record(
            self.files.links, self.clock.now(), related, submission, with_events=True
        )

    async def consent(self, conn: Connection, consent_id: int) -> dict[str, Any] | None:
        """consent.created carries the consent as GET /consents/{id} answers it."""
        consent = await stored_clickwraps.get_consent(conn, consent_id)
        return clickwrap_json.consent_json(self.files.links, consent) if consent else None
