"""Rate limits: requests per API key and per client address in 5-minute windows, the hosted pages'
actions (a signer's form, a public form's post) per client address and per signing link, the public pages'
caps (new submissions per template's public link and consents per clickwrap page, each also per client address),
verification codes sent to and typed by each signer, and console sign-ins per client address and per email (with
`SignInBackoff` per email and address); the sign-ins count an IPv6 address by its /64, which one client usually
holds whole.

Windows are fixed, aligned to multiples of five minutes of the injected clock, and counted in the
database, so every process sharing the database shares the counts; each process counts in blocks
(`QuotaLeases`), so that most requests write nothing. A limit of 0 is lifted.
"""

from __future__ import annotations

import functools
import ipaddress
import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from types import MappingProxyType
from typing import Any, NamedTuple

import storage.rate_limits as stored
from signsvc.accounts.quota_leases import QuotaLeases
from signsvc.accounts.sign_in_backoff import SignInBackoff
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
# Console sign-in attempts (and password reset requests) in five minutes per client address, whatever the emails:
# enough for typing mistakes, far too few to guess a password. Reset requests are also counted per email; sign-ins
# per email from one address wait after a few failures (`SignInBackoff`), so that a stranger cannot lock the owner
# out, and per email from all addresses are capped generously: a guess spread over many addresses stays bounded,
# and only one made from several addresses at once can hold the owner off, for the rest of the window.
SIGN_INS_PER_ADDRESS = 20
# Verification codes (`require_email_2fa`) per signer: sent (a resend after an email that went astray), and
# typed (a typo or two). These windows only slow guessing down; what bounds it is kept with the codes
# (`email_verification`): a code goes after five wrong tries, and a signer gets ten codes a day.
CODES_SENT_PER_SIGNER = 3
CODES_TYPED_PER_SIGNER = 5
SIGN_INS_PER_EMAIL = 100
RESETS_PER_EMAIL = 10


@dataclass(frozen=True)
class PublicCaps:
    """What anyone holding a public link may make in a window, far below the API's limits: new submissions of a
    template's public link (`/d/{slug}`) and consents on a clickwrap's page (`/c/{slug}`), per page and per
    client address. A cap of 0 is lifted."""

    starts_per_link: int = 20
    starts_per_address: int = 10
    consents_per_clickwrap: int = 60
    consents_per_address: int = 10


def sign_in_source(client: str) -> str:
    """What the sign-in limits count a client address as: an IPv6 address by its /64 (a client gets a whole
    one and could try from a new address each time), any other as it is."""
    try:
        address = ipaddress.ip_address(client)
    except ValueError:
        return client
    if address.version == 6 and address.ipv4_mapped is None:
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return client


class Quota(NamedTuple):
    """What is left of the tightest limit in the current window."""

    limit: int
    remaining: int
    reset: int
    retry_after: int

    @property
    def exceeded(self) -> bool:
        return self.remaining < 0

    def headers(self) -> Mapping[str, str]:
        if self.limit == UNLIMITED and self.remaining == UNLIMITED:
            return _unlimited_headers(self.reset)
        return self._counted_headers()

    def _counted_headers(self) -> dict[str, str]:
        return {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(max(self.remaining, 0)),
            "X-RateLimit-Reset": str(self.reset),
        }


@functools.lru_cache(maxsize=2)
def _unlimited_headers(reset: int) -> Mapping[str, str]:
    """The headers of every quota of a window whose limits are lifted: made once a window, not once a request."""
    return MappingProxyType(Quota(UNLIMITED, UNLIMITED, reset, 1)._counted_headers())


class RateLimits:
    """Requests per API key and per client address in each window; a limit of 0 is lifted. The hosted pages'
    actions are counted apart from the API's requests: per address with the same limit, and per signer."""

    def __init__(
        self, db: Database, clock: Clock, *, per_key: int, per_ip: int, public: PublicCaps | None = None
    ) -> None:
        self.db, self.clock, self.per_key, self.per_ip = db, clock, per_key, per_ip
        self.public = public or PublicCaps()
        self._leases = QuotaLeases(db)
        self.sign_in_backoff = SignInBackoff(db, clock)
        self._listening = False

    async def take(self, *, key_id: int | None, client: str) -> Quota:
        """Counts one API request against the key (when known) and the client address."""
        if not (self.per_ip or self.per_key):  # lifted: nothing to count, the same answer as `_take`'s
            now = self.clock.now().timestamp()
            reset = int(now // WINDOW_SECONDS) * WINDOW_SECONDS + WINDOW_SECONDS
            return Quota(UNLIMITED, UNLIMITED, reset, max(1, math.ceil(reset - now)))
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

    async def take_email_code(self, *, submitter_id: int, typed: bool) -> Quota:
        """Counts one verification code sent to a signer or, `typed`, one code they typed; these limits hold
        even where the API's are lifted."""
        if typed:
            return await self._take({f"code-typed:{submitter_id}": CODES_TYPED_PER_SIGNER})
        return await self._take({f"code-sent:{submitter_id}": CODES_SENT_PER_SIGNER})

    async def take_public_start(self, *, client: str, slug: str) -> Quota:
        """Counts one new submission asked of a template's public link against the link and the client address."""
        return await self._take(
            {f"link:{slug}": self.public.starts_per_link, f"link-from:{client}": self.public.starts_per_address}
        )

    async def take_consent(self, *, client: str, slug: str) -> Quota:
        """Counts one consent asked on a clickwrap's page against the page and the client address."""
        return await self._take(
            {
                f"consent:{slug}": self.public.consents_per_clickwrap,
                f"consent-from:{client}": self.public.consents_per_address,
            }
        )

    async def take_sign_in(self, *, client: str, email: str) -> Quota:
        """Counts one console sign-in attempt against the client address (`sign_in_source`), whatever the email
        tried, and against the email, from whatever address; these limits hold even where the API's are lifted."""
        return await self._take(
            {f"sign-in:{client}": SIGN_INS_PER_ADDRESS, f"sign-in-email:{email}": SIGN_INS_PER_EMAIL}
        )

    async def take_reset(self, *, client: str, email: str) -> Quota:
        """Counts one password reset request against the client address and the email address, apart from the
        sign-ins, so that asking for resets cannot lock a user out."""
        return await self._take({f"reset:{client}": SIGN_INS_PER_ADDRESS, f"reset-email:{email}": RESETS_PER_EMAIL})

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
        """Forgets the windows that have ended, and the sign-in failures a day old."""
        current = int(self.clock.now().timestamp() // WINDOW_SECONDS) * WINDOW_SECONDS
        await stored.prune(self.db, current)
        await self.sign_in_backoff.prune()
