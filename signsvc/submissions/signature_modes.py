"""How a signature may be made (`preferences.format` of a signature field, and the account's setting that allows
typed signatures), how each one given was made, and its signing reason (`preferences.reasons`, or the account's
setting that asks one of every signature: the form's default reasons and "Other", the signer's own words).

A signature is drawn on the pad, typed (text the service draws in a handwriting-like font) or uploaded (a
picture). Text is typed by its nature; an image may be drawn or uploaded, which only the form can tell: it says so
in the body's `signatures` (`{field uuid: {"mode": "drawn" | "upload", "reason": "..."}}`). An image given through
the API, which does not say, counts as either. Initials take every mode, as the reference's form offers them.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Container, Mapping
from dataclasses import dataclass, field
from typing import Any

from signsvc.infra import errors
from signsvc.submissions import caption_settings, field_values, signing_reasons
from signsvc.submissions.field_values import FileId, Typed, Upload
from storage import Connection, account_settings
from storage import files as stored_files
from storage import signature_modes as stored
from storage.records import Submitter
from storage.shapes import Field, FieldValues

DRAWN, TYPED, UPLOAD = "drawn", "typed", "upload"
MODES = (DRAWN, TYPED, UPLOAD)
# The reference's table, by `preferences.format` (`signature_preferences.FORMATS`; None: unset).
FORMATS: dict[str | None, tuple[str, ...]] = {
    None: (DRAWN, TYPED, UPLOAD),
    "drawn": (DRAWN,),
    "typed": (TYPED,),
    "drawn_or_typed": (DRAWN, TYPED),
    "drawn_or_upload": (DRAWN, UPLOAD),
    "upload": (UPLOAD,),
    "typed_or_upload": (TYPED, UPLOAD),
}
# Where typing also needs the account's setting: where the field offers it among others, not where it is the point.
_TYPED_BY_SETTING = {None, "drawn_or_typed"}
SIGNED = ("signature", "initials")
TYPED_SETTING = "allow_typed_signature"
ID_SETTING = "with_signature_id"
REASON_SETTING = "require_signing_reason"
REASON_LIMIT = 200  # of a reason given, the signer's own words included
# Kept out of the signer's own words, which are drawn on one line: bidirectional overrides and isolates (which
# would turn the rest of the line around), and invisible characters that a text of nothing else would pass as one.
# The zero-width joiner and non-joiner stay: some scripts write words with them.
_HIDDEN_MARKS = frozenset({0x200B, 0x2060, 0xFEFF, *range(0x202A, 0x202F), *range(0x2066, 0x206A)})
IMAGE = "drawn or uploaded"  # an image whose making nobody told (given through the API)
_SAID = {
    DRAWN: "a drawn signature",
    TYPED: "a typed signature",
    UPLOAD: "an uploaded signature",
    IMAGE: "a drawn or uploaded signature",
}


def format_of(field: Field) -> str | None:
    """A signature field's format; None (every mode) for initials, and for a format the table does not know."""
    found = (field.get("preferences") or {}).get("format") if field["type"] == "signature" else None
    return found if isinstance(found, str) and found in FORMATS else None


def modes(field: Field, *, typed_allowed: bool = True) -> tuple[str, ...]:
    """The modes a signature or initials field takes, in the order the form offers them (the first is shown)."""
    format = format_of(field)
    found = FORMATS[format]
    if not typed_allowed and field["type"] == "signature" and format in _TYPED_BY_SETTING:
        found = tuple(mode for mode in found if mode != TYPED)
    return found


def offers_phone(field: Field, *, typed_allowed: bool = True) -> bool:
    """Whether the form offers to draw the field on a phone: where it may be drawn."""
    return field["type"] in SIGNED and DRAWN in modes(field, typed_allowed=typed_allowed)


def reasons(field: Field) -> list[str]:
    """The signing reasons a signature field lists itself (`preferences.reasons`), the only ones it takes."""
    found = (field.get("preferences") or {}).get("reasons") if field["type"] == "signature" else None
    return [str(reason) for reason in found if isinstance(reason, str) and reason.strip()] if found else []


def asks_reason(field: Field, *, by_account: bool) -> bool:
    """Whether the form asks a signing reason for the field: it lists reasons, or the account asks one of every
    signature (`by_account`); never for a read-only field, whose signature the signer does not give."""
    return field["type"] == "signature" and not field.get("readonly") and (bool(reasons(field)) or by_account)


def takes_own_reason(field: Field, *, by_account: bool) -> bool:
    """Whether the field takes any reason the signer gives: asked by the account's setting, it offers the default
    reasons and "Other" with the signer's own words, as the reference; a field's own list is the only choice."""
    return asks_reason(field, by_account=by_account) and not reasons(field)


