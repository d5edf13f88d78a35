"""Console sign-in failures per email and client address, with a growing wait: after a few wrong passwords
from one address for one email, that pair waits a minute, then twice as long after each failure more, up to an
hour. Only the pair waits: the owner of the email, signing in from their own address, is never locked out by a
stranger's guesses (the per-address limit of `RateLimits.take_sign_in` bounds the stranger across emails).

Counted in the database on the service clock, so every process sharing it shares the counts. A success forgets
the pair's failures; a pair whose last failure is a day old starts again.
"""

from __future__ import annotations

import math
from datetime import timedelta

import storage.rate_limits as stored
from signsvc.infra.clock import Clock
from storage import Database

FREE_FAILURES = 4  # wrong passwords of a pair before it waits: typing mistakes
FIRST_WAIT = timedelta(minutes=1)
LONGEST_WAIT = timedelta(hours=1)
FORGOTTEN_AFTER = timedelta(days=1)


def wait_after(failures: int) -> timedelta:
    """How long a pair waits after its last failure, for so many failures in a row."""
    if failures <= FREE_FAILURES:
        return timedelta(0)
    factor: int = 2 ** min(failures - FREE_FAILURES - 1, 16)  # the exponent is never negative
    return min(FIRST_WAIT * factor, LONGEST_WAIT)


class SignInBackoff:
    def __init__(self, db: Database, clock: Clock) -> None:
        self.db, self.clock = db, clock

    async def retry_after(self, email: str, client: str) -> int:
        """Seconds the pair must still wait before its next attempt; 0 when it may try now."""
        failures, failed_at = await stored.sign_in_failures(self.db, email, client)
        if failed_at is None or failed_at < self.clock.now() - FORGOTTEN_AFTER:
            return 0
        left = (failed_at + wait_after(failures) - self.clock.now()).total_seconds()
        return max(0, math.ceil(left))

    async def failed(self, email: str, client: str) -> None:
        now = self.clock.now()
        async with self.db.transaction() as tx:
            await stored.sign_in_failed(tx, email, client, now, now - FORGOTTEN_AFTER)

    async def succeeded(self, email: str, client: str) -> None:
        async with self.db.transaction() as tx:
            await stored.forget_sign_in_failures(tx, email, client)

    async def prune(self) -> None:
        """Forgets the pairs whose last failure is a day old."""
        async with self.db.transaction() as tx:
            await stored.prune_sign_in_failures(tx, self.clock.now() - FORGOTTEN_AFTER)
