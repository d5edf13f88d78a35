"""Email verification before a signing form opens (`require_email_2fa`): who must verify, and the 6-digit codes
that prove a signer holds their email address.

A submitter must verify when the template requires it, else when they say so, else when their submission says
so (the API's top-level `require_email_2fa`); that is settled when the submission is created and kept in the
submitter's preferences, where `PUT /submitters/{id}` can change it. A code is sent through the outbox, lasts
`CODE_LIFETIME`, replaces the one sent before, and works once; sends and tries are counted per signer
(`RateLimits.take_email_code`). The submission's events record each code sent (`send_2fa_email`) and each
address verified (`email_verified`).
"""

from __future__ import annotations

import enum
import hashlib
import hmac
import re
import secrets
from dataclasses import replace
from datetime import datetime, timedelta

import storage.email_codes as stored_codes
import storage.submissions as stored
from signsvc.accounts.rate_limits import RateLimits
from signsvc.infra import mail
from signsvc.infra.clock import Clock
from signsvc.infra.mail import Outbox
from signsvc.submissions.inputs import SubmissionInput
from storage import Connection, Database
from storage.records import Submission, Submitter, Template
from storage.shapes import Preferences

FLAG = "require_email_2fa"
CODE_LIFETIME = timedelta(minutes=10)
CODE_DIGITS = 6
EMAIL_KIND = "verification_code"
SUBJECT = "Your verification code"
REQUIRED = "Verification required, refresh the page and pass 2FA."


class Outcome(enum.StrEnum):
    SENT = "sent"
    NO_EMAIL = "no_email"
    TOO_MANY = "too_many"
    MISSING = "missing"
    WRONG = "wrong"
    EXPIRED = "expired"
    VERIFIED = "verified"


def required(submitter: Submitter) -> bool:
    return submitter.preferences.get(FLAG) is True


def required_by(template: Template) -> bool:
    return template.preferences.get(FLAG) is True


def applied(request: SubmissionInput, template: Template) -> SubmissionInput:
    """The request with each submitter's setting as it is kept: the template's when it requires verification,
    else the submitter's own, else the submission's; left out when none says."""
    given = request.preferences.get("require_email_2fa")
    submitters = []
    for submitter in request.submitters:
        own = submitter.preferences.get("require_email_2fa")
        setting = True if required_by(template) else given if own is None else own
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

    async def send(self, submission: Submission, submitter: Submitter) -> Outcome:
        """Sends a new code to the submitter's email address (the last one sent stops working)."""
        if not submitter.email:
            return Outcome.NO_EMAIL
        if (await self.rate_limits.take_email_code(submitter_id=submitter.id, typed=False)).exceeded:
            return Outcome.TOO_MANY
        code = f"{secrets.randbelow(10**CODE_DIGITS):0{CODE_DIGITS}d}"
        now = self.clock.now()
        async with self.db.transaction() as tx:
            await stored_codes.put(tx, submitter.id, self._digest(submitter, code), now + CODE_LIFETIME)
            await self.outbox.queue(
                tx,
                account_id=submitter.account_id,
                kind=EMAIL_KIND,
                to=submitter.email,
                composed=compose(submission.name or submission.template_name, code),
                submitter_id=submitter.id,
            )
            await _event(tx, submitter, "send_2fa_email", now)
        return Outcome.SENT

    async def check(self, submitter: Submitter, typed: str) -> Outcome:
        """Whether `typed` is the code last sent to the submitter (spaces and dashes ignored), still working."""
        code = re.sub(r"[\s-]", "", typed)
        if not code:
            return Outcome.MISSING
        if (await self.rate_limits.take_email_code(submitter_id=submitter.id, typed=True)).exceeded:
            return Outcome.TOO_MANY
        found = await stored_codes.last_sent(self.db, submitter.id)
        if found is None or not hmac.compare_digest(found.digest, self._digest(submitter, code)):
            return Outcome.WRONG
        now = self.clock.now()
        if found.expires_at <= now:
            return Outcome.EXPIRED
        async with self.db.transaction() as tx:
            if await stored_codes.forget(tx, submitter.id):  # typed twice at once: one event
                await _event(tx, submitter, "email_verified", now)
        return Outcome.VERIFIED

    def _digest(self, submitter: Submitter, code: str) -> str:
        """The code bound to the submitter and the address it went to: a changed address makes it stop working."""
        signed = f"{submitter.id}|{(submitter.email or '').lower()}|{code}".encode()
        return hmac.new(self.key, signed, hashlib.sha256).hexdigest()


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


def compose(title: str, code: str) -> mail.Composed:
    return mail.compose("verification_code", SUBJECT, {"title": title, "code": code, "minutes": _minutes()})


def _minutes() -> int:
    return int(CODE_LIFETIME.total_seconds() // 60)