def with_signature_id(field: Field, *, by_default: bool = False) -> bool:
    """Whether the signature's id is drawn beside it: the field's own `with_signature_id` when true or false, else
    the account's setting (`by_default`)."""
    own = (field.get("preferences") or {}).get("with_signature_id")
    return field["type"] == "signature" and (own if isinstance(own, bool) else by_default)


def refuse(field: Field, value: object, where: errors.Location) -> None:
    """A 422 naming the field when a value (as `field_values.normalize` gives it) is of a mode the field's format
    does not take: text where a drawing or a picture is asked, a new picture where typing is. A file named by id is
    judged by how it was made, in `given`."""
    if field["type"] not in SIGNED or value is None:
        return
    taken = modes(field)
    if isinstance(value, Typed) and TYPED not in taken:
        raise _not_taken(field, TYPED, taken, where)
    if isinstance(value, Upload) and not {DRAWN, UPLOAD} & set(taken):
        raise _not_taken(field, IMAGE, taken, where)


def _not_taken(field: Field, made_as: str, taken: tuple[str, ...], where: errors.Location) -> errors.Invalid:
    return errors.located(f"{_name(field)}: {_SAID[made_as]} is not allowed here, only {' or '.join(taken)}", where)


def _name(field: Field) -> str:
    """The field as messages name it: its name, or its kind for an unnamed one."""
    return field.get("name") or f"{field['type'].capitalize()} Field"


async def typed_allowed(conn: Connection, account_id: int) -> bool:
    """The account's setting that lets signers type a signature where the field offers it among others (on unless
    turned off)."""
    return await account_settings.get(conn, account_id, TYPED_SETTING) is not False


async def allow_typed(conn: Connection, account_id: int, allowed: bool) -> None:
    await account_settings.put(conn, account_id, TYPED_SETTING, None if allowed else False)


async def ids_by_default(conn: Connection, account_id: int) -> bool:
    """The account's setting that draws the signature's id beside every signature whose field does not say (off
    unless turned on)."""
    return await account_settings.get(conn, account_id, ID_SETTING) is True


async def draw_ids_by_default(conn: Connection, account_id: int, on: bool) -> None:
    await account_settings.put(conn, account_id, ID_SETTING, True if on else None)


async def reasons_asked(conn: Connection, account_id: int) -> bool:
    """The account's setting that asks a signing reason of every signature field the signer's form shows (off
    unless turned on)."""
    return await account_settings.get(conn, account_id, REASON_SETTING) is True


async def ask_reasons(conn: Connection, account_id: int, on: bool) -> None:
    await account_settings.put(conn, account_id, REASON_SETTING, True if on else None)


@dataclass(frozen=True)
class Given:
    """What a save says of its signatures: how each new one was made (None: not told), the reasons chosen, and the
    signature fields the signer gave a new signature (each then asks its reason, where its field asks one)."""

    made_as: dict[str, str | None] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)
    signed: list[str] = field(default_factory=list)


async def given(
    conn: Connection,
    fields: list[Field],
    body: Mapping[str, Any],
    *,
    signer: bool,
    typed_allowed: bool = True,
    reasons_by_account: bool = False,
    saved: FieldValues | None = None,
    hidden: Container[str] = (),
) -> Given:
    """The signatures a save gives, checked: each of a mode its field takes (for a signer, typing also as the
    account allows), each reason one the field takes (`reasons_by_account`: the account asks one of every
    signature). A file named by id counts as it was made; a signer's file with no recorded making counts as
    uploaded. A signer's new image for a field that takes only one of drawn and uploaded must say which it is. A
    value the field already holds (`saved`) is not judged again, nor what is said of a `hidden` field (it does not
    apply: its value is dropped). 422 naming the field otherwise. A reason for a field that asks none (as the
    form may send one the account asked when it was opened) is left out, not refused; so is an empty one."""
    by_uuid = {f["uuid"]: f for f in fields}
    notes = _notes(body.get("signatures"), by_uuid) if signer else {}
    values = field_values.prefill(fields, body.get("values"), ("values",))
    values = {uuid: value for uuid, value in values.items() if uuid not in hidden}
    origins = await stored.origins(conn, [v.uuid for v in values.values() if isinstance(v, FileId)])
    found = Given()
    for uuid, value in values.items():
        target = by_uuid[uuid]
        if target["type"] not in SIGNED or value is None or _unchanged(value, (saved or {}).get(uuid)):
            continue
        made_as = _made_as(target, value, notes.get(uuid, {}).get("mode"), origins, signer=signer)
        taken = modes(target, typed_allowed=typed_allowed or not signer)
        if made_as is None and signer and (DRAWN in taken) != (UPLOAD in taken):
            raise errors.located(
                f"{_name(target)}: say how the signature was made (mode: drawn or upload)", ("signatures",)
            )
        if made_as not in taken and (made_as is not None or not {DRAWN, UPLOAD} & set(taken)):
            raise _not_taken(target, made_as or IMAGE, taken, ("values",))
        found.made_as[uuid] = made_as
        if signer and target["type"] == "signature":
            found.signed.append(uuid)
    for uuid, note in notes.items():
        target = by_uuid[uuid]
        if note.get("reason") and uuid not in hidden and asks_reason(target, by_account=reasons_by_account):
            found.reasons[uuid] = _taken_reason(target, note["reason"], by_account=reasons_by_account)
    return found


