"""What the signing form shows a submitter who opens their link: the state of their part (the form, or
why there is none: not their turn yet, completed, declined, expired, archived), their fields with the
values entered so far, and the pages of the documents as pictures.

Reading only: the form's actions (view, save, complete, decline) are `Submitters`' methods.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import storage.results as stored_results
import storage.submissions as stored
from signsvc.infra.clock import Clock
from signsvc.infra.files import Files
from signsvc.results import emails as completed_email
from signsvc.submissions import email_verification, field_options, field_values, statuses
from signsvc.templates import patterns
from signsvc.templates.page_images import PageImages
from storage import Database
from storage.records import Submission, Submitter
from storage.shapes import Area, Field, Preview

FORM, AWAITING, COMPLETED, DECLINED, EXPIRED, ARCHIVED = (
    "form",
    "awaiting",
    "completed",
    "declined",
    "expired",
    "archived",
)


@dataclass(frozen=True)
class Page:
    """A page of a document as the form shows it: its picture, its size as displayed, its text."""

    document_uuid: str
    document_name: str
    index: int
    image: str | None  # a path on the site: the picture made when the template was created
    width: float
    height: float
    text: str


@dataclass(frozen=True)
class Link:
    name: str
    path: str


@dataclass(frozen=True)
class FormView:
    """A submitter's signing form as it stands."""

    state: str
    submission: Submission
    submitter: Submitter
    submitters: list[Submitter]
    must_verify: bool  # the signer proves their email address before the form opens (`email_verification`)
    fields: list[Field] = field(default_factory=list)
    values: dict[str, Any] = field(default_factory=dict)  # by field uuid, file values as paths on the site
    pages: list[Page] = field(default_factory=list)
    documents: list[Link] = field(default_factory=list)  # the submitter's own copy, once it is made
    # What the submitters who completed before this one entered: shown on the pages, not to be changed.
    completed_fields: list[Field] = field(default_factory=list)
    completed_values: dict[str, Any] = field(default_factory=dict)

    @property
    def title(self) -> str:
        return self.submission.name or self.submission.template_name

    @property
    def waiting_for(self) -> list[Submitter]:
        """Who has to complete before this submitter's turn comes (preserved order)."""
        return [
            s
            for s in self.submitters
            if s.position < self.submitter.position
            and not s.completed_at
            and not statuses.is_viewer(self.submission, s)
        ]

    @property
    def waiting_names(self) -> str:
        return ", ".join(s.name or s.email or s.phone or s.role for s in self.waiting_for)

    @property
    def invited_by_email(self) -> bool:
        """Whether the submitter gets an email when their turn comes."""
        return bool(self.submitter.email) and self.submitter.preferences.get("send_email") is not False

    @property
    def gets_copy_by_email(self) -> bool:
        """Whether the completed documents are emailed to the submitter (when the service sends email)."""
        return bool(self.submitter.email) and completed_email.gets_copy(self.submission, self.submitter)

    @property
    def view_only(self) -> bool:
        return statuses.is_viewer(self.submission, self.submitter)

    @functools.cached_property
    def own_areas(self) -> dict[tuple[str, int], list[tuple[Field, Area]]]:
        """The submitter's fields' areas by page (document uuid, page index), as (field, area)."""
        return _by_page(self.fields)

    @functools.cached_property
    def completed_areas(self) -> dict[tuple[str, int], list[tuple[Field, Area]]]:
        """The areas of the fields the submitters before completed, by page."""
        return _by_page(self.completed_fields)


def _by_page(fields: list[Field]) -> dict[tuple[str, int], list[tuple[Field, Area]]]:
    found: dict[tuple[str, int], list[tuple[Field, Area]]] = defaultdict(list)
    for each in fields:
        for area in each.get("areas", []):
            found[(area["attachment_uuid"], area["page"])].append((each, area))
    return found


