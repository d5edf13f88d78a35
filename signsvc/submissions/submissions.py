"""Submissions: a template (or a one-off submission's own documents) sent to its submitters, followed to its end.

Creation checks everything first (input, template, roles, values, files), then writes the
submission, its submitters, its events, its invitations and its expiry timer in one transaction.
"""

from __future__ import annotations

import uuid as uuids
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

import storage.results as stored_results
import storage.submissions as stored
import storage.templates as stored_templates
from signsvc.accounts import auth
from signsvc.infra import errors, jobs, json_fields, tokens
from signsvc.infra.clock import Clock
from signsvc.infra.files import Files, NewFile, as_preview
from signsvc.submissions import (
    condition_values,
    dynamic_documents,
    email_verification,
    feed,
    field_options,
    field_values,
    inputs,
    reminders,
    signature_modes,
    values,
)
from signsvc.submissions.basis import Basis
from signsvc.submissions.inputs import SubmissionInput, SubmitterInput
from signsvc.submissions.submitters import Submitters
from signsvc.submissions.values import PreparedValues
from signsvc.templates import page_images, patterns, variables_schema
from signsvc.templates.documents import Ingest, IngestedDocument
from signsvc.templates.page_images import PageImages
from signsvc.webhooks import events
from storage import Connection, Database, StorageError
from storage.filters import SubmissionFilters
from storage.records import Principal, Submission, Submitter, Template
from storage.shapes import Field, Preferences, Role, SubmissionDocument

EXPIRE_JOB = "submissions.expire"
Along = Callable[[Connection, Submission], Awaitable[None]]
STATUSES = ("pending", "completed", "declined", "expired")


@dataclass(frozen=True)
class _Checked:
    """A creation's request read, what it is made from, each submitter with its role, the submission's fields and
    each submitter's values prepared (their new files made, not yet stored)."""

    request: SubmissionInput
    basis: Basis
    assigned: list[tuple[SubmitterInput, Role]]
    fields: list[Field]
    prepared: list[PreparedValues]

    @property
    def files(self) -> list[NewFile]:
        return [file for found in self.prepared for file in found.files] + self.basis.new_files


class PartlyMade(Exception):
    """A batch of `Submissions.create_many` failed: `made` are the submissions of the batches before it,
    `refused` the refusal (or the database's failure: an Unavailable); none of the bodies from that batch on were
    made."""

    def __init__(self, made: list[Submission], refused: errors.ServiceError) -> None:
        super().__init__(refused.message)
        self.made, self.refused = made, refused


