"""Continue on a phone: a signer at a desktop asks for a one-time link (shown as a QR code) that opens a page on
their phone to draw one signature or initials field; the desktop asks until the drawing is there.

The link is random text of which only the SHA-256 is kept. It works once (the save that uses it takes it in the
same transaction, so of two posts one only saves), for `LIFETIME` by the service clock, and only while the signer
may still sign: once they complete or decline, or the submission closes, it leads nowhere. The drawing is saved as
the signer's own save of that field would be, drawn (`signature_modes.DRAWN`), through `Submitters.save`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import storage.submissions as stored_submissions
from signsvc.infra import errors, json_fields, pdf_calls, tokens
from signsvc.infra.clock import Clock
from signsvc.infra.pool import PdfPool
from signsvc.infra.urls import Urls
from signsvc.submissions import signature_modes
from signsvc.submissions.signing_form import FORM, FormView, SigningForms
from signsvc.submissions.submitters import Submitters
from storage import Connection, Database
from storage import signature_modes as stored
from storage.records import Submitter
from storage.shapes import Field

LIFETIME = timedelta(minutes=10)
TOKEN_LENGTH = 32
GONE = "This link no longer works: open the form on your computer to get a new one"
WAITING, SIGNED, EXPIRED, CLOSED = "waiting", "signed", "expired", "closed"


@dataclass(frozen=True)
class Started:
    """A hand-off just made: its id (the desktop asks by it), the link, its QR code as an SVG data URI."""

    id: int
    url: str
    qr: str
    expires_at: datetime


@dataclass(frozen=True)
class PhonePage:
    """What the phone's page shows: the form (for its title and language) and the field to draw."""

    view: FormView
    field: Field


class PhoneHandoffs:
    def __init__(
        self, db: Database, clock: Clock, submitters: Submitters, forms: SigningForms, urls: Urls, pool: PdfPool
    ) -> None:
        self.db, self.clock, self.submitters, self.forms, self.urls = db, clock, submitters, forms, urls
        self.pool = pool  # the QR codes are made there

    async def start(self, slug: str, body: dict[str, Any]) -> Started:
        """A new one-time link for the field `body["field"]` of the signer's form (422 when the form cannot be
        signed, or the field is not one of theirs that may be drawn)."""
        view = await self._open(slug)
        uuid = json_fields.text(body, "field", limit=100)
        field = next((f for f in view.fields if f["uuid"] == uuid), None)
        typed = await signature_modes.typed_allowed(self.db, view.submission.account_id)
        if field is None or not signature_modes.offers_phone(field, typed_allowed=typed) or field.get("readonly"):
            raise errors.at(("field",), "must be a signature or initials field of this signer that may be drawn")
        token = tokens.generate(TOKEN_LENGTH)
        now = self.clock.now()
        async with self.db.transaction() as tx:
            made = await stored.insert_handoff(
                tx, view.submitter.id, field["uuid"], tokens.digest(token), now, now + LIFETIME
            )
        url = self.urls.phone_handoff(token)
        return Started(made.id, url, await self.pool.run(pdf_calls.qr_code, url), made.expires_at)

    async def status(self, slug: str, handoff_id: int) -> dict[str, Any]:
        """Whether the phone gave the drawing (`signed`, with the value as the form shows it), is still awaited,
        or will not come (`expired`; `closed`: the form cannot be signed any more). 404 for another's hand-off."""
        signer = await self.submitters.by_slug(slug)
        found = await stored.handoff(self.db, handoff_id, signer.submitter.id) if signer else None
        if signer is None or found is None:
            raise errors.NotFound("Hand-off not found")
        if found.value is not None:
            view = await self.forms.open(slug)
            if view is not None and view.state == FORM:
                return {"status": SIGNED, "value": view.values.get(found.field_uuid)}
            return {"status": CLOSED, "value": None}
        if found.used_at is None and found.expires_at > self.clock.now():  # asked every few seconds: kept light
            return {"status": WAITING if await self.forms.state(slug) == FORM else CLOSED, "value": None}
        return {"status": EXPIRED, "value": None}

    async def page(self, token: str) -> PhonePage | None:
        """The phone's page for a link; None when the link names nothing or no longer works."""
        found = await stored.handoff_by_digest(self.db, tokens.digest(token))
        if found is None or found.used_at is not None or found.expires_at <= self.clock.now():
            return None
        submitter = await stored_submissions.get_submitter(self.db, found.submitter_id)
        view = await self.forms.open(submitter.slug) if submitter else None
        if view is None or view.state != FORM:
            return None
        field = next((f for f in view.fields if f["uuid"] == found.field_uuid), None)
        return PhonePage(view, field) if field else None

    async def sign(self, token: str, body: dict[str, Any]) -> Submitter:
        """Saves the drawing the phone sends (`{"value": "data:image/png;base64,..."}`) and uses the link up, in
        one transaction; 410 when the link no longer works, 422 for a value the field does not take."""
        digest = tokens.digest(token)
        found = await stored.handoff_by_digest(self.db, digest)
        submitter = await stored_submissions.get_submitter(self.db, found.submitter_id) if found else None
        if found is None or submitter is None or found.used_at is not None or found.expires_at <= self.clock.now():
            raise errors.Gone(GONE)
        value = body.get("value")
        if not isinstance(value, str) or not value.startswith("data:image/"):
            raise errors.at(("value",), "must be the drawing as a data:image/png;base64 URL")

        async def use_up(tx: Connection, saved: Submitter) -> None:
            if await stored.use_handoff(tx, digest, self.clock.now()) is None:
                raise errors.Gone(GONE)
            await stored.set_handoff_value(tx, found.id, str(saved.field_values.get(found.field_uuid)))

        saving = {
            "values": {found.field_uuid: value},
            "signatures": {found.field_uuid: {"mode": signature_modes.DRAWN}},
        }
        try:
            return await self.submitters.save(submitter.slug, saving, along=use_up)
        except errors.Invalid:
            if await self.forms.state(submitter.slug) != FORM:  # the signer can no longer sign: the link is dead
                raise errors.Gone(GONE) from None
            raise

    async def _open(self, slug: str) -> FormView:
        view = await self.forms.open(slug)
        if view is None:
            raise errors.NotFound("Signing link not found")
        if view.state != FORM or view.view_only:
            raise errors.Invalid("This form cannot be signed now")
        return view
