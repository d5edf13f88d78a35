"""A clickwrap's public page (`/c/{slug}`): what it shows of the active version, and the consent a person
gives on it.

A consent on the page is checked against the version the person saw (its required name, email and
checkboxes), records their answers, address and browser, and gets a certificate made by a job. For a
`requires_signature` clickwrap it comes with a submission of the clickwrap's template for the person to
sign next (`signsvc.submissions.visitors`), written in the same transaction. Each page's form posts
once: a second post of the same form finds the first one's consent.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

import storage.clickwraps as stored
import storage.form_posts as form_posts
import storage.templates as stored_templates
from signsvc.clickwraps import certificates
from signsvc.clickwraps.clickwraps import CONSENT_LENGTHS, WITH_DOCUMENT
from signsvc.infra.clock import Clock
from signsvc.infra.files import Files
from signsvc.submissions import inputs, visitors
from signsvc.submissions.signing_form import Page
from signsvc.submissions.submissions import Submissions
from signsvc.submissions.submitters import Browser
from signsvc.submissions.visitors import INVALID, MISSING, Refused, Unavailable
from signsvc.templates.page_images import PageImages
from storage import Connection, Database
from storage.records import Clickwrap, ClickwrapVersion, Consent, Submission

SOURCE = "page"
SUBMISSION_SOURCE = "clickwrap"
RECORD_TYPE = "consent"


@dataclass(frozen=True)
class ConsentPage:
    """The active version of a published clickwrap, and its template's pages as pictures."""

    clickwrap: Clickwrap
    version: ClickwrapVersion
    pages: list[Page]
    available: bool  # False once the clickwrap, or the template it shows, is archived or deleted
    signable: bool = True  # False when its template can no longer be signed by one person

    @property
    def settings(self) -> dict[str, Any]:
        return self.version.settings

    @property
    def name_required(self) -> bool:
        """The name is asked for when the version says so, and for signing when no email is."""
        return bool(self.settings.get("require_name")) or (
            self.version.kind == "requires_signature" and not self.settings.get("require_email")
        )


@dataclass(frozen=True)
class Agreement:
    """What the person sent: the version they saw and their answers."""

    version: int
    name: str
    email: str
    external_id: str
    checked: list[bool]


@dataclass(frozen=True)
class Agreed:
    consent: Consent
    signing_slug: str | None  # the signing form to go on to, for requires_signature


class Changed(Exception):
    """A new version was published since the page was opened: the person has not seen it."""


class Unsignable(Exception):
    """The template of a requires_signature clickwrap can no longer be signed by one person."""