def _taken_reason(field: Field, reason: str, *, by_account: bool) -> str:
    """The reason as kept: one of the field's own list as written, or the signer's own words made plain (one
    line, to be drawn beside the signature)."""
    if not takes_own_reason(field, by_account=by_account):
        if reason not in reasons(field):
            raise errors.located(
                f"{_name(field)}: choose a signing reason of: {', '.join(reasons(field))}", ("signatures",)
            )
        return reason
    plain = _plain(reason)
    if not plain:
        raise errors.located(f"{_name(field)}: the signing reason is empty: choose one or type it", ("signatures",))
    if len(plain) > REASON_LIMIT:
        raise errors.located(
            f"{_name(field)}: the signing reason is longer than {REASON_LIMIT} characters", ("signatures",)
        )
    return plain


def _plain(words: str) -> str:
    """The signer's words on one line: runs of spaces and line breaks made one space, control characters and
    `_HIDDEN_MARKS` left out."""
    kept = (
        char
        for char in words
        if char.isspace() or (unicodedata.category(char) != "Cc" and ord(char) not in _HIDDEN_MARKS)
    )
    return " ".join("".join(kept).split())


def _unchanged(value: object, saved: object) -> bool:
    return isinstance(value, FileId) and value.uuid == saved


def _made_as(
    field: Field, value: object, declared: str | None, origins: dict[str, stored.SignatureOrigin], *, signer: bool
) -> str | None:
    if isinstance(value, Typed):
        if declared not in (None, TYPED):
            raise errors.located(f"{_name(field)}: text is a typed signature, not {declared}", ("signatures",))
        return TYPED
    if declared == TYPED:
        raise errors.located(f"{_name(field)}: a typed signature is given as text", ("signatures",))
    if isinstance(value, FileId):
        origin = origins.get(value.uuid)
        if origin is not None and origin.made_as:
            return origin.made_as
        return UPLOAD if signer else None  # a signer's file of no told making came from an image or file field
    return declared


def _notes(raw: object, by_uuid: dict[str, Field]) -> dict[str, dict[str, str]]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise errors.located(f"signatures {errors.must_be(dict)}", (), "signatures")
    notes = {}
    for key, note in raw.items():
        target = next(iter(field_values.find(list(by_uuid.values()), str(key))), None)  # by uuid or name, as values
        if target is None or target["type"] not in SIGNED:
            raise errors.located(f"Unknown signature field: {key}", ("signatures",))
        uuid = target["uuid"]
        if not isinstance(note, dict):
            raise errors.located(f"{_name(target)} {errors.must_be(dict)}", ("signatures",))
        mode, reason = note.get("mode"), note.get("reason")
        if mode is not None and mode not in (DRAWN, UPLOAD, TYPED):
            raise errors.located(f"{_name(target)}: mode must be one of: drawn, typed, upload", ("signatures",))
        if reason is not None and not isinstance(reason, str):
            raise errors.located(f"{_name(target)}: reason {errors.must_be(str)}", ("signatures",))
        notes[uuid] = {key: value for key, value in (("mode", mode), ("reason", reason)) if value is not None}
    return notes


async def remember(tx: Connection, found: Given, saved: FieldValues) -> None:
    """Records how each new signature was made, on the files the saved values name."""
    for uuid, made_as in found.made_as.items():
        value = saved.get(uuid)
        if made_as and isinstance(value, str) and field_values.is_file_id(value):
            await stored.put_origin(tx, value, made_as, None)


def with_reasons(found: Given, before: FieldValues, after: FieldValues) -> FieldValues:
    """The values `after` a save, the reasons chosen in it kept beside their signatures (`signing_reasons.follow`:
    each new signature the signer gave awaits its reason, a replaced one's reason goes)."""
    return signing_reasons.follow(before, after, signed=found.signed, reasons=found.reasons)


