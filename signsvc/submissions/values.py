"""A submitter's field values from input: checked per field type, their files made and stored.

Files (signatures, images, uploads) are fetched, decoded and drawn before the transaction, written
to the content store, and recorded as the submission's attachments inside it; a value then holds the
file's uuid. A refused transaction leaves no file behind (`Files.discard`).

A value may also name a file already stored, by its id. The account (through the API) may name any file of its
own; a signer only a file they gave themselves (one of the submission's files recorded for this submitter, or one
their values already name) or one the submission's fields' defaults name: never another signer's file, whose id
the next signer sees (a signature of the first signer must not become the second's). Anything else is a 422: a file
id is no secret, every link shows one. A file named from outside the submission is recorded again as the
submission's own; so is a default that names a file, when completion applies it (`defaults_stored`). A file a
new value replaced goes (its record and, unless shared, its content) when nothing else of the submission names
it, and a submitter's files together stay within a bound.
"""

from __future__ import annotations

from collections.abc import Container
from dataclasses import dataclass, field
from typing import Any

import storage.submissions as stored
from signsvc.infra import errors
from signsvc.infra.clock import Clock
from signsvc.infra.files import Files, NewFile
from signsvc.submissions import attachments, field_values, signature_modes
from signsvc.templates.documents import Ingest
from storage import Connection
from storage.records import Attachment, Submission, Submitter
from storage.shapes import Field, FieldValues

_SOURCES = (field_values.Upload, field_values.Typed)  # values that become files
_STORED = (NewFile, field_values.FileId)  # values that name a file once recorded
DEFAULT_UPLOADS_LIMIT = 50 * 1024 * 1024  # a submitter's files together, in bytes (SIGNSVC_SUBMITTER_UPLOADS_BYTES)


@dataclass
class PreparedValues:
    """Checked values by field uuid; a file value is still a `NewFile` or a `FileId` (or a list of them)."""

    values: dict[str, Any] = field(default_factory=dict)
    files: list[NewFile] = field(default_factory=list)
    where: errors.Location = ()  # where the values were given, for messages
    fields: dict[str, Field] = field(default_factory=dict)  # the role's fields by uuid


@dataclass(frozen=True)
class Namer:
    """Who gives the values: the account itself (any file of its own may be named) or a signer (only files they gave
    themselves or the submission's fields' defaults name); and how many bytes a submitter's files may take together
    (0: no bound)."""

    signer: bool
    uploads_limit: int = DEFAULT_UPLOADS_LIMIT


async def prepare(
    ingest: Ingest, fields: list[Field], raw: Any, where: errors.Location, *, unchecked_modes: Container[str] = ()
) -> PreparedValues:
    """`raw` values of the role's `fields` checked, their files made (not yet stored). `unchecked_modes`: fields
    whose signature mode is not checked (they do not apply: their values are dropped)."""
    prepared = PreparedValues(where=where, fields={f["uuid"]: f for f in fields})
    by_uuid = prepared.fields
    for uuid, value in field_values.prefill(fields, raw, where).items():
        if uuid not in unchecked_modes:
            signature_modes.refuse(by_uuid[uuid], value, where)  # a mode the field's format does not take
        if isinstance(value, list) and any(isinstance(item, _SOURCES) for item in value):
            made = [await _made(ingest, item, by_uuid[uuid], where) for item in value]
            prepared.files += [item for item in made if isinstance(item, NewFile)]
            prepared.values[uuid] = made
        elif isinstance(value, _SOURCES):
            prepared.values[uuid] = file = await attachments.store(ingest, value, by_uuid[uuid], where)
            prepared.files.append(file)
        else:
            prepared.values[uuid] = value
    return prepared


async def _made(ingest: Ingest, item: object, field: Field, where: errors.Location) -> object:
    if isinstance(item, _SOURCES):
        return await attachments.store(ingest, item, field, where)
    return item


def names_files(prepared: PreparedValues) -> bool:
    """Whether any value is a file to record or a file named by id (the values are written once those are)."""
    return any(
        isinstance(item, _STORED)
        for value in prepared.values.values()
        for item in (value if isinstance(value, list) else [value])
    )


async def record(
    tx: Connection,
    clock: Clock,
    files: Files,
    submission: Submission,
    submitter: Submitter,
    prepared: PreparedValues,
    namer: Namer,
) -> FieldValues:
    """The values as stored: each new file recorded as an attachment of the submitter's submission, each file
    named by id checked (422 naming the field) and made the submission's own."""
    # The submission's files matter only to values that are files (plain values, the common case, read nothing).
    attached = await stored.attachments_of(tx, submission.id) if names_files(prepared) else []
    held = {a.uuid for a in attached}
    namable = _namable_by_signer(submission, submitter, attached) if namer.signer else None
    stored_values: FieldValues = {}
    for uuid, value in prepared.values.items():
        items = value if isinstance(value, list) else [value]
        if items and all(isinstance(item, _STORED) for item in items):
            made = [
                await _stored(tx, clock, files, submission, submitter, prepared, uuid, item, namable, held)
                for item in items
            ]
            value = made if isinstance(value, list) else made[0]
        stored_values[uuid] = value
    return stored_values


