"""Clickwraps and consents: an agreement accepted with a click, published in
immutable numbered versions, and the recorded acceptances of its active version.

The clickwrap row holds the editable draft; each publish freezes the draft as version N+1 and makes
it active. Content is plain text: it is stored and returned as sent, never rendered as HTML.
"""

from __future__ import annotations

import uuid
from typing import Any

import storage.clickwraps as stored
import storage.templates as stored_templates
from signsvc.accounts import auth
from signsvc.infra import errors, json_fields, tokens
from signsvc.infra.clock import Clock
from signsvc.submissions import visitors
from signsvc.webhooks import events
from storage import Connection, Database
from storage.records import MAX_ID, Clickwrap, Consent, Principal, Template

KINDS = ("no_document", "view_only", "requires_signature")
WITH_DOCUMENT = {"view_only", "requires_signature"}
DEFAULT_BUTTON_TEXT = "I agree"
MAX_LENGTHS = {"name": 255, "content": 100_000, "button_text": 100, "checkbox_text": 1000}
MAX_CHECKBOXES = 20
CONSENT_CREATED = "consent.created"
API_SOURCE = "api"  # a consent recorded through the API, by the account itself
CONSENT_LENGTHS = {"name": 255, "email": 255, "external_id": 255, "ip": 100, "user_agent": 1000}


class Clickwraps:
    def __init__(self, db: Database, clock: Clock) -> None:
        self.db, self.clock = db, clock

    async def create(self, principal: Principal, body: dict[str, Any]) -> Clickwrap:
        async with self.db.transaction() as tx:
            name, kind, settings = await _draft(tx, principal, body, None)
            clickwrap = await stored.insert_clickwrap(
                tx,
                account_id=principal.account_id,
                author_id=principal.user_id,
                slug=tokens.slug(),
                name=name,
                kind=kind,
                settings=settings,
                now=self.clock.now(),
            )
            if json_fields.flag(body, "publish", False):
                await self._publish(tx, principal, clickwrap)
            return await stored.required_clickwrap(tx, clickwrap.id)

    async def update(self, principal: Principal, clickwrap_id: int, body: dict[str, Any]) -> Clickwrap:
        """Edits the draft; `publish: true` then releases it as a new version; `archived` archives or restores."""
        async with self.db.transaction() as tx:
            clickwrap = await _find(tx, principal, clickwrap_id)
            name, kind, settings = await _draft(tx, principal, body, clickwrap)
            archived_at = clickwrap.archived_at
            if "archived" in body:
                archived_at = (archived_at or self.clock.now()) if json_fields.flag(body, "archived") else None
            await stored.update_draft(
                tx, clickwrap.id, name=name, kind=kind, settings=settings, archived_at=archived_at, now=self.clock.now()
            )
            if json_fields.flag(body, "publish", False):
                await self._publish(tx, principal, await stored.required_clickwrap(tx, clickwrap.id))
            return await stored.required_clickwrap(tx, clickwrap.id)

    async def publish(self, principal: Principal, clickwrap_id: int) -> Clickwrap:
        async with self.db.transaction() as tx:
            await self._publish(tx, principal, await _find(tx, principal, clickwrap_id))
            return await stored.required_clickwrap(tx, clickwrap_id)

    async def find(self, principal: Principal, clickwrap_id: int) -> Clickwrap:
        return await _find(self.db, principal, clickwrap_id)

    async def page(
        self, principal: Principal, *, archived: bool, limit: int, after: int | None, before: int | None
    ) -> list[Clickwrap]:
        return await stored.list_clickwraps(
            self.db, principal.account_id, archived=archived, limit=limit, after=after, before=before
        )

    async def consents(
        self, principal: Principal, clickwrap_id: int, *, limit: int, after: int | None, before: int | None
    ) -> list[Consent]:
        clickwrap = await self.find(principal, clickwrap_id)
        return await stored.list_consents(self.db, clickwrap.id, limit=limit, after=after, before=before)

    async def consent(
        self,
        principal: Principal,
        clickwrap_id: int,
        body: dict[str, Any],
        *,
        caller_ip: str,
        caller_user_agent: str | None,
    ) -> Consent:
        """Records an acceptance of the active version, at the time the call arrives."""
        values = {key: json_fields.text(body, key, limit=limit) for key, limit in CONSENT_LENGTHS.items()}
        values["ip"] = values["ip"] or caller_ip
        values["user_agent"] = values["user_agent"] or caller_user_agent
        async with self.db.transaction() as tx:
            clickwrap = await _find(tx, principal, clickwrap_id)
            if clickwrap.active_version_number is None:
                raise errors.Invalid(
                    f"Clickwrap {clickwrap.id} is not published: publish a version before recording consents"
                )
            if clickwrap.archived_at is not None:
                raise errors.Invalid(
                    f"Clickwrap {clickwrap.id} is archived: restore it with archived: false before recording consents"
                )
            consent = await stored.insert_consent(
                tx,
                account_id=clickwrap.account_id,
                clickwrap_id=clickwrap.id,
                uuid=str(uuid.uuid4()),
                source=API_SOURCE,
                version=clickwrap.active_version_number,
                checkboxes=[],
                now=self.clock.now(),
                **values,
            )
            await events.record(
                tx,
                self.clock,
                account_id=consent.account_id,
                event_type=CONSENT_CREATED,
                record_type="consent",
                record_id=consent.id,
            )
            return consent

    async def find_consent(self, principal: Principal, consent_id: int) -> Consent:
        return auth.owned(principal, await stored.get_consent(self.db, consent_id), "Consent")

    async def _publish(self, tx: Connection, principal: Principal, clickwrap: Clickwrap) -> None:
        """Publishing checks that the draft is complete for its kind, and that its template is usable."""
        settings = clickwrap.settings
        if clickwrap.kind == "no_document" and not (settings.get("content") or "").strip():
            raise errors.at(("content",), "is required to publish a no_document clickwrap")
        if clickwrap.kind in WITH_DOCUMENT:
            template = await _template(tx, principal, settings.get("template_id"), clickwrap.kind)
            if clickwrap.kind == "requires_signature" and not visitors.signable_alone(template):
                raise errors.at(
                    ("template_id",),
                    f"{template.id} names a template one person cannot sign alone: a "
                    "requires_signature clickwrap needs fields for the first role and none for the others",
                )
        await stored.publish(tx, clickwrap, self.clock.now())


