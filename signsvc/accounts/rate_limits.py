"""Rate limits: requests per API key and per client address in 5-minute windows, the hosted pages'
actions (a signer's form, a public form's post) per client address and per signing link, and the public pages'
caps: new submissions per template's public link and consents per clickwrap page, each also per client address.

Windows are fixed, aligned to multiples of five minutes of the injected clock, and counted in the
database, so every process sharing the database shares the counts; each process counts in blocks
(`QuotaLeases`), so that most requests write nothing. A limit of 0 is lifted.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, NamedTuple

import storage.rate_limits as stored
from signsvc.accounts.quota_leases import QuotaLeases
from signsvc.infra.clock import Clock
from signsvc.infra.jobs import Kind
from storage import Database

WINDOW_SECONDS = 300
PRUNE_JOB = "maintenance.prune_rate_limits"
# Reported as the limit and the remaining count when every limit is lifted.
UNLIMITED = 2**31 - 1
# A signer saves as they go (each field left, each pause in typing): a long form takes a few hundred actions
# in an hour, never this many in five minutes.
ACTIONS_PER_SIGNER = 300
# Console sign-in attempts (and password reset requests) in five minutes, per client address and per email
# address tried: enough for typing mistakes, far too few to guess a password.
SIGN_INS_PER_ADDRESS = 20
SIGN_INS_PER_EMAIL = 10


@dataclass(frozen=True)
class PublicCaps:
    """What anyone holding a public link may make in a window, far below the API's limits: new submissions of a
    template's public link (`/d/{slug}`) and consents on a clickwrap's page (`/c/{slug}`), per page and per
    client address. A cap of 0 is lifted."""

    starts_per_link: int = 20
    starts_per_address: int = 10
    consents_per_clickwrap: int = 60
    consents_per_address: int = 10


class Quota(NamedTuple):
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


class RateLimits:
    """Requests per API key and per client address in each window; a limit of 0 is lifted. The hosted pages'
    actions are counted apart from the API's requests: per address with the same limit, and per signer."""

    def __init__(self, db: Database, clock: Clock, *, per_key: int, per_ip: int,
                 public: PublicCaps | None = None) -> None:
        self.db, self.clock, self.per_key, self.per_ip = db, clock, per_key, per_ip
        self.public = public or PublicCaps()
        self._leases = QuotaLeases(db)
        self._listening = False

    async def take(self, *, key_id: int | None, client: str) -> Quota:
        """Counts one API request against the key (when known) and the client address."""
        limits = {f"ip:{client}": self.per_ip}
        if key_id is not None:
            limits[f"key:{key_id}"] = self.per_key
        return await self._take(limits)

    async def take_page_action(self, *, client: str, submitter_id: int | None = None) -> Quota:
        """Counts one action of the hosted pages against the client address and, for a signing link that
        names a submitter, that submitter."""
        limits = {f"page:{client}": self.per_ip}
        if submitter_id is not None:
            limits[f"signer:{submitter_id}"] = ACTIONS_PER_SIGNER
        return await self._take(limits)

    async def take_public_start(self, *, client: str, slug: str) -> Quota:
        """Counts one new submission asked of a template's public link against the link and the client address."""
        return await self._take({f"link:{slug}": self.public.starts_per_link,
                                 f"link-from:{client}": self.public.starts_per_address})

    async def take_consent(self, *, client: str, slug: str) -> Quota:
        """Counts one consent asked on a clickwrap's page against the page and the client address."""
        return await self._take({f"consent:{slug}": self.public.consents_per_clickwrap,
                                 f"consent-from:{client}": self.public.consents_per_address})

    async def take_sign_in(self, *, client: str, email: str, action: str = "sign-in") -> Quota:
        """Counts one console sign-in attempt (or, as `action="reset"`, a password reset request, counted apart
        so that asking for resets cannot lock a user out) against the client address and the email address
        tried; these limits hold even where the API's are lifted."""
        return await self._take({f"{action}:{client}": SIGN_INS_PER_ADDRESS,
                                 f"{action}-email:{email}": SIGN_INS_PER_EMAIL})

    async def _take(self, limits: dict[str, int]) -> Quota:
        now = self.clock.now().timestamp()
        window_start = int(now // WINDOW_SECONDS) * WINDOW_SECONDS
        reset = window_start + WINDOW_SECONDS
        active = {bucket: limit for bucket, limit in limits.items() if limit > 0}
        if not self._listening:
            await self.db.listen(stored.EMPTIED, self._leases.forget)
            self._listening = True
        remaining, limit = await self._leases.admit(active, window_start) if active else (UNLIMITED, UNLIMITED)
        return Quota(limit, remaining, reset, max(1, math.ceil(reset - now)))

    def kinds(self) -> list[Kind]:
        return [Kind(PRUNE_JOB, self._prune, every=timedelta(seconds=WINDOW_SECONDS))]

    async def _prune(self, payload: dict[str, Any]) -> None:
        """Forgets the windows that have ended."""
        current = int(self.clock.now().timestamp() // WINDOW_SECONDS) * WINDOW_SECONDS
        await stored.prune(self.db, current)