def _namable_by_signer(submission: Submission, submitter: Submitter, attached: list[Attachment]) -> set[str]:
    """The files a signer may name: the submission's files recorded for this submitter or named by their values
    already, and those the fields' defaults name. Never another signer's: their signature's id is on the form."""
    own = {a.uuid for a in attached if a.submitter_id == submitter.id}
    named = _named_by(submission, submitter.field_values) & {a.uuid for a in attached}
    return own | named | defaults_named(submission)


async def _stored(
    tx: Connection,
    clock: Clock,
    files: Files,
    submission: Submission,
    submitter: Submitter,
    prepared: PreparedValues,
    field_uuid: str,
    item: object,
    namable: set[str] | None,
    held: set[str],
) -> str:
    """A file value as stored: a new file recorded, a named one checked. `namable`: the files a signer may name
    (None: the account, any file of its own)."""
    if isinstance(item, NewFile):
        blob = await files.record(tx, submitter.account_id, item)
        await _attach(tx, clock, submitter, blob.id)
        return blob.uuid
    assert isinstance(item, field_values.FileId)
    allowed = namable is None or item.uuid in namable
    found = (await files.owned(tx, submission.account_id, [item.uuid])).get(item.uuid) if allowed else None
    field = prepared.fields[field_uuid]
    if found is None:
        whose = (
            "a file of this account" if namable is None else "a file this signer uploaded or one a field default names"
        )
        raise errors.located(f"{field['name']}: the file {item.uuid} is not {whose}", prepared.where)
    if field["type"] != "file" and not found.content_type.startswith("image/"):
        raise errors.located(f"{field['name']}: the file {item.uuid} is not an image", prepared.where)
    if item.uuid in held:  # the submission's own already
        return item.uuid
    copy = await files.copy(tx, found.id)
    await _attach(tx, clock, submitter, copy.id)
    held.add(copy.uuid)
    return copy.uuid


async def defaults_stored(
    tx: Connection,
    clock: Clock,
    files: Files,
    submission: Submission,
    submitter: Submitter,
    hidden: set[str] | frozenset[str] = frozenset(),
) -> FieldValues:
    """The values completion takes from defaults that name files, for the submitter's fields left without a value:
    each file recorded again as the submission's own, as a value naming it is, so the signed documents and the
    audit log show it. A file not the account's (a default stored before defaults were checked), or not an image
    where one is drawn, is left out; so are the `hidden` fields (conditions: they do not apply)."""
    found: FieldValues = {}
    for role_field in field_values.role_fields(submission.fields, submitter.role_uuid):
        default = role_field.get("default_value")
        named = field_values.named_files(role_field, default)
        if not named or role_field["uuid"] in submitter.field_values or role_field["uuid"] in hidden:
            continue
        owned = await files.owned(tx, submission.account_id, named)
        copies = []
        for uuid in named:
            blob = owned.get(uuid) if isinstance(uuid, str) else None
            if blob is not None and (role_field["type"] == "file" or blob.content_type.startswith("image/")):
                copy = await files.copy(tx, blob.id)
                await _attach(tx, clock, submitter, copy.id)
                copies.append(copy.uuid)
        if copies:
            found[role_field["uuid"]] = copies if isinstance(default, list) else copies[0]
    return found


async def _attach(tx: Connection, clock: Clock, submitter: Submitter, blob_id: int) -> None:
    await stored.insert_attachment(
        tx, submission_id=submitter.submission_id, submitter_id=submitter.id, blob_id=blob_id, now=clock.now()
    )


async def settle(
    tx: Connection,
    files: Files,
    submission: Submission,
    submitter: Submitter,
    before: FieldValues,
    submitters: list[Submitter],
    namer: Namer,
) -> None:
    """After `submitter`'s values changed from `before` (not yet written: `submitters` holds the others as they
    are): the submission's files those values named and nothing of the submission names any more are forgotten
    (their contents go unless another record shares them); then the submitter's files must keep within
    `namer.uploads_limit` together (413)."""
    attached = await stored.attachments_of(tx, submission.id)
    current = [submitter, *(s for s in submitters if s.id != submitter.id)]
    still = defaults_named(submission) | {named for s in current for named in _named_by(submission, s.field_values)}
    gone = _named_by(submission, before) - still
    replaced = [a for a in attached if a.uuid in gone]
    for attachment in replaced:
        await stored.delete_attachment(tx, submission.id, attachment.blob_id)
    await files.delete(tx, [a.blob_id for a in replaced])
    _within_limit([a for a in attached if a.submitter_id == submitter.id and a.uuid not in gone], namer)


def _named_by(submission: Submission, given: FieldValues) -> set[str]:
    return {
        named
        for f in submission.fields
        for named in field_values.named_files(f, given.get(f["uuid"]))
        if isinstance(named, str)
    }


def _within_limit(own: list[Attachment], namer: Namer) -> None:
    total = sum(a.byte_size for a in own)
    if namer.uploads_limit and total > namer.uploads_limit:
        raise errors.PayloadTooLarge(
            f"The files given for this signer would take {_mib(total)} together, more "
            f"than the {_mib(namer.uploads_limit)} allowed: remove or replace some"
        )


def _mib(size: int) -> str:
    return f"{size / 1024 / 1024:.1f} MiB"


def defaults_named(submission: Submission) -> set[str]:
    """The files the submission's fields' defaults name (checked as the account's when the template was saved)."""
    return {
        named
        for f in submission.fields
        for named in field_values.named_files(f, f.get("default_value"))
        if isinstance(named, str)
    }
