"""Email verification before a signing form opens (`require_email_2fa`): who must verify, and the 6-digit codes
that prove a signer holds their email address.

A submitter must verify when their own setting says so, or when their submission's template requires it as it
is set when the form opens (`required`). Their own setting is settled when the submission is created (the
template's when it requires it, else theirs, else the submission's: the API's top-level `require_email_2fa`) and
kept in their preferences, where `PUT /submitters/{id}` can change it; it cannot lift the template's.

A code is sent through the outbox, lasts `CODE_LIFETIME`, replaces the one sent before, and works once. What
bounds guessing: a code is one of a million and is deleted after `WRONG_TRIES_PER_CODE` wrong tries, and a signer
is sent at most `CODES_PER_DAY` codes in any 24 hours, so at most 50 guesses a day have a chance of 1 in 20,000;
sends and tries are also counted per signer in 5-minute windows (`RateLimits.take_email_code`). The submission's
events record each code sent (`send_2fa_email`) and each address verified (`email_verified`).
"""

from __future__ import annotations

import enum
import hashlib
import hmac
import re
import secrets
from dataclasses import replace
from datetime import datetime, timedelta
from typing import NamedTuple

import storage.email_codes as stored_codes
import storage.submissions as stored
from signsvc.accounts.rate_limits import RateLimits
from signsvc.infra import languages, mail
from signsvc.infra.clock import Clock
from signsvc.infra.mail import Outbox
from signsvc.submissions.inputs import SubmissionInput
from storage import Connection, Database
from storage.records import Submission, Submitter, Template
from storage.shapes import Preferences, TemplatePreferences

FLAG = "require_email_2fa"
CODE_LIFETIME = timedelta(minutes=10)
CODE_DIGITS = 6
WRONG_TRIES_PER_CODE = 5
CODES_PER_DAY = 10
DAY = timedelta(days=1)
EMAIL_KIND = "verification_code"
REQUIRED = "Verification required, refresh the page and pass 2FA."


class Outcome(enum.StrEnum):
    SENT = "sent"
    NO_EMAIL = "no_email"
    TOO_MANY = "too_many"
    TOO_MANY_TODAY = "too_many_today"
    MISSING = "missing"
    WRONG = "wrong"
    USED_UP = "used_up"  # none sent, used already, or deleted after too many wrong tries: send a new one
    EXPIRED = "expired"
    VERIFIED = "verified"


class Signer(NamedTuple):
    """The signer a signing link names, and whether they must verify before their form opens."""

    submitter: Submitter
    must_verify: bool


async def signer(conn: Connection, slug: str) -> Signer | None:
    """The signer a signing link names, with the template's setting as it is now (one statement)."""
    found = await stored.find_signer_by_slug(conn, slug)
    if found is None:
        return None
    submitter, template_preferences = found
    return Signer(submitter, required(submitter, template_preferences))


def required(submitter: Submitter, template_preferences: TemplatePreferences) -> bool:
    """Whether the signer must verify: they say so, or their submission's template (while it exists) requires it,
    whatever they say."""
    return submitter.preferences.get(FLAG) is True or template_preferences.get(FLAG) is True


def required_by(template: Template) -> bool:
    return template.preferences.get(FLAG) is True


def applied(request: SubmissionInput, *, required: bool) -> SubmissionInput:
    """The request with each submitter's setting as it is kept: true when the submission's template (or one of a
    one-off submission's `template_ids`) requires verification, else the submitter's own, else the submission's;
    left out when none says."""
    given = request.preferences.get("require_email_2fa")
    submitters = []
    for submitter in request.submitters:
        own = submitter.preferences.get("require_email_2fa")
        setting = True if required else given if own is None else own
        preferences = Preferences(**submitter.preferences)
        if setting is not None:
            preferences["require_email_2fa"] = setting
        submitters.append(replace(submitter, preferences=preferences))
    return replace(request, submitters=submitters)


def masked(email: str) -> str:
    """The address as the verification page names it: the first two characters of its name, then stars."""
    name, _, domain = email.partition("@")
    return f"{name[:2]}{'*' * max(3, len(name) - 2)}@{domain}"


