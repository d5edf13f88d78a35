"""Retention: operational history older than the configured age is forgotten by a periodic job, a small batch at
a time.

What goes (storage/queries/retention.sql has each rule): webhook deliveries settled before the age with their
attempts, events no delivery carries any more, emails sent, kept or failed, jobs that failed, and the posts of
public forms. What an API response, a page or work still to do needs stays, whatever its age: a pending delivery
(retrying, or resent) with its attempts and its event, a pending email, pending and running jobs, the events
that record a job's work (`form.completed`, `submission.completed`, `consent.created`: the completion and
certificate jobs read them), and every record the API shows: submissions, their signers and audit trail
(`submission_events`), which the events feed and the audit log read, templates, consents and documents.

A run makes at most `statements` statements, each deleting at most `batch` rows in a transaction of its own, one
kind of history at a time in the order of `storage.retention.HISTORY` (a backlog of one kind, as on the first run
over a big database, holds the kinds after it back until it is worked off), so that no run holds the database for
long; while rows are left, the next run comes a minute later instead of an hour, until none is.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import storage.retention as stored
from signsvc.infra import jobs
from signsvc.infra.clock import Clock
from storage import Database

log = logging.getLogger(__name__)

JOB = "maintenance.retention"
EVERY = timedelta(hours=1)
AGAIN = timedelta(minutes=1)  # after a run that left rows to prune (a backlog: the first run on a big database)
BATCH = 500
STATEMENTS = 20


@dataclass(frozen=True)
class Run:
    """What one run forgot, by kind of history, and whether it stopped with rows possibly left."""

    pruned: dict[str, int]
    left: bool


class Retention:
    """Forgets history older than `days`; 0 keeps everything."""

    def __init__(
        self, db: Database, clock: Clock, *, days: int, batch: int = BATCH, statements: int = STATEMENTS
    ) -> None:
        if days < 0:
            raise ValueError(f"retention days must be 0 (keep everything) or more, not {days}")
        if statements < len(stored.HISTORY):
            raise ValueError(f"a run needs at least {len(stored.HISTORY)} statements: one for each kind of history")
        self.db, self.clock, self.days = db, clock, days
        self.batch, self.statements = batch, statements

    def kinds(self) -> list[jobs.Kind]:
        # Registered with 0 days too, and then doing nothing: a periodic job left without a handler would fail, and
        # its failed row would hold the dedupe key that the job needs once retention is turned on again.
        return [jobs.Kind(JOB, self.run, every=EVERY)]

    async def run(self, payload: dict[str, Any]) -> datetime | None:
        """The job: one run; answers when to run again while rows are left (else the job comes back in an hour)."""
        run = await self.prune()
        if pruned := [f"{history} {count}" for history, count in run.pruned.items() if count]:
            log.info(
                "retention: pruned history older than %d days (%s)%s",
                self.days,
                ", ".join(pruned),
                "; more in the next run" if run.left else "",
            )
        return self.clock.now() + AGAIN if run.left else None

    async def prune(self) -> Run:
        """Forgets what is older than the age by the service clock, within one run's statements."""
        if self.days == 0:
            return Run({}, left=False)
        before = self.clock.now() - timedelta(days=self.days)
        pruned = dict.fromkeys(stored.HISTORY, 0)
        budget = self.statements
        for history in stored.HISTORY:
            count = self.batch
            while count == self.batch:  # a full batch: there may be more
                if budget == 0:
                    return Run(pruned, left=True)
                budget -= 1
                count = await stored.prune(self.db, history, before=before, limit=self.batch)
                pruned[history] += count
        return Run(pruned, left=False)