class Submissions:
    def __init__(
        self, db: Database, clock: Clock, files: Files, ingest: Ingest, submitters: Submitters, images: PageImages
    ) -> None:
        self.db, self.clock, self.files, self.ingest, self.submitters = db, clock, files, ingest, submitters
        self.images = images

    async def create(
        self, principal: Principal, body: dict[str, Any], *, source: str = "api", along: Along | None = None
    ) -> tuple[Submission, list[Submitter]]:
        """`along` writes what goes with the submission (a consent, a public form's post) in its transaction."""
        return await self._made(principal, await self._checked(principal, body), source, along)

    async def create_one_off(
        self, principal: Principal, body: dict[str, Any], basis: Basis
    ) -> tuple[Submission, list[Submitter]]:
        """A one-off submission: made of `basis` (documents of its own, no template), with every option of
        `create` in `body`, checked and written as `create` does."""
        return await self._made(principal, await self._checked(principal, body, basis), "api", None)

    async def _made(
        self, principal: Principal, checked: _Checked, source: str, along: Along | None
    ) -> tuple[Submission, list[Submitter]]:
        await self.files.write(checked.files)
        try:
            async with self.db.transaction() as tx:
                return await self._written(tx, principal, checked, source, along)
        except BaseException:
            await self.files.discard(checked.files)
            raise

    async def create_many(
        self, principal: Principal, bodies: list[dict[str, Any]], *, source: str, batch: int = 50
    ) -> list[Submission]:
        """Each body created as `create` creates it, `batch` of them in one transaction: a bulk send's thousand
        submissions in twenty commits, each short enough not to hold other writers up. A batch refused (the
        template archived since the caller checked every body) leaves the batches before it made: PartlyMade
        says which they are."""
        made: list[Submission] = []
        for start in range(0, len(bodies), batch):
            try:
                made += await self._made_together(principal, bodies[start : start + batch], source)
            except errors.ServiceError as refused:
                raise PartlyMade(made, refused) from refused
            except StorageError as failed:  # the batches before it stay made: the caller must learn which
                raise PartlyMade(made, errors.Unavailable()) from failed
        return made

    async def _made_together(self, principal: Principal, bodies: list[dict[str, Any]], source: str) -> list[Submission]:
        """The bodies created in one transaction, all or none."""
        checked = [await self._checked(principal, body) for body in bodies]
        files = [file for one in checked for file in one.files]
        await self.files.write(files)
        try:
            async with self.db.transaction() as tx:
                return [(await self._written(tx, principal, one, source, None))[0] for one in checked]
        except BaseException:
            await self.files.discard(files)
            raise

    async def check(self, principal: Principal, body: dict[str, Any]) -> None:
        """Refuses `body` as `create` would, nothing written: a bulk file's rows are each checked before any is
        created. Values that are files are made (not stored) to be checked, as `create` makes them."""
        await self._checked(principal, body)

    async def _checked(self, principal: Principal, body: dict[str, Any], basis: Basis | None = None) -> _Checked:
        """Everything `create` checks before it writes; `basis` a one-off submission's, else the template's."""
        await patterns.prepare(patterns.found_in(body))
        request = inputs.parse(body, self.clock.now(), one_off=basis is not None)
        if basis is None:
            assert request.template_id is not None  # `parse` requires it of a submission of a template
            template = await self._template(principal, request.template_id)
            variables_schema.require(template.variables_schema, request.variables)
            documents = await self.images.complete(template.id)  # copied with every page's image
            basis = await dynamic_documents.filled(
                self.db, self.files, self.ingest, template, documents, request.variables
            )
        template_requires = basis.template is not None and email_verification.required_by(basis.template)
        request = email_verification.applied(request, required=basis.email_2fa or template_requires)
        assigned = _assign_roles(basis.roles, request.submitters)
        fields = _fields_with_readonly(basis.fields, assigned)
        prepared = [
            await values.prepare(
                self.ingest, _fields_of(field_values.named(fields), role), given.values, (*given.where, "values")
            )
            for given, role in assigned
        ]
        if any(one.values for one in prepared):  # conditions: a field that does not apply keeps no value
            shapes = [{"uuid": d.uuid, "conditions": basis.conditions_of(d)} for d in await basis.documents_in(self.db)]
            condition_values.created_applying(fields, shapes, prepared)
        for given, role in assigned:  # a file named by id, as it was made
            role_fields = _fields_of(field_values.named(fields), role)
            await signature_modes.given(self.db, role_fields, {"values": given.values}, signer=False)
        for (_, role), given_values in zip(assigned, prepared, strict=True):  # else completion could only refuse them
            await field_options.refuse_invalid(_fields_of(fields, role), given_values.values, self.clock.now().date())
        return _Checked(request, basis, assigned, fields, prepared)

    async def _written(
        self, tx: Connection, principal: Principal, checked: _Checked, source: str, along: Along | None
    ) -> tuple[Submission, list[Submitter]]:
        """The submission, its submitters, its events, invitations and expiry timer, written in `tx`."""
        submission = await self._insert(tx, principal, checked.basis, checked.request, checked.fields, source)
        submitters = await self._insert_submitters(tx, submission, checked.assigned, checked.prepared)
        current = await self._started(tx, submission, submitters, principal.account_name)
        if along:
            await along(tx, submission)
        if current is None or along:
            return submission, await stored.submitters_of(tx, submission.id)
        return submission, current

    async def create_for_emails(
        self, principal: Principal, body: dict[str, Any]
    ) -> list[tuple[Submission, list[Submitter]]]:
        """POST /submissions/emails: one submission for each address, its first role signed by it."""
        emails = body.get("emails")
        if not isinstance(emails, str) or not emails.strip():
            raise errors.at(("emails",), "is required: addresses separated by commas")
        addresses = list(dict.fromkeys(a.strip() for a in emails.replace("\n", ",").split(",") if a.strip()))
        if not addresses:  # commas alone would create nothing, and check nothing else of the request
            raise errors.at(("emails",), "is required: addresses separated by commas")
        common: dict[str, Any] = {
            key: body[key] for key in ("template_id", "send_email", "message", "reminders") if key in body
        }
        if not all(inputs.is_email(address) for address in addresses):  # checked before creating anything
            raise errors.at(("emails",), "are invalid")
        return [await self.create(principal, {**common, "submitters": [{"email": address}]}) for address in addresses]

    async def find(self, principal: Principal, submission_id: int) -> Submission:
        return auth.owned(principal, await stored.get_submission(self.db, submission_id), "Submission")

    async def page(self, principal: Principal, filters: SubmissionFilters) -> list[Submission]:
        """A page of the account's submissions, newest first."""
        if filters.status is not None and filters.status not in STATUSES:
            raise errors.Invalid(f"status must be one of {', '.join(STATUSES)}")
        return await stored.list_submissions(self.db, principal.account_id, filters, self.clock.now())

    async def bulk_progress(self, principal: Principal, template_id: int, first: int, last: int) -> stored.BulkProgress:
        """How far a bulk send of the account's template that made submissions `first` to `last` has got."""
        return await stored.bulk_progress(self.db, principal.account_id, template_id, first, last)

    async def completed_feed(
        self, principal: Principal, *, limit: int, after: int | None, before: int | None
    ) -> feed.FeedPage:
        """The events feed: completed submitters, latest first."""
        return await feed.form_completed(self.db, principal.account_id, limit=limit, after=after, before=before)

    async def update(self, principal: Principal, submission_id: int, body: dict[str, Any]) -> Submission:
        """PUT /submissions/{id}: rename, change or clear `expire_at` (rescheduling expiry), archive or restore."""
        unknown = sorted(set(body) - {"name", "expire_at", "archived", "archived_at"})
        if unknown:
            raise errors.Invalid(f"Unknown key: {unknown[0]}")
        now = self.clock.now()
        async with self.db.transaction() as tx:
            submission = auth.owned(principal, await stored.get_submission(tx, submission_id), "Submission")
            changed = _changed(submission, body, now)
            await stored.update_submission(tx, changed, now)
            if changed.expire_at != submission.expire_at and changed.expire_at:
                await self._schedule_expiry(tx, changed.id, changed.expire_at)
            if changed.archived_at and not submission.archived_at:
                await self._event(tx, changed, "submission.archived")
            return await stored.required_submission(tx, submission.id)

    async def archive(self, principal: Principal, submission_id: int) -> Submission:
        async with self.db.transaction() as tx:
            submission = auth.owned(principal, await stored.get_submission(tx, submission_id), "Submission")
            if submission.archived_at is None:
                now = self.clock.now()
                await stored.update_submission(tx, replace(submission, archived_at=now), now)
                await self._event(tx, submission, "submission.archived")
            return await stored.required_submission(tx, submission.id)

    async def delete(self, principal: Principal, submission_id: int) -> Submission:
        """Deletes the submission, its submitters and its files for good; answers it as it was."""
        async with self.db.transaction() as tx:
            submission = auth.owned(principal, await stored.get_submission(tx, submission_id), "Submission")
            blob_ids = [document["blob_id"] for document in submission.documents]
            blob_ids += [preview["id"] for document in submission.documents for preview in document.get("previews", [])]
            blob_ids += [attachment.blob_id for attachment in await stored.attachments_of(tx, submission.id)]
            blob_ids += list({result.blob_id for result in await stored_results.results_of(tx, submission.id)})
            await stored.delete_submission(tx, submission.id)
            await self.files.delete(tx, blob_ids)
        return submission

    def kinds(self) -> list[jobs.Kind]:
        return [jobs.Kind(EXPIRE_JOB, self._expire)]

    async def _expire(self, payload: dict[str, Any]) -> None:
        """The expiry timer: a submission still pending at its `expire_at` emits `submission.expired` once."""
        expire_at = datetime.fromisoformat(payload["expire_at"])
        async with self.db.transaction() as tx:
            submission = await stored.lock_submission(tx, payload["submission_id"])
            if submission and await stored.expire_submission(tx, submission.id, expire_at, self.clock.now()):
                await self._event(tx, submission, "submission.expired")

    async def _template(self, principal: Principal, template_id: int) -> Template:
        """The template to send: 404 when it does not exist (or belongs to the linked live or test account:
        the message names the key to use); 422 when it is another account's or cannot be sent."""
        template = await stored_templates.get_template(self.db, template_id)
        if template is None:
            raise errors.NotFound(f"Template {template_id} not found")
        try:
            auth.check_owner(principal, template.account_id, "Template", template.id)
        except errors.NotAuthorized:
            raise errors.Invalid(f"Template {template_id} is not a template of this account") from None
        if template.archived_at:
            raise errors.Invalid("Template has been archived")
        if not template.fields:
            raise errors.Invalid("Template does not contain fields")
        return template

    async def _insert(
        self,
        tx: Connection,
        principal: Principal,
        basis: Basis,
        request: SubmissionInput,
        fields: list[Field],
        source: str,
    ) -> Submission:
        documents = await self._documents(tx, principal.account_id, basis)
        schedule = await reminders.schedule_for(tx, principal.account_id, request.reminders)
        return await stored.insert_submission(
            tx,
            account_id=principal.account_id,
            template_id=basis.template.id if basis.template else None,
            created_by_user_id=principal.user_id,
            slug=tokens.slug(),
            envelope_id=str(uuids.uuid4()),
            name=request.name,
            template_name=basis.name,
            source=source,
            submitters_order=request.order,
            send_email=request.send_email,
            roles=basis.roles,
            fields=fields,
            documents=documents,
            preferences={**request.preferences, "reminders": schedule} if schedule else request.preferences,
            variables=request.variables,
            expire_at=request.expire_at,
            now=self.clock.now(),
        )

    async def _documents(self, tx: Connection, account_id: int, basis: Basis) -> list[SubmissionDocument]:
        """The submission's own documents: copies of its template's files (each document, then its previews,
        copied at once), and the files of documents just taken in recorded."""
        given = await basis.documents_in(tx)
        originals = [d for d in given if not isinstance(d, IngestedDocument)]
        # Filled documents gone: their files would be written, never recorded; pending page images: documents
        # replaced since they were completed.
        if basis.filled.keys() - {d.uuid for d in given} or any(page_images.pending(d) for d in originals):
            raise errors.Invalid("the template's documents changed while the submission was being made: send again")
        sources = [
            blob_id for document in originals for blob_id in (document.blob_id, *(p["id"] for p in document.previews))
        ]
        copies = iter(
            await stored.copy_blobs(tx, [(blob_id, uuids.uuid4().hex) for blob_id in sources], self.clock.now())
        )
        documents: list[SubmissionDocument] = []
        for document in given:
            if isinstance(document, IngestedDocument):
                blob = await self.files.record(tx, account_id, document.pdf)
                previews = [await self.files.record(tx, account_id, preview) for preview in document.previews]
            else:
                blob, previews = next(copies), [next(copies) for _ in document.previews]
            made: SubmissionDocument = {
                "uuid": document.uuid,
                "name": document.name,
                "blob_id": blob.id,
                "blob_uuid": blob.uuid,
                "filename": blob.filename,
                "pages": document.pages,
                "previews": [as_preview(p) for p in previews],
            }
            if conditions := basis.conditions_of(document):
                made["conditions"] = conditions
            documents.append(made)
        return documents

    async def _insert_submitters(
        self,
        tx: Connection,
        submission: Submission,
        assigned: list[tuple[SubmitterInput, Role]],
        prepared: list[PreparedValues],
    ) -> list[tuple[SubmitterInput, Submitter]]:
        """The submitters, inserted at once with their values; values with files are written once their
        files are recorded (an attachment names its submitter)."""
        positions = {role["uuid"]: index for index, role in enumerate(submission.roles)}
        inserted = await stored.insert_submitters(
            tx,
            submission_id=submission.id,
            account_id=submission.account_id,
            now=self.clock.now(),
            signers=[
                _signer(submission, given, role, positions[role["uuid"]], found)
                for (given, role), found in zip(assigned, prepared, strict=True)
            ],
        )
        return [
            (given, await self._files_recorded(tx, submission, submitter, found))
            for (given, _), submitter, found in zip(assigned, inserted, prepared, strict=True)
        ]

    async def _files_recorded(
        self, tx: Connection, submission: Submission, submitter: Submitter, prepared: PreparedValues
    ) -> Submitter:
        if not values.names_files(prepared):
            return submitter
        namer = self.submitters.account
        saved = await values.record(tx, self.clock, self.files, submission, submitter, prepared, namer)
        submitter = stored.changed(submitter, field_values=saved)
        await values.settle(tx, self.files, submission, submitter, {}, [submitter], namer)
        return await stored.update_submitter(tx, submitter, self.clock.now())

    async def _started(
        self,
        tx: Connection,
        submission: Submission,
        submitters: list[tuple[SubmitterInput, Submitter]],
        account_name: str | None,
    ) -> list[Submitter] | None:
        """`submission.created`, then the submitters created completed, then invitations and the expiry timer;
        answers the submitters as they are then, or None when completions changed them (read them again)."""
        await self._event(tx, submission, "submission.created")
        completed = [submitter for given, submitter in submitters if given.completed]
        for submitter in completed:
            await self.submitters.complete(tx, submission, submitter, browser=None, invite_next=False)
        current = None
        if completed:  # only a submitter created completed can have completed the submission just inserted
            if (await stored.required_submission(tx, submission.id)).completed_at is None:
                await self.submitters.invitations.invite_due(
                    tx, submission, await stored.submitters_of(tx, submission.id), account_name=account_name
                )
        else:
            current = await self.submitters.invitations.invite_due(
                tx, submission, [submitter for _, submitter in submitters], account_name=account_name
            )
        if submission.expire_at:
            await self._schedule_expiry(tx, submission.id, submission.expire_at)
        return current

    async def _schedule_expiry(self, tx: Connection, submission_id: int, expire_at: datetime) -> None:
        await jobs.enqueue(
            tx,
            self.clock,
            EXPIRE_JOB,
            {"submission_id": submission_id, "expire_at": expire_at.isoformat()},
            run_at=expire_at,
        )

    async def _event(self, tx: Connection, submission: Submission, event_type: str) -> None:
        await events.record(
            tx,
            self.clock,
            account_id=submission.account_id,
            event_type=event_type,
            record_type="submission",
            record_id=submission.id,
        )


