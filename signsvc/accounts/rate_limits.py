"""Rate limits (SPEC section 8): requests per API key and per client address in 5-minute windows.

Windows are fixed, aligned to multiples of five minutes of the injected clock, and counted in the
database, so every process sharing a Postgres database shares the counts. A limit of 0 is lifted.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import storage.rate_limits as stored
from signsvc.infra.clock import Clock
from storage import Database

WINDOW_SECONDS = 300
# Reported as the limit and the remaining count when every limit is lifted.
UNLIMITED = 2**31 - 1


@dataclass(frozen=True)
class Quota:
    """What is left of the tightest limit in the current window."""

    limit: int
    remaining: int
    reset: int
    retry_after: int

    @property
    def exceeded(self) -> bool:
        return self.remaining < 0

    def headers(self) -> dict[str, str]:
        return {"X-RateLimit-Limit": str(self.limit), "X-RateLimit-Remaining": str(max(self.remaining, 0)),
                "X-RateLimit-Reset": str(self.reset)}


async def take(db: Database, clock: Clock, *, key_id: int | None, client: str, per_key: int,
               per_ip: int) -> Quota:
    """Counts one request against the key (when known) and the client address."""
    now = clock.now().timestamp()
    window_start = int(now // WINDOW_SECONDS) * WINDOW_SECONDS
    reset = window_start + WINDOW_SECONDS
    limits = {f"ip:{client}": per_ip}
    if key_id is not None:
        limits[f"key:{key_id}"] = per_key
    active = {bucket: limit for bucket, limit in limits.items() if limit > 0}
    hits = await stored.hit(db, list(active), window_start) if active else {}
    remaining, limit = min(((limit - hits[bucket], limit) for bucket, limit in active.items()),
                           default=(UNLIMITED, UNLIMITED))
    return Quota(limit=limit, remaining=remaining, reset=reset, retry_after=max(1, math.ceil(reset - now)))


async def prune(db: Database, clock: Clock) -> None:
    """Forgets the windows that have ended."""
    current = int(clock.now().timestamp() // WINDOW_SECONDS) * WINDOW_SECONDS
    await stored.prune(db, current)
