"""Every retry schedule of the service, by name, and where each applies.

Each constant below says what it governs and why it waits as it does:

    strategy                  governs                                          waits (minutes)   at most   runs
    JOBS                      a job's handler failing (any kind's default)     1, 2, 4, 8 ...    6 hours   10
    EMAILS                    sending an email (the outbox and its jobs)       1, 3, 9, 27 ...   2 hours   10
    WEBHOOKS                  a webhook delivery not acknowledged              1, 2, 4, 8 ...    3 days    12
    WEBHOOKS_FORM_COMPLETED   the same, for a form.completed delivery          1, 2, 4, 8 ...    3 days    14
    WEBHOOK_HANDLER           the delivery job's own failures                  1, 2, 4, 8 ...    1 hour    50
    ONCE                      a job of a kind no handler knows                 -                 -         1

Document downloads are not retried: the API caller waits for the answer, and a failure tells it why.
A test service (SIGNSVC_TESTING_FAST_RETRIES) runs each schedule in seconds where it says minutes (`fast`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime, timedelta

from signsvc.infra.clock import Clock


@dataclass(frozen=True)
class Backoff:
    """Run n (1-based) failed: the next run waits `first * factor ** (n - 1)`, at most `longest`.

    After `attempts` failed runs the job is marked failed and stays in the table for inspection.
    """

    first: timedelta = timedelta(minutes=1)
    factor: float = 2.0
    longest: timedelta = timedelta(hours=6)
    attempts: int = 10

    def delay(self, attempt: int) -> timedelta:
        return min(self.first * self.factor ** (attempt - 1), self.longest)

    def fast(self) -> Backoff:
        """The same schedule in seconds where it was in minutes: for test suites that move the clock."""
        return dataclasses.replace(self, first=self.first / 60, longest=self.longest / 60)

    def next_at(self, failures: int, clock: Clock) -> datetime | None:
        """When to run again after `failures` failed runs in a row; None once `attempts` runs failed."""
        return None if failures >= self.attempts else clock.now() + self.delay(failures)


# A job's handler failed (the database away, a bug): quick first retries for a blip, then doubling waits
# (1, 2, 4 ... 256 minutes) for a longer outage; ten runs span about eight and a half hours.
JOBS = Backoff()

# An email the SMTP server did not take: about ten hours of tries (1, 3, 9, 27, 81 minutes, then every two
# hours), long enough for a mail server's restart or a full queue, short enough that an invitation that
# cannot go out is reported failed the same day. One schedule for the sending job of every email (the
# invitations' own job too) and for the outbox, which marks the email failed after `EMAILS.attempts`.
EMAILS = Backoff(first=timedelta(minutes=1), factor=3, longest=timedelta(hours=2))

# A webhook delivery the endpoint did not acknowledge: attempt n failed, the next one is 2**(n-1) minutes
# later (1, 2, 4, 8 ... minutes), as the webhook spec says. 12 attempts put the last one 2047 minutes
# (34.1 hours) after the first; form.completed, which a receiver cannot rebuild from other events, gets 14,
# the last 8191 minutes (5.7 days) after the first.
WEBHOOKS = Backoff(longest=timedelta(days=3), attempts=12)
WEBHOOKS_FORM_COMPLETED = Backoff(longest=timedelta(days=3), attempts=14)

# The delivery job's handler failed (the database away, a payload that cannot be built): not a failed
# attempt, the delivery keeps its place; retried hourly at most, for about two days.
WEBHOOK_HANDLER = Backoff(longest=timedelta(hours=1), attempts=50)

# A job of a kind no handler knows (one an upgrade removed): failed at its first run, kept for inspection.
ONCE = Backoff(attempts=1)


def webhook_delivery(event_type: str) -> Backoff:
    """The schedule of a delivery of this event type."""
    return WEBHOOKS_FORM_COMPLETED if event_type == "form.completed" else WEBHOOKS
