"""What the testing extension does to the service as a whole (SIGNSVC_TESTING): reset its data, run
the jobs that are due, and show the emails it sent or kept, for test suites that use signsvc in place of
the hosted service."""

from __future__ import annotations

import re

import storage.emails as stored_emails
import storage.files as stored_files
from signsvc.infra.captured import CapturedEmail
from signsvc.infra.files import Files
from signsvc.infra.jobs import Worker
from storage import Database, reset
from storage.outbound_records import Email

_LINK = re.compile(r"https?://[^\s<>\"')\]]+")


class Kit:
    def __init__(self, db: Database, files: Files, worker: Worker) -> None:
        self.db, self.files, self.worker = db, files, worker

    async def reset(self) -> None:
        """Forgets what every account made (`storage.reset`) and the contents of its files."""
        await reset.reset(self.db)
        await self.files.clear_contents()

    async def settle(self) -> int:
        """Runs every job due now until none is left; answers how many ran."""
        return await self.worker.settle()

    async def emails(
        self, account_id: int, *, limit: int, after: int | None = None, before: int | None = None
    ) -> list[CapturedEmail]:
        """The account's emails, newest first."""
        found = await stored_emails.list_emails(self.db, account_id, limit=limit, after=after, before=before)
        return await self._captured(found)

    async def email(self, account_id: int, email_id: int) -> CapturedEmail | None:
        email = await stored_emails.get_email(self.db, email_id)
        return (await self._captured([email]))[0] if email and email.account_id == account_id else None

    async def _captured(self, emails: list[Email]) -> list[CapturedEmail]:
        """The emails with their links and the names of their attachments (read for all of them at once)."""
        blobs = await stored_files.blobs_by_ids(self.db, sorted({i for email in emails for i in email.attachments}))
        return [
            CapturedEmail(
                email,
                list(dict.fromkeys(_LINK.findall(email.text_body))),
                [blobs[i].filename for i in email.attachments if i in blobs],
            )
            for email in emails
        ]