def _signer(
    submission: Submission, given: SubmitterInput, role: Role, position: int, prepared: PreparedValues
) -> dict[str, Any]:
    """The columns of a new submitter; its values unless they hold files (`_files_recorded` writes those)."""
    # A submission that sends no email sends none to any of its submitters, and says so in each one.
    settings: Preferences = {**given.preferences, "send_email": given.send_email and submission.send_email}
    return {
        "uuid": str(uuids.uuid4()),
        "slug": tokens.slug(),
        "role_uuid": role["uuid"],
        "role": role["name"],
        "position": position,
        "name": given.name,
        "email": given.email,
        "phone": given.phone,
        "external_id": given.external_id,
        "metadata": given.metadata,
        "preferences": settings,
        "field_values": {} if values.names_files(prepared) else dict(prepared.values),
    }


def _changed(submission: Submission, body: dict[str, Any], now: datetime) -> Submission:
    changed = submission
    if "name" in body:
        changed = replace(changed, name=json_fields.text(body, "name", limit=255))
    if "expire_at" in body:
        changed = replace(changed, expire_at=inputs.expire_at(body["expire_at"], now), expired_at=None)
    archived = _archived_flag(body)
    if archived is not None:
        changed = replace(changed, archived_at=(submission.archived_at or now) if archived else None)
    return changed


