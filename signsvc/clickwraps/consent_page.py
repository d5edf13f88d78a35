"""A clickwrap's public page (`/c/{slug}`): what it shows of the active version, and the consent a person
gives on it.

A consent on the page is checked against the version the person saw (its required name, email and
checkboxes), records their answers, address and browser, and gets a certificate made by a job. For a
`requires_signature` clickwrap it comes with a submission of the clickwrap's template for the person to
sign next, written in the same transaction. Each page's form posts once: a second post of the same
form finds the first one's consent.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from typing import Any

import storage.clickwraps as stored
import storage.form_posts as form_posts
import storage.submissions as stored_submissions
import storage.templates as stored_templates
from signsvc.accounts import auth
from signsvc.clickwraps import certificates
from signsvc.clickwraps.clickwraps import CONSENT_LENGTHS, WITH_DOCUMENT
from signsvc.infra import errors
from signsvc.infra.clock import Clock
from signsvc.infra.files import Files
from signsvc.submissions import inputs
from signsvc.submissions.signing_form import Page
from signsvc.submissions.submissions import Submissions
from signsvc.submissions.submitters import Browser
from storage import Connection, Database
from storage.records import Clickwrap, ClickwrapVersion, Consent, Submission

SOURCE = "page"
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")  # no input of the page can hold them; Postgres can't store NUL
SUBMISSION_SOURCE = "clickwrap"


@dataclass(frozen=True)
class ConsentPage:
    """The active version of a published clickwrap, and its template's pages as pictures."""

    clickwrap: Clickwrap
    version: ClickwrapVersion
    pages: list[Page]
    available: bool  # False once the clickwrap, or the template it shows, is archived or deleted

    @property
    def settings(self) -> dict[str, Any]:
        return self.version.settings


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


class Refused(errors.Invalid):
    """Answers the page cannot accept: by input (`name`, `email`, `checkbox-N`), the broken rule."""

    def __init__(self, problems: dict[str, str]) -> None:
        super().__init__(", ".join(f"{where}: {rule}" for where, rule in problems.items()))
        self.problems = problems


class Changed(Exception):
    """A new version was published since the page was opened: the person has not seen it."""


class Unavailable(Exception):
    """The clickwrap, or the template it shows, was archived or deleted."""


class ConsentPages:
    def __init__(self, db: Database, clock: Clock, files: Files, submissions: Submissions) -> None:
        self.db, self.clock, self.files, self.submissions = db, clock, files, submissions

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
        return ConsentPage(clickwrap, version, await self._pages(template.id), True)

    async def agree(self, slug: str, agreement: Agreement, browser: Browser, token: str) -> Agreed:
        """Records the consent; raises Refused, Changed, Unavailable, NotFound or form_posts.Taken when it
        cannot."""
        page = await self.open(slug)
        if page is None:
            raise errors.NotFound()
        if earlier := await self._earlier(token):
            return earlier
        if not page.available:
            raise Unavailable()
        if agreement.version != page.version.number:
            raise Changed(f"version {page.version.number} was published since the page was opened")
        if problems := _problems(page.settings, agreement):
            raise Refused(problems)
        try:
            if page.version.kind == "requires_signature":
                await self._with_submission(page, agreement, browser, token)
            else:
                async with self.db.transaction() as tx:
                    await self._record(tx, page, agreement, browser, token, None)
        except form_posts.Taken:
            if not await self._earlier(token):
                raise  # taken by another page's form: this post can't be told from a replay
        found = await self._earlier(token)
        assert found is not None, "the consent was recorded, by this post or an earlier one"
        return found

    async def _with_submission(self, page: ConsentPage, agreement: Agreement, browser: Browser, token: str) -> None:
        clickwrap = page.clickwrap
        principal = await auth.on_behalf_of(self.db, clickwrap.account_id, clickwrap.author_id)
        signer = {key: value for key, value in (("name", agreement.name), ("email", agreement.email),
                                                ("external_id", agreement.external_id)) if value}
        # The person signs now: no invitation, but their completed copy.
        body = {"template_id": page.settings["template_id"], "send_email": False,
                "submitters": [{**signer, "send_copy_email": True}]}

        async def along(tx: Connection, submission: Submission) -> None:
            await self._record(tx, page, agreement, browser, token, submission.id)

        await self.submissions.create(principal, body, source=SUBMISSION_SOURCE, along=along)

    async def _record(self, tx: Connection, page: ConsentPage, agreement: Agreement, browser: Browser, token: str,
                      submission_id: int | None) -> None:
        await form_posts.claim(tx, token, "consent", self.clock.now())
        clickwrap, boxes = page.clickwrap, page.settings.get("checkboxes") or []
        answers = [{"text": box["text"], "required": bool(box.get("required")), "checked": checked}
                   for box, checked in zip(boxes, agreement.checked, strict=True)]
        consent = await stored.insert_consent(
            tx, account_id=clickwrap.account_id, clickwrap_id=clickwrap.id, version=page.version.number,
            uuid=str(uuid.uuid4()), source=SOURCE, name=agreement.name or None, email=agreement.email or None,
            external_id=agreement.external_id or None, ip=browser.ip, user_agent=browser.user_agent,
            checkboxes=answers, now=self.clock.now())
        if submission_id is not None:
            await stored.set_consent_submission(tx, consent.id, submission_id)
        await form_posts.settle(tx, token, consent.id)
        await certificates.enqueue(tx, self.clock, consent)

    async def _earlier(self, token: str) -> Agreed | None:
        """What an earlier post of the same form recorded."""
        consent_id = await form_posts.made_by(self.db, token, "consent")
        consent = await stored.get_consent(self.db, consent_id) if consent_id else None
        if consent is None:
            return None
        signers = await stored_submissions.submitters_of(self.db, consent.submission_id) \
            if consent.submission_id else []
        return Agreed(consent, signers[0].slug if signers else None)

    async def _pages(self, template_id: int) -> list[Page]:
        pages = []
        for document in await stored_templates.list_documents(self.db, template_id):
            for index, size in enumerate(document.pages):
                preview = document.previews[index] if index < len(document.previews) else None
                image = self.files.path(preview["uuid"], preview["filename"]) if preview else None
                pages.append(Page(document.uuid, document.name, index, image, size["width"], size["height"],
                                  size.get("text", "")))
        return pages


def _problems(settings: dict[str, Any], agreement: Agreement) -> dict[str, str]:
    """Each answer that breaks a rule of the version, and the rule: missing, invalid or too_long."""
    problems = {}
    for key, value in (("name", agreement.name), ("email", agreement.email), ("external_id", agreement.external_id)):
        if len(value) > CONSENT_LENGTHS[key]:
            problems[key] = "too_long"
        elif _CONTROL.search(value):
            problems[key] = "invalid"
    if settings.get("require_name") and not agreement.name:
        problems["name"] = "missing"
    if settings.get("require_email") and not agreement.email:
        problems["email"] = "missing"
    elif agreement.email and "email" not in problems and not inputs.is_email(agreement.email):
        problems["email"] = "invalid"
    boxes = settings.get("checkboxes") or []
    if len(agreement.checked) != len(boxes):
        raise errors.Invalid(f"the page has {len(boxes)} checkboxes, {len(agreement.checked)} were answered")
    for index, (box, checked) in enumerate(zip(boxes, agreement.checked, strict=True)):
        if box.get("required") and not checked:
            problems[f"checkbox-{index}"] = "missing"
    return problems
