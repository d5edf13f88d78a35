"""A template's public link (`/d/{slug}`): whoever holds it starts a submission of the template and signs its
first role, as DocuSeal's shared link does.

The link is open while the template is shared (`shared_link`), not archived, and does not require its signers to
verify their email address (`require_email_2fa`). It starts a submission only when the first role is the one with
fields: the other roles carry no address, so no one could ever invite them, and a submission waiting for them
would never complete. The visitor signs at once, so no invitation
is sent. Each page's form posts once: a second post of the same form finds the first one's submission.
"""

from __future__ import annotations

from dataclasses import dataclass

import storage.accounts as stored_accounts
import storage.form_posts as form_posts
import storage.template_links as stored
from signsvc.infra import errors
from signsvc.infra.clock import Clock
from signsvc.submissions import email_verification, inputs, visitors
from signsvc.submissions.submissions import Submissions
from signsvc.submissions.visitors import INVALID, MISSING, Refused, Unavailable
from storage import Connection, Database
from storage.records import Submission, Template

SOURCE = "link"
RECORD_TYPE = "submission"
LENGTH_LIMIT = 255  # as the API's submitter name, email and phone


@dataclass(frozen=True)
class LinkPage:
    template: Template
    account_name: str

    @property
    def archived(self) -> bool:
        return self.template.archived_at is not None

    @property
    def asks_phone(self) -> bool:
        """The visitor's role has a phone field: the page asks for their phone number, their email is optional."""
        return any(field["type"] == "phone" for field in visitors.fields_of_role(self.template, 0))

    @property
    def startable(self) -> bool:
        return visitors.signable_alone(self.template)


@dataclass(frozen=True)
class Visitor:
    """What the visitor typed, stripped; an input the page does not show is empty. `language`: the page's, which
    their emails and records then speak."""

    name: str
    email: str
    phone: str
    language: str | None = None


class CannotStart(Exception):
    """Roles other than the visitor's have fields: no one could invite them."""


class StaleForm(Exception):
    """The form's token was posted before by another public form: this post can't be told from a replay."""


class TemplateLinks:
    def __init__(self, db: Database, clock: Clock, submissions: Submissions) -> None:
        self.db, self.clock, self.submissions = db, clock, submissions

    async def open(self, slug: str) -> LinkPage | None:
        """The page of a shared template (archived or not); None for a slug that names none, one not shared, or
        one whose signers must verify their email address: the link's visitor types any address they like."""
        template = await stored.template_by_slug(self.db, slug)
        if template is None or not template.shared_link or email_verification.required_by(template):
            return None
        account = await stored_accounts.required_account(self.db, template.account_id)
        return LinkPage(template, account.name)

    async def start(self, page: LinkPage, visitor: Visitor, token: str) -> str:
        """The slug of the visitor's signing form: of a new submission, or of the one this form's earlier post
        started. Raises NotFound, Unavailable, CannotStart, Refused or StaleForm when there is none."""
        if earlier := await self._earlier(token):
            return earlier
        if page.archived:
            raise Unavailable()
        if not page.startable:
            raise CannotStart()
        if found := problems(page, visitor):
            raise Refused(found)
        try:
            return await self._create(page.template, visitor, token)
        except form_posts.Taken:
            pass
        except errors.Invalid:
            await self._still_open(page.template.slug)  # archived since the page was opened, most likely
            raise
        if earlier := await self._earlier(token):
            return earlier
        raise StaleForm()

    async def _create(self, template: Template, visitor: Visitor, token: str) -> str:
        async def along(tx: Connection, submission: Submission) -> None:
            await form_posts.claim(tx, token, RECORD_TYPE, self.clock.now())
            await form_posts.settle(tx, token, submission.id)

        signer = {"name": visitor.name, "email": visitor.email, "phone": visitor.phone, "language": visitor.language}
        return await visitors.start(self.db, self.submissions, template, signer, SOURCE, along)

    async def _still_open(self, slug: str) -> None:
        page = await self.open(slug)
        if page is None:
            raise errors.NotFound()
        if page.archived:
            raise Unavailable()

    async def _earlier(self, token: str) -> str | None:
        """The signing form of the submission an earlier post of the same form started."""
        submission_id = await form_posts.made_by(self.db, token, RECORD_TYPE)
        return await visitors.signing_slug(self.db, submission_id) if submission_id else None


def problems(page: LinkPage, visitor: Visitor) -> dict[str, str]:
    """Each answer that breaks a rule, and the rule (missing, invalid, too_long): the email is required and
    must be an address, unless the page asks for a phone number, which then is required, as the API checks it."""
    answers = {"name": visitor.name, "email": visitor.email, "phone": visitor.phone}
    broken = {key: _broken(page, key, value) for key, value in answers.items()}
    return {key: rule for key, rule in broken.items() if rule}


def _broken(page: LinkPage, key: str, value: str) -> str | None:
    if problem := visitors.text_problem(value, LENGTH_LIMIT):
        return problem
    if not value:
        required = key == ("phone" if page.asks_phone else "email")
        return MISSING if required else None
    if (key == "email" and not inputs.is_email(value)) or (key == "phone" and not _is_phone(value)):
        return INVALID
    return None


def _is_phone(value: str) -> bool:
    try:
        inputs.checked_phone(value, ())
    except errors.Invalid:
        return False
    return True
