"""Submitters: what the API and the submitter's own actions change, through to completion.

Every change locks the submission row first, so actions on one submission take turns: two last
submitters completing at once give one completion. The signing form's actions are authenticated by
the submitter's slug; each refuses a finished submitter, a closed submission, and a submitter whose
turn (in `preserved` order) has not come. A viewer (a role without fields) may view, nothing more; the
API may still mark a viewer completed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import storage.submissions as stored
from signsvc.accounts import auth
from signsvc.infra import errors, json_fields
from signsvc.infra.clock import Clock
from signsvc.infra.files import Files
from signsvc.results import produce
from signsvc.submissions import (
    condition_values,
    email_verification,
    field_options,
    field_values,
    inputs,
    signature_modes,
    signer_rules,
    signing_reasons,
    statuses,
    values,
)
from signsvc.submissions.invitations import Invitations, stated_languages
from signsvc.submissions.values import DEFAULT_UPLOADS_LIMIT, Namer, PreparedValues
from signsvc.templates.documents import Ingest
from signsvc.webhooks import events
from storage import Connection, Database
from storage.filters import SubmitterFilters
from storage.records import Principal, Submission, Submitter
from storage.shapes import Field, Preferences

LINK_NOT_FOUND = "Signing link not found"
_PUT_KEYS = {
    "name",
    "email",
    "phone",
    "values",
    "external_id",
    "application_key",
    "metadata",
    "completed",
    "send_email",
    "send_sms",
    "reply_to",
    "completed_redirect_url",
    "message",
    "fields",
    "require_phone_2fa",
    "require_email_2fa",
    "go_to_last",
    "language",
}


# Run inside a signer's save, after the values: what must happen in the same transaction (a phone's one-time link
# used up with the signature it gave).
Along = Callable[[Connection, Submitter], Awaitable[None]]


@dataclass(frozen=True)
class Browser:
    """Where a submitter acted from: the caller's address and user agent, and the language of the page it showed
    (a public page's visitor, or a signer without a language, then gets their emails and records in it)."""

    ip: str | None
    user_agent: str | None
    language: str | None = None


class Submitters:
    def __init__(
        self,
        db: Database,
        clock: Clock,
        files: Files,
        ingest: Ingest,
        invitations: Invitations,
        *,
        uploads_limit: int = DEFAULT_UPLOADS_LIMIT,
    ) -> None:
        self.db, self.clock, self.files, self.ingest, self.invitations = db, clock, files, ingest, invitations
        self.signer = Namer(signer=True, uploads_limit=uploads_limit)  # the signing form's values
        self.account = Namer(signer=False, uploads_limit=uploads_limit)  # the API's

    async def find(self, principal: Principal, submitter_id: int) -> Submitter:
        return auth.owned(principal, await stored.get_submitter(self.db, submitter_id), "Submitter")

    async def page(self, principal: Principal, filters: SubmitterFilters) -> list[Submitter]:
        """A page of the account's submitters, newest first."""
        return await stored.list_submitters(self.db, principal.account_id, filters)

    async def complete(
        self,
        tx: Connection,
        submission: Submission,
        submitter: Submitter,
        *,
        browser: Browser | None,
        invite_next: bool = True,
        submitters: list[Submitter] | None = None,
        account_name: str | None = None,
    ) -> Submitter:
        """Marks the submitter completed (through the API when no `browser`), writing the other changes of
        `submitter` with it; the last one completes the submission, others invite the next. `submitters`: the
        submission's submitters as the transaction read them, when only this one has changed since (read
        again when None); `account_name`: the submission's account's, for the next invitation, when the caller
        knows it. `form.completed` (and `submission.completed`) come from the job that produces the
        submitter's documents."""
        now = self.clock.now()
        through_api = browser is None
        if submitters is None:
            submitters = await stored.submitters_of(tx, submission.id)
        # Fields that do not apply keep no value, not even their default.
        completed_values, hidden = signer_rules.settled_values(
            submission, submitter, submitters, signer_rules.with_defaults(submission, submitter, now)
        )
        completed_values |= await values.defaults_stored(tx, self.clock, self.files, submission, submitter, hidden)
        role_fields = field_values.role_fields(submission.fields, submitter.role_uuid)
        applying = [field for field in role_fields if field["uuid"] not in hidden]
        await field_options.refuse_invalid(applying, completed_values, now.date())
        submitter = await stored.update_submitter(
            tx,
            stored.changed(
                submitter,
                completed_at=now,
                opened_at=submitter.opened_at or (None if through_api else now),
                field_values=completed_values,
                ip=browser.ip if browser else None,
                ua=browser.user_agent if browser else None,
            ),
            now,
        )
        await stored.insert_event(
            tx,
            submission_id=submission.id,
            submitter_id=submitter.id,
            event_type="api_complete_form" if through_api else "complete_form",
            data={},
            now=now,
        )
        submitters = [submitter if s.id == submitter.id else s for s in submitters]
        finished = statuses.all_signed(submission, submitters)
        last = finished and await stored.complete_submission(tx, submission.id, now)
        await produce.enqueue(tx, self.clock, submitter, last=last)
        if not finished and invite_next:
            await self.invitations.invite_due(tx, submission, submitters, account_name=account_name)
        return submitter

    async def update(
        self, principal: Principal, submitter_id: int, body: dict[str, Any]
    ) -> tuple[Submission, Submitter]:
        """PUT /submitters/{id}: fix contact details, merge values, invite, or mark completed. Answers the submitter
        as written, with its submission as the transaction read it (the fields its answer shows never change)."""
        body = body["submitter"] if isinstance(body.get("submitter"), dict) else body
        unknown = sorted(set(body) - _PUT_KEYS)
        if unknown:
            raise errors.Invalid(f"Unknown key: {unknown[0]}")
        found = await stored.submitter_with_submission(self.db, submitter_id)
        if found is None:
            raise errors.NotFound()
        submitter, submission = found
        auth.check_owner(principal, submitter.account_id, "Submitter", submitter.id)
        signer_rules.refuse_finished_by_api(submission, submitter)
        prepared, hidden = await self._prepared(submission, submitter, body)
        fields = field_values.role_fields(submission.fields, submitter.role_uuid)
        signatures = await signature_modes.given(
            self.db, fields, {"values": _raw_values(body)}, signer=False, saved=submitter.field_values, hidden=hidden
        )
        await field_options.refuse_invalid(fields, prepared.values, self.clock.now().date())
        await self.files.write(prepared.files)
        try:
            async with self.db.transaction() as tx:
                submission, submitter, submitters = await _locked(tx, submitter.submission_id, submitter.id)
                signer_rules.refuse_finished_by_api(submission, submitter)
                submitter = await self._changes_applied(tx, submission, submitter, submitters, body, prepared)
                await signature_modes.remember(tx, signatures, submitter.field_values)
                if json_fields.flag(body, "completed", False):  # the changes are written with the completion
                    return submission, await self.complete(
                        tx,
                        submission,
                        submitter,
                        browser=None,
                        submitters=submitters,
                        account_name=principal.account_name,
                    )
                submitter = await stored.update_submitter(tx, submitter, self.clock.now())
                if body.get("send_email") is True:
                    submitter = await self.invitations.invite(
                        tx, submission, submitter, account_name=principal.account_name
                    )
                return submission, submitter
        except BaseException:
            await self.files.discard(prepared.files)
            raise

    async def resend(self, principal: Principal, submitter_id: int) -> Submitter:
        """The console's "resend invitation": a new invitation email, also when one was sent before (PUT
        /submitters/{id} with `send_email` invites only a submitter never invited), to a submitter with an
        email address who has not finished and whose turn has come, while the submission is open."""
        submitter = await self.find(principal, submitter_id)
        async with self.db.transaction() as tx:
            submission, submitter, submitters = await _locked(tx, submitter.submission_id, submitter.id)
            if refusal := signer_rules.resend_refusal(submission, submitter, submitters, self.clock.now()):
                raise errors.Invalid(refusal)
            return await self.invitations.invite(tx, submission, submitter, again=True)

    async def by_slug(self, slug: str) -> email_verification.Signer | None:
        """The submitter a signing link names, if any, and whether they must verify their email address; read
        without a lock (the actions check it again)."""
        return await email_verification.signer(self.db, slug)

    async def view(self, slug: str, language: str | None = None) -> Submitter:
        """The submitter opened the form: `opened` at the first visit (a later one keeps that time), and
        `view_form` and `form.viewed` at every visit; `language`, the page's, is kept as theirs when they have none
        (`page_language_kept`)."""
        async with self.db.transaction() as tx:
            submission, submitter, _ = await self._acting(tx, slug)
            now = self.clock.now()
            submitter = page_language_kept(submission, submitter, language)
            submitter = await stored.update_submitter(
                tx, stored.changed(submitter, opened_at=submitter.opened_at or now), now
            )
            await stored.insert_event(
                tx, submission_id=submission.id, submitter_id=submitter.id, event_type="view_form", data={}, now=now
            )
            await self._event(tx, submitter, "form.viewed")
            return submitter

    async def save(
        self, slug: str, body: dict[str, Any], *, along: Along | None = None, language: str | None = None
    ) -> Submitter:
        """Saves values the submitter entered; the first save is `form.started`. `along` runs in its transaction;
        `language`, the page's, is kept as the submitter's when they have none (`page_language_kept`)."""
        return await self._with_values(slug, body, finish=None, along=along, language=language)

    async def finish(self, slug: str, body: dict[str, Any], browser: Browser) -> Submitter:
        """The submitter submits the form: required fields are checked, where they acted from recorded (and the
        page's language, as `save` keeps it)."""
        return await self._with_values(slug, body, finish=browser, language=browser.language)

    async def decline(self, slug: str, body: dict[str, Any]) -> Submitter:
        reason = json_fields.text(body, "reason", limit=1000)
        if not reason or not reason.strip():
            raise errors.at(("reason",), "is required: say why the form is declined")
        async with self.db.transaction() as tx:
            submission, submitter, _ = await self._acting(tx, slug)
            signer_rules.refuse_viewer(submission, submitter)
            now = self.clock.now()
            submitter = await stored.update_submitter(
                tx,
                stored.changed(submitter, declined_at=now, decline_reason=reason, opened_at=submitter.opened_at or now),
                now,
            )
            await stored.decline_submission(tx, submission.id, now)
            await stored.insert_event(
                tx,
                submission_id=submission.id,
                submitter_id=submitter.id,
                event_type="decline_form",
                data={"reason": reason},
                now=now,
            )
            await self._event(tx, submitter, "form.declined")
            return submitter

    async def redirect_url(self, submitter: Submitter, event: str) -> str | None:
        """Where the signing form sends the submitter after completing or declining, if anywhere."""
        submission = await stored.submission_of(self.db, submitter)
        settings: Preferences = {**submission.preferences, **submitter.preferences}
        redirect = settings.get("completed_redirect_url")
        if not redirect:
            return None
        return redirect + ("&" if "?" in redirect else "?") + urlencode({"event": event})

    async def _with_values(
        self,
        slug: str,
        body: dict[str, Any],
        finish: Browser | None,
        along: Along | None = None,
        language: str | None = None,
    ) -> Submitter:
        # Read outside a transaction: only to check the values before their files are made; the
        # transaction checks everything again.
        submission, submitter, others = await self._acting(self.db, slug)
        named = submitter
        signer_rules.refuse_viewer(submission, submitter)
        fields = field_values.role_fields(submission.fields, submitter.role_uuid)
        prepared, hidden = await self._applying(submission, submitter, others, fields, body.get("values", {}))
        signer_rules.refuse_readonly(fields, prepared)
        await field_options.refuse_invalid(fields, prepared.values, self.clock.now().date())
        typed = await signature_modes.typed_allowed(self.db, submission.account_id)
        reasons_asked = await signature_modes.reasons_asked(self.db, submission.account_id)
        signatures = await signature_modes.given(
            self.db,
            fields,
            body,
            signer=True,
            typed_allowed=typed,
            reasons_by_account=reasons_asked,
            saved=submitter.field_values,
            hidden=hidden,
        )
        await self.files.write(prepared.files)
        try:
            async with self.db.transaction() as tx:
                submission, submitter, submitters = await self._acting(tx, slug, named=named)
                submitter = await self._values_saved(tx, submission, submitter, submitters, prepared, signatures)
                submitter = page_language_kept(submission, submitter, language)
                await signature_modes.remember(tx, signatures, submitter.field_values)
                if along is not None:
                    await along(tx, submitter)
                if finish is None:
                    return await stored.update_submitter(tx, submitter, self.clock.now())
                signer_rules.require_fields(submission, submitter, submitters)  # written with the completion
                await signature_modes.require_reasons(tx, fields, submitter.field_values, by_account=reasons_asked)
                return await self.complete(tx, submission, submitter, browser=finish, submitters=submitters)
        except BaseException:
            await self.files.discard(prepared.files)
            raise

    async def _values_saved(
        self,
        tx: Connection,
        submission: Submission,
        submitter: Submitter,
        submitters: list[Submitter],
        prepared: PreparedValues,
        signatures: signature_modes.Given,
    ) -> Submitter:
        """The submitter with the values entered and the signing reasons given with them (not yet written; their
        files recorded, those replaced forgotten); the first save records `start_form` and `form.started`."""
        now = self.clock.now()
        before = submitter.field_values
        saved = {
            **before,
            **await values.record(tx, self.clock, self.files, submission, submitter, prepared, self.signer),
        }
        saved = signature_modes.with_reasons(signatures, before, saved)
        saved = condition_values.applying(submission, submitter, submitters, saved)
        first_save = submitter.started_at is None
        submitter = stored.changed(
            submitter, field_values=saved, opened_at=submitter.opened_at or now, started_at=submitter.started_at or now
        )
        await values.settle(tx, self.files, submission, submitter, before, submitters, self.signer)
        if first_save:
            await stored.insert_event(
                tx, submission_id=submission.id, submitter_id=submitter.id, event_type="start_form", data={}, now=now
            )
            await self._event(tx, submitter, "form.started")
        return submitter

    async def _acting(
        self, conn: Connection, slug: str, *, named: Submitter | None = None
    ) -> tuple[Submission, Submitter, list[Submitter]]:
        """The submission and submitter a signing link names, locked (in a transaction), when the submitter may
        act now; with all the submission's submitters. `named`: the submitter the link named when read before
        (a link names one submitter for good), not looked up again."""
        found = named or await stored.find_submitter_by_slug(conn, slug)
        if found is None:
            raise errors.NotFound(LINK_NOT_FOUND)
        # A submitter named earlier and deleted since: the link no longer names anyone.
        submission, submitter, submitters = await _locked(
            conn, found.submission_id, found.id, LINK_NOT_FOUND if named else None
        )
        if submitter.completed_at:
            raise errors.Invalid("Form has been completed already.")
        if submitter.declined_at:
            raise errors.Invalid("Form has been declined.")
        if submission.archived_at:
            raise errors.Invalid("Form has been archived.")
        status = statuses.submission_status(submission, self.clock.now())
        if status != "pending":
            raise errors.Invalid(f"Form has been {status}.")
        if not statuses.turn_has_come(submission, submitter, submitters):
            raise errors.Invalid("It is not this signer's turn yet: the signers before them have not completed")
        return submission, submitter, submitters

    async def _prepared(
        self, submission: Submission, submitter: Submitter, body: dict[str, Any]
    ) -> tuple[PreparedValues, set[str]]:
        """The values a PUT merges: `values`, and `fields: [{name, default_value}]` (the other prefill route), and
        the fields that do not apply, as `_applying` gives them."""
        if body.get("values") is None and body.get("fields") is None:
            return PreparedValues(), set()
        if body.get("values") is not None and not isinstance(body["values"], dict):
            raise errors.located(f"values {errors.must_be(dict)}", (), "values")
        fields = field_values.role_fields(submission.fields, submitter.role_uuid)
        conditioned = condition_values.has_conditions(submission)
        others = await stored.submitters_of(self.db, submission.id) if conditioned else []
        return await self._applying(submission, submitter, others, fields, _raw_values(body))

    async def _applying(
        self, submission: Submission, submitter: Submitter, others: list[Submitter], fields: list[Field], raw: Any
    ) -> tuple[PreparedValues, set[str]]:
        """`raw` values of the role's `fields` prepared, and the fields that do not apply once they are saved: a
        value sent for one is dropped, on the signer's saves as through the API, its signature's mode and reason
        (sent with it or alone) not judged and its file never written."""
        hidden: set[str] = set()
        if condition_values.has_conditions(submission):
            given = {**submitter.field_values, **field_values.prefill(fields, raw, ("values",))}
            hidden = condition_values.hidden(submission, submitter, others, given)
        prepared = await values.prepare(self.ingest, fields, raw, ("values",), unchecked_modes=hidden)
        return prepared, condition_values.prepared_applying(submission, submitter, others, prepared)

    async def _changes_applied(
        self,
        tx: Connection,
        submission: Submission,
        submitter: Submitter,
        submitters: list[Submitter],
        body: dict[str, Any],
        prepared: PreparedValues,
    ) -> Submitter:
        """The submitter with the changes of a PUT (not yet written); the files of its values recorded, those
        replaced forgotten."""
        changes: dict[str, Any] = {}
        for key in ("name", "email", "phone"):
            if key in body:
                changes[key] = json_fields.text(body, key, limit=255) or None
        if "email" in changes:
            changes["email"] = inputs.checked_email(changes["email"], "email", ())
        if "phone" in changes:
            changes["phone"] = inputs.checked_phone(changes["phone"], ())
        if "external_id" in body or "application_key" in body:
            changes["external_id"] = inputs.external_id(body, ())
        if "metadata" in body:
            if not isinstance(body["metadata"], dict):
                raise errors.located(f"metadata {errors.must_be(dict)}", (), "metadata")
            if problem := json_fields.free_object_problem(body["metadata"]):
                raise errors.located(f"metadata {problem}", (), "metadata")
            changes["metadata"] = body["metadata"]
        settings = {**submitter.preferences, **inputs.preferences(body, ("submitter",))}
        if "send_email" in body:
            settings["send_email"] = json_fields.flag(body, "send_email")
        changes["preferences"] = settings
        recorded = await values.record(tx, self.clock, self.files, submission, submitter, prepared, self.account)
        # A signature given through the API asks no reason: the one kept for the signature it replaces goes.
        merged = signing_reasons.follow(submitter.field_values, {**submitter.field_values, **recorded})
        changes["field_values"] = condition_values.applying(submission, submitter, submitters, merged)
        changed = stored.changed(submitter, **changes)
        await values.settle(tx, self.files, submission, changed, submitter.field_values, submitters, self.account)
        return changed

    async def _event(self, tx: Connection, submitter: Submitter, event_type: str) -> None:
        await events.record(
            tx,
            self.clock,
            account_id=submitter.account_id,
            event_type=event_type,
            record_type="submitter",
            record_id=submitter.id,
        )


def page_language_kept(submission: Submission, submitter: Submitter, language: str | None) -> Submitter:
    """The submitter keeping `language`, that of the signing page they act on, when neither they nor their
    submission has one: their later emails (a reminder, the completed copy) and the audit log then speak the
    language they read the form in. One set through the API, or kept before, stays."""
    if not language or any(stated_languages(submission, submitter)):
        return submitter
    return stored.changed(submitter, preferences={**submitter.preferences, "language": language})


def _raw_values(body: dict[str, Any]) -> dict[str, Any]:
    """The values a PUT gives: `values`, and `fields: [{name, default_value}]` (the other prefill route)."""
    if body.get("values") is None and body.get("fields") is None:
        return {}
    return {**inputs.fields_values(body, ("submitter",)), **(body.get("values") or {})}


async def _locked(
    conn: Connection, submission_id: int, submitter_id: int, not_found: str | None = None
) -> tuple[Submission, Submitter, list[Submitter]]:
    """The submitter's submission locked, then the submitter and all submitters as they are now (404, saying
    `not_found` when given, once deleted)."""
    submission = await stored.lock_submission(conn, submission_id)
    submitters = await stored.submitters_of(conn, submission_id) if submission else []
    submitter = next((s for s in submitters if s.id == submitter_id), None)
    if submission is None or submitter is None:
        raise errors.NotFound(not_found)
    return submission, submitter, submitters