class EmailCodes:
    def __init__(self, db: Database, clock: Clock, outbox: Outbox, rate_limits: RateLimits, secret_key: str) -> None:
        self.db, self.clock, self.outbox, self.rate_limits = db, clock, outbox, rate_limits
        self.key = hashlib.sha256(f"signsvc email verification code|{secret_key}".encode()).digest()

    async def pending(self, submitter: Submitter) -> bool:
        """Whether a code sent to the submitter still works."""
        found = await stored_codes.last_sent(self.db, submitter.id)
        return found is not None and found.expires_at > self.clock.now()

    async def send(self, submission: Submission, submitter: Submitter, language: str = languages.DEFAULT) -> Outcome:
        """Sends a new code to the submitter's email address (the last one sent stops working), in `language` (the
        page's that asked for it)."""
        if not submitter.email:
            return Outcome.NO_EMAIL
        if (await self.rate_limits.take_email_code(submitter_id=submitter.id, typed=False)).exceeded:
            return Outcome.TOO_MANY
        code = f"{secrets.randbelow(10**CODE_DIGITS):0{CODE_DIGITS}d}"
        now = self.clock.now()
        try:
            await self._keep_and_queue(submission, submitter, submitter.email, code, now, language)
        except _DailyCapReached:
            return Outcome.TOO_MANY_TODAY
        return Outcome.SENT

    async def _keep_and_queue(
        self, submission: Submission, submitter: Submitter, email: str, code: str, now: datetime, language: str
    ) -> None:
        """Keeps the code and queues its email, unless the signer was sent `CODES_PER_DAY` codes in the last 24
        hours. The code's row is written first: it holds concurrent sends to one signer back until this one
        commits, so that the count they read includes it."""
        async with self.db.transaction() as tx:
            await stored_codes.put(tx, submitter.id, self._digest(submitter, code), now + CODE_LIFETIME)
            if await stored_codes.sent_since(tx, submission.id, submitter.id, now - DAY) >= CODES_PER_DAY:
                raise _DailyCapReached  # rolls the new code back: the one sent before still works
            await self.outbox.queue(
                tx,
                account_id=submitter.account_id,
                kind=EMAIL_KIND,
                to=email,
                composed=compose(submission.name or submission.template_name, code, language),
                submitter_id=submitter.id,
            )
            await _event(tx, submitter, "send_2fa_email", now)

    async def check(self, submitter: Submitter, typed: str) -> Outcome:
        """Whether `typed` is the code last sent to the submitter (spaces and dashes ignored), still working."""
        code = re.sub(r"[\s-]", "", typed)
        if not code:
            return Outcome.MISSING
        if (await self.rate_limits.take_email_code(submitter_id=submitter.id, typed=True)).exceeded:
            return Outcome.TOO_MANY
        digest, now = self._digest(submitter, code), self.clock.now()
        async with self.db.transaction() as tx:
            if await stored_codes.use(tx, submitter.id, digest, now):  # typed twice at once: one passes
                await _event(tx, submitter, "email_verified", now)
                return Outcome.VERIFIED
            return await self._missed(tx, submitter, digest)

    async def _missed(self, tx: Connection, submitter: Submitter, digest: str) -> Outcome:
        """Why the code typed did not pass; a wrong one counts against the code, which goes after
        `WRONG_TRIES_PER_CODE` of them."""
        found = await stored_codes.miss(tx, submitter.id)
        if found is None:
            return Outcome.USED_UP
        if hmac.compare_digest(found.digest, digest):
            return Outcome.EXPIRED
        if found.wrong_tries >= WRONG_TRIES_PER_CODE:
            await stored_codes.drop(tx, found)
            return Outcome.USED_UP
        return Outcome.WRONG

    def _digest(self, submitter: Submitter, code: str) -> str:
        """The code bound to the submitter and the address it went to: a changed address makes it stop working."""
        signed = f"{submitter.id}|{(submitter.email or '').lower()}|{code}".encode()
        return hmac.new(self.key, signed, hashlib.sha256).hexdigest()


class _DailyCapReached(Exception):
    """The signer was sent as many codes as a day allows."""


async def _event(tx: Connection, submitter: Submitter, event_type: str, now: datetime) -> None:
    """The submission's event, naming the address the code went to or that was verified."""
    await stored.insert_event(
        tx,
        submission_id=submitter.submission_id,
        submitter_id=submitter.id,
        event_type=event_type,
        data={"email": submitter.email},
        now=now,
    )


def compose(title: str, code: str, language: str = languages.DEFAULT) -> mail.Composed:
    subject = languages.translator(language)("email.verification.subject")
    context = {"title": title, "code": code, "minutes": languages.number(minutes(), language)}
    return mail.compose("verification_code", subject, context, language)


def minutes() -> int:
    """How long a code works, in minutes."""
    return int(CODE_LIFETIME.total_seconds() // 60)