class ConsentPages:
    def __init__(self, db: Database, clock: Clock, files: Files, submissions: Submissions, images: PageImages) -> None:
        self.db, self.clock, self.files, self.submissions, self.images = db, clock, files, submissions, images

    async def open(self, slug: str) -> ConsentPage | None:
        """The page of a published clickwrap; None for a slug that names none, or a draft never published."""
        clickwrap = await stored.clickwrap_by_slug(self.db, slug)
        if clickwrap is None or clickwrap.active_version_number is None:
            return None
        version = await stored.get_version(self.db, clickwrap.id, clickwrap.active_version_number)
        if version is None:
            return None
        if version.kind not in WITH_DOCUMENT or clickwrap.archived_at is not None:
            return ConsentPage(clickwrap, version, [], clickwrap.archived_at is None)
        template = await stored_templates.get_template(self.db, version.settings["template_id"])
        if template is None or template.archived_at is not None:
            return ConsentPage(clickwrap, version, [], False)
        signable = version.kind != "requires_signature" or visitors.signable_alone(template)
        return ConsentPage(clickwrap, version, await self._pages(template.id), True, signable)

    async def agree(self, page: ConsentPage, agreement: Agreement, browser: Browser, token: str) -> Agreed:
        """Records the consent on the page as just opened; raises Refused, Changed, Unavailable, Unsignable or
        form_posts.Taken when it cannot."""
        if earlier := await self._earlier(page, token):
            return earlier
        if not page.available:
            raise Unavailable()
        if not page.signable:
            raise Unsignable()
        if agreement.version != page.version.number:
            raise Changed(f"version {page.version.number} was published since the page was opened")
        if broken := problems(page, agreement):
            raise Refused(broken)
        try:
            if page.version.kind == "requires_signature":
                await self._with_submission(page, agreement, browser, token)
            else:
                async with self.db.transaction() as tx:
                    await self._record(tx, page, agreement, browser, token, None)
        except form_posts.Taken:
            pass
        if recorded := await self._earlier(page, token):
            return recorded
        raise form_posts.Taken()  # by another page's form: this post can't be told from a replay

    async def _with_submission(self, page: ConsentPage, agreement: Agreement, browser: Browser, token: str) -> None:
        template = await stored_templates.get_template(self.db, page.settings["template_id"])
        if template is None:
            raise Unavailable()

        async def along(tx: Connection, submission: Submission) -> None:
            await self._record(tx, page, agreement, browser, token, submission.id)

        signer = {
            "name": agreement.name,
            "email": agreement.email,
            "external_id": agreement.external_id,
            "language": browser.language,
        }
        await visitors.start(self.db, self.submissions, template, signer, SUBMISSION_SOURCE, along)

    async def _record(
        self,
        tx: Connection,
        page: ConsentPage,
        agreement: Agreement,
        browser: Browser,
        token: str,
        submission_id: int | None,
    ) -> None:
        await form_posts.claim(tx, token, RECORD_TYPE, self.clock.now())
        clickwrap, boxes = page.clickwrap, page.settings.get("checkboxes") or []
        answers = [
            {"text": box["text"], "required": bool(box.get("required")), "checked": checked}
            for box, checked in zip(boxes, agreement.checked, strict=True)
        ]
        consent = await stored.insert_consent(
            tx,
            account_id=clickwrap.account_id,
            clickwrap_id=clickwrap.id,
            version=page.version.number,
            uuid=str(uuid.uuid4()),
            source=SOURCE,
            name=agreement.name or None,
            email=agreement.email.lower() or None,
            external_id=agreement.external_id or None,
            ip=browser.ip,
            user_agent=browser.user_agent,
            checkboxes=answers,
            now=self.clock.now(),
            language=browser.language,
        )
        if submission_id is not None:
            await stored.set_consent_submission(tx, consent.id, submission_id)
        await form_posts.settle(tx, token, consent.id)
        await certificates.enqueue(tx, self.clock, consent)

    async def _earlier(self, page: ConsentPage, token: str) -> Agreed | None:
        """What an earlier post of the same form recorded (on this clickwrap's page)."""
        consent_id = await form_posts.made_by(self.db, token, RECORD_TYPE)
        consent = await stored.get_consent(self.db, consent_id) if consent_id else None
        if consent is None or consent.clickwrap_id != page.clickwrap.id:
            return None
        slug = await visitors.signing_slug(self.db, consent.submission_id) if consent.submission_id else None
        return Agreed(consent, slug)

    async def _pages(self, template_id: int) -> list[Page]:
        pages = []
        for document in await self.images.shown(template_id):
            for index, size in enumerate(document.pages):
                preview = document.previews[index] if index < len(document.previews) else None
                image = self.files.links.path(preview["uuid"], preview["filename"]) if preview else None
                pages.append(
                    Page(
                        document.uuid, document.name, index, image, size["width"], size["height"], size.get("text", "")
                    )
                )
        return pages


def problems(page: ConsentPage, agreement: Agreement) -> dict[str, str]:
    """Each answer that breaks a rule of the version, and the rule: missing, invalid or too_long."""
    found = {
        key: problem
        for key, value in (("name", agreement.name), ("email", agreement.email), ("external_id", agreement.external_id))
        if (problem := visitors.text_problem(value, CONSENT_LENGTHS[key]))
    }
    if page.name_required and not agreement.name:
        found["name"] = MISSING
    if page.settings.get("require_email") and not agreement.email:
        found["email"] = MISSING
    elif agreement.email and "email" not in found and not inputs.is_email(agreement.email):
        found["email"] = INVALID
    for index, box in enumerate(page.settings.get("checkboxes") or []):
        if box.get("required") and not (index < len(agreement.checked) and agreement.checked[index]):
            found[f"checkbox-{index}"] = MISSING
    return found