class SigningForms:
    def __init__(self, db: Database, clock: Clock, files: Files, images: PageImages) -> None:
        self.db, self.clock, self.files, self.images = db, clock, files, images

    async def open(self, slug: str) -> FormView | None:
        """The form behind a signing link; None when no submitter has that slug."""
        signer = await email_verification.signer(self.db, slug)
        if signer is None:
            return None
        submitter, must_verify = signer
        submission = await stored.submission_of(self.db, submitter)
        submitters = await stored.submitters_of(self.db, submission.id)
        state = self._state(submission, submitter, submitters)
        if state == COMPLETED:
            documents = await self._own_copy(submitter)
            return FormView(state, submission, submitter, submitters, must_verify, documents=documents)
        if state != FORM:
            return FormView(state, submission, submitter, submitters, must_verify)
        attachments = await self._linkable(submission)
        fields = field_values.role_fields(submission.fields, submitter.role_uuid)
        await patterns.prepare(patterns.found_in(fields), checked=False)  # off the event loop when not compiled yet
        fields = field_values.form_rules(fields)
        completed_fields, completed_values = self._completed_by_others(submission, submitter, submitters, attachments)
        return FormView(
            state,
            submission,
            submitter,
            submitters,
            must_verify,
            fields,
            self._values(submitter, fields, attachments),
            await self._pages(submission),
            completed_fields=completed_fields,
            completed_values=completed_values,
        )

    async def state(self, slug: str) -> str | None:
        """Only the state of the form behind a signing link (what `open` finds first); None for no submitter."""
        submitter = await stored.find_submitter_by_slug(self.db, slug)
        if submitter is None:
            return None
        submission = await stored.submission_of(self.db, submitter)
        return self._state(submission, submitter, await stored.submitters_of(self.db, submission.id))

    def _state(self, submission: Submission, submitter: Submitter, submitters: list[Submitter]) -> str:
        if submission.archived_at:
            return ARCHIVED
        if submitter.completed_at:
            return COMPLETED
        if submitter.declined_at or submission.declined_at:
            return DECLINED
        if statuses.submission_status(submission, self.clock.now()) == "expired":
            return EXPIRED
        if not statuses.turn_has_come(submission, submitter, submitters):
            return AWAITING
        return FORM

    def _completed_by_others(
        self, submission: Submission, submitter: Submitter, submitters: list[Submitter], attachments: dict[str, str]
    ) -> tuple[list[Field], dict[str, Any]]:
        """The fields of the other submitters who completed, and their values."""
        fields: list[Field] = []
        values: dict[str, Any] = {}
        for other in submitters:
            if other.completed_at and other.id != submitter.id:
                their_fields = field_values.role_fields(submission.fields, other.role_uuid)
                fields += their_fields
                values |= field_options.masked_values(their_fields, self._values(other, their_fields, attachments))
        return fields, values

    async def _linkable(self, submission: Submission) -> dict[str, str]:
        """The names of the files the form may link, by uuid: the submission's, and the files of its account its
        fields' defaults name. Nothing else, whatever a value or a default holds."""
        linkable = {a.uuid: a.filename for a in await stored.attachments_of(self.db, submission.id)}
        named = {
            uuid
            for f in submission.fields
            for uuid in field_values.named_files(f, f.get("default_value"))
            if isinstance(uuid, str)
        }
        owned = await self.files.owned(self.db, submission.account_id, named - set(linkable))
        return linkable | {uuid: blob.filename for uuid, blob in owned.items()}

    def _values(self, submitter: Submitter, fields: list[Field], attachments: dict[str, str]) -> dict[str, Any]:
        """The values a submitter entered so far, and the fields' defaults where none was; files as paths (only
        those of `attachments`)."""
        shown = {}
        signer = field_options.signer_of(submitter)
        for found in fields:
            value = submitter.field_values.get(found["uuid"])
            if value is None and found["type"] not in field_values.FILE_TYPES:  # placeholders filled as completion will
                value = field_options.shown_default(found, found.get("default_value"), signer, self.clock.now())
            elif value is None:
                value = found.get("default_value")
            if value is not None and value != "":
                shown[found["uuid"]] = field_values.display(
                    found,
                    value,
                    lambda uuid: self.files.links.path(uuid, attachments[uuid]) if uuid in attachments else None,
                )
        return shown

    async def _pages(self, submission: Submission) -> list[Page]:
        pages = []
        fallback = await self._template_previews(submission)
        for document in submission.documents:
            previews = document.get("previews") or fallback.get(document["uuid"], [])
            for index, page in enumerate(document["pages"]):
                image = (
                    self.files.links.path(previews[index]["uuid"], previews[index]["filename"])
                    if index < len(previews)
                    else None
                )
                pages.append(
                    Page(
                        document["uuid"],
                        document["name"],
                        index,
                        image,
                        page["width"],
                        page["height"],
                        page.get("text", ""),
                    )
                )
        return pages

    async def _template_previews(self, submission: Submission) -> dict[str, list[Preview]]:
        """The template's page pictures by document, for a submission made before submissions kept their
        own (while the template exists)."""
        if submission.template_id is None or all("previews" in d for d in submission.documents):
            return {}
        return {d.uuid: d.previews for d in await self.images.shown(submission.template_id)}

    async def _own_copy(self, submitter: Submitter) -> list[Link]:
        return [
            Link(r.name, self.files.links.path(r.blob_uuid, r.filename))
            for r in await stored_results.results_of(self.db, submitter.submission_id)
            if r.kind == "submitter" and r.submitter_id == submitter.id
        ]