async def _find(conn: Connection, principal: Principal, clickwrap_id: int) -> Clickwrap:
    return auth.owned(principal, await stored.get_clickwrap(conn, clickwrap_id), "Clickwrap")


async def _draft(
    tx: Connection, principal: Principal, body: dict[str, Any], current: Clickwrap | None
) -> tuple[str, str, dict[str, Any]]:
    """The draft after applying `body` to the current one (or to the defaults, on creation)."""
    settings = (
        dict(current.settings)
        if current
        else {
            "template_id": None,
            "content": None,
            "button_text": DEFAULT_BUTTON_TEXT,
            "require_name": False,
            "require_email": False,
            "checkboxes": [],
        }
    )
    name = json_fields.text(body, "name", limit=MAX_LENGTHS["name"]) if "name" in body or not current else current.name
    if not name or not name.strip():
        raise errors.at(("name",), "is required")
    kind = body.get("kind", current.kind if current else None)
    if kind not in KINDS:
        raise errors.at(("kind",), f"must be one of: {', '.join(KINDS)}")
    for key in ("content", "button_text"):
        if key in body:
            settings[key] = json_fields.text(body, key, limit=MAX_LENGTHS[key])
    for key in ("require_name", "require_email"):
        if key in body:
            settings[key] = json_fields.flag(body, key, False)
    if "checkboxes" in body:
        settings["checkboxes"] = _checkboxes(body["checkboxes"])
    if "template_id" in body:
        settings["template_id"] = body["template_id"]
    if kind in WITH_DOCUMENT or settings["template_id"] is not None:
        await _template(tx, principal, settings["template_id"], kind)
    return name, kind, settings


async def _template(tx: Connection, principal: Principal, template_id: Any, kind: str) -> Template:
    if template_id is None and kind in WITH_DOCUMENT:
        raise errors.at(("template_id",), f"is required for a {kind} clickwrap")
    if not isinstance(template_id, int) or isinstance(template_id, bool):
        raise errors.at(("template_id",), "must be an integer")
    # Beyond the ids' BIGINT no template is: asked of the database, such a number is an error, not a miss.
    template = await stored_templates.get_template(tx, template_id) if 1 <= template_id <= MAX_ID else None
    if template is None:
        raise errors.at(("template_id",), f"{template_id} does not name a template")
    if template.account_id != principal.account_id:
        raise errors.at(("template_id",), f"{template_id} is not a template of this account")
    if template.archived_at is not None:
        raise errors.at(("template_id",), f"{template_id} names an archived template")
    return template


def _checkboxes(value: Any) -> list[dict[str, Any]]:
    if not isinstance(value, list) or len(value) > MAX_CHECKBOXES:
        raise errors.at(("checkboxes",), f"must be an array of at most {MAX_CHECKBOXES} objects with text and required")
    checked = []
    for index, item in enumerate(value):
        where: errors.Location = ("checkboxes", index)
        if not isinstance(item, dict):
            raise errors.at(where, "must be an object with text and required")
        text = json_fields.text(item, "text", limit=MAX_LENGTHS["checkbox_text"], where=where)
        if not text or not text.strip():
            raise errors.at((*where, "text"), "is required")
        checked.append({"text": text, "required": json_fields.flag(item, "required", False, where=where)})
    return checked