def reason_of(field: Field, values: FieldValues, origins: Mapping[str, stored.SignatureOrigin]) -> str | None:
    """The signing reason of a signed field: kept beside its value, else (signed before reasons were kept so) on
    its file."""
    if (kept := signing_reasons.kept(field, values)) is not None:
        return kept
    origin = origins.get(str(values.get(field["uuid"])))
    return origin.reason if origin and origin.reason else None


async def require_reasons(conn: Connection, fields: list[Field], values: FieldValues, *, by_account: bool) -> None:
    """At completion: each field that asks a reason (`asks_reason`) and holds a signature the signer gave in the
    form has one (422 naming the field). A signature given through the API asks none."""
    asking = [
        f
        for f in fields
        if asks_reason(f, by_account=by_account)
        and isinstance(values.get(f["uuid"]), str)
        and signing_reasons.by_signer(f, values)
    ]
    origins = await stored.origins(conn, [str(values[f["uuid"]]) for f in asking])
    for target in asking:
        if reason_of(target, values, origins) is None:
            raise errors.located(f"{_name(target)}: choose a signing reason", ("signatures",))


_PANES = {DRAWN: "draw", TYPED: "type", UPLOAD: "upload"}


async def form_options(conn: Connection, account_id: int, fields: list[Field], saved: FieldValues) -> dict[str, Any]:
    """What the form offers on each signature and initials step: its modes (and the pane shown first), whether it
    offers the phone, the field's own signing reasons or the default ones with "Other" (`own_reason`: the catalogue
    words them; none for a read-only field), the reason kept for the saved signature, and whether that signature
    was given through the API (`prefilled`: it asks no reason until the signer signs again)."""
    typed = await typed_allowed(conn, account_id)
    by_account = await reasons_asked(conn, account_id)
    signed = [f for f in fields if f["type"] in SIGNED]
    origins = await stored.origins(conn, [str(v) for f in signed if field_values.is_file_id(v := saved.get(f["uuid"]))])
    options = {}
    for target in signed:
        taken = modes(target, typed_allowed=typed)
        options[target["uuid"]] = {
            "modes": list(taken),
            "first": _PANES[TYPED if target["type"] == "initials" and TYPED in taken else taken[0]],  # as the reference
            "phone": DRAWN in taken and not target.get("readonly"),
            "reasons": reasons(target) if asks_reason(target, by_account=by_account) else [],
            "own_reason": takes_own_reason(target, by_account=by_account),
            "reason_limit": REASON_LIMIT,
            "reason": reason_of(target, saved, origins),
            "prefilled": asks_reason(target, by_account=by_account)
            and field_values.is_file_id(saved.get(target["uuid"]))
            and not signing_reasons.by_signer(target, saved),
        }
    return options


async def captions(conn: Connection, fields: list[Field], submitters: list[Submitter]) -> dict[str, list[str]]:
    """The text drawn beside each signature whose field asks `with_signature_id`: `ID: <the signature's file id>`,
    then `Reason: <reason>` or `Digitally signed by <name> <email>` (unless the account turned that line off), then
    when the signature was saved (or when the signer completed, as the account's `caption_settings` say)."""
    by_role = {s.role_uuid: s for s in submitters if s.completed_at}
    by_default = bool(submitters) and await ids_by_default(conn, submitters[0].account_id)
    wanted = [
        (target, signer, value)
        for target in fields
        if with_signature_id(target, by_default=by_default)
        and (signer := by_role.get(str(target.get("submitter_uuid"))))
        and field_values.is_file_id(value := signer.field_values.get(target["uuid"]))
    ]
    if not wanted:
        return {}
    uuids = [str(value) for _, _, value in wanted]
    origins = await stored.origins(conn, uuids)
    saved_at = {
        blob.uuid: blob.created_at for blob in await stored_files.account_blobs(conn, wanted[0][1].account_id, uuids)
    }
    settings = await caption_settings.of(conn, wanted[0][1].account_id)
    found = {}
    for target, signer, value in wanted:
        reason = reason_of(target, signer.field_values, origins)
        who = " ".join(part for part in (signer.name, signer.email) if part)
        said = f"Reason: {reason}" if reason else f"Digitally signed by {who}".rstrip()
        at = signer.completed_at if settings.completed_at else saved_at.get(str(value)) or signer.completed_at
        assert at is not None
        lines = [f"ID: {value}", said] if settings.reason else [f"ID: {value}"]
        found[target["uuid"]] = [*lines, caption_settings.timestamp(at, settings)]
    return found