def _assign_roles(roles: list[Role], given: list[SubmitterInput]) -> list[tuple[SubmitterInput, Role]]:
    """Each submitter with its role: named ones by name (any case), the others in template order."""
    if len(given) > len(roles):
        raise errors.Invalid("Defined more signing parties than in template")
    by_name = {role["name"].lower(): role for role in roles}
    taken: dict[str, SubmitterInput] = {}
    for submitter in given:
        if submitter.role is None:
            continue
        role = by_name.get(submitter.role.lower())
        if role is None:
            names = ", ".join(f'"{r["name"]}"' for r in roles)
            raise errors.Invalid(
                f"Unknown submitter role: {submitter.role}. Template defines [{names}]",
                location=(*submitter.where, "role"),
            )
        if role["uuid"] in taken:
            raise errors.located("role must be unique", ("submitters",))
        taken[role["uuid"]] = submitter
    free = iter(role for role in roles if role["uuid"] not in taken)
    for submitter in given:
        if submitter.role is None:
            taken[next(free)["uuid"]] = submitter
    return [(taken[role["uuid"]], role) for role in roles if role["uuid"] in taken]


def _fields_with_readonly(given_fields: list[Field], assigned: list[tuple[SubmitterInput, Role]]) -> list[Field]:
    """The template's fields for this submission, with each submitter's `readonly_fields` locked and the
    `validation` given in their `fields` in place of the template's."""
    fields = [field.copy() for field in given_fields]
    for given, role in assigned:
        own = {field["uuid"]: field for field in _fields_of(fields, role)}
        index = field_values.FieldIndex(field_values.named(list(own.values())))
        for name in given.readonly_fields:
            for field in _named_fields(index, name, (*given.where, "readonly_fields")):
                own[field["uuid"]]["readonly"] = True
        for name, rules in given.rules.items():
            for field in _named_fields(index, name, (*given.where, "fields")):
                own[field["uuid"]]["validation"] = {**(own[field["uuid"]].get("validation") or {}), **rules}
    return fields


def _named_fields(index: field_values.FieldIndex, name: str, where: errors.Location) -> list[Field]:
    found = index.matching(name)
    if not found:
        raise errors.located(f"Unknown field: {name}", where)
    return found


def _fields_of(fields: list[Field], role: Role) -> list[Field]:
    return [field for field in fields if field.get("submitter_uuid") == role["uuid"]]


def _archived_flag(body: dict[str, Any]) -> bool | None:
    value = body.get("archived", body.get("archived_at") is not None if "archived_at" in body else None)
    if value is None:
        return None
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    if not isinstance(value, bool):
        raise errors.at(("archived",), "must be true or false")
    return value
