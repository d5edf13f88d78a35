"""The plan of a change of a template's documents (`PUT /templates/{id}/documents`, `document_changes`): the request
read, then each change applied in order to the documents, roles and fields, and at last all documents merged into
one when asked. Pure: records and values in, a plan out.

- add: a new document (a file, or HTML) at `position` (0-based, among the documents as the changes before left
  them) or at the end, with its own fields: its PDF form's and its tags' (a file's `{{...}}` text tags, an HTML
  document's field tags), read as on creation;
- replace: the document at `position` becomes the new one, in its place and with its conditions. A new document
  with fields of its own (form or tags) brings them and the old document's go; one without takes the old
  document's fields, each area on the same page of the new document where that page exists (areas on pages past
  its end go);
- remove: the document at `position`, else the first one named `name`, with the areas on it.

A field whose every area went goes with them; one that a remaining field's conditions or formula, or a document's
conditions, still name makes the change a 422 (change those first). A template keeps at least one document.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from signsvc.infra import errors, json_fields
from signsvc.templates import (
    condition_rules,
    field_tags,
    formula_checks,
    formulas,
    html_documents,
    template_fields,
)
from signsvc.templates.documents import IngestedDocument
from signsvc.templates.html_documents import HtmlSource
from signsvc.templates.template_fields import Page, Roles
from storage.records import Template, TemplateDocument
from storage.shapes import Area, Condition, Field, Role

ADD, REPLACE, REMOVE = "add", "replace", "remove"


@dataclass(frozen=True)
class Change:
    where: errors.Location
    action: str
    position: int | None
    name: str | None
    raw: dict[str, Any]  # what the document is read from (add, replace)
    html: HtmlSource | None  # an HTML document to render instead of a file


@dataclass(frozen=True)
class Request:
    changes: list[Change]
    merge: bool
    remove_tags: bool


@dataclass(frozen=True)
class NewDocument:
    """The document a change brings, with the field inputs of its tags (pages from 1): a file's `{{...}}` text tags'
    (`document_tags`), an HTML document's field tags' (`html_documents`)."""

    document: IngestedDocument
    tag_fields: list[dict[str, Any]]

    @property
    def has_fields(self) -> bool:
        """Whether it brings fields of its own: form fields or tags."""
        return bool(self.document.form_fields or self.tag_fields)


@dataclass(frozen=True)
class Slot:
    """A document of the changed template: one it had (`kept`), or a `new` one."""

    uuid: str
    name: str
    page_count: int
    kept: TemplateDocument | None
    new: IngestedDocument | None
    conditions: list[Condition]


@dataclass(frozen=True)
class Plan:
    slots: list[Slot]
    roles: list[Role]
    fields: list[Field]


def parse(body: dict[str, Any]) -> Request:
    merge = json_fields.flag(body, "merge", False)
    raw = body.get("documents")
    if raw is not None and not isinstance(raw, list):
        raise errors.at(("documents",), errors.must_be(list))
    if not raw and not merge:
        raise errors.at(("documents",), "must name documents to add, replace or remove (or merge must be true)")
    changes = [_change(item, ("documents", index)) for index, item in enumerate(raw or [])]
    if (html := sum(change.html is not None for change in changes)) > html_documents.MAX_DOCUMENTS:
        raise errors.at(("documents",), f"has {html} html documents: at most {html_documents.MAX_DOCUMENTS}")
    return Request(changes, merge, json_fields.flag(body, "remove_tags", True))


def _change(raw: Any, where: errors.Location) -> Change:
    if not isinstance(raw, dict):
        raise errors.at(where, errors.must_be(dict))
    replace = json_fields.flag(raw, "replace", False, where=where)
    remove = json_fields.flag(raw, "remove", False, where=where)
    if replace and remove:
        raise errors.at(where, "cannot both replace and remove a document")
    position = raw.get("position")
    if position is not None and (not isinstance(position, int) or isinstance(position, bool) or position < 0):
        raise errors.at((*where, "position"), "must be an integer from 0")
    name = json_fields.text(raw, "name", where=where)
    html_documents.page_settings(raw, where)
    for key in ("file", "html"):
        if remove and raw.get(key) is not None:
            raise errors.at((*where, key), "is not taken by a change that removes a document")
    html = raw.get("html") not in (None, "")
    if html and raw.get("file") not in (None, ""):
        raise errors.at(where, "takes a file or html, not both")
    if replace and position is None:
        raise errors.at((*where, "position"), "is required to replace a document")
    if remove and position is None and not name:
        raise errors.at(where, "needs a position or a name to remove a document")
    action = REPLACE if replace else REMOVE if remove else ADD
    return Change(where, action, position, name, raw, html_documents.item_source(raw, where) if html else None)


def applied(
    template: Template,
    documents: list[TemplateDocument],
    request: Request,
    ingested: list[NewDocument | None],
) -> Plan:
    """The template's documents, roles and fields once every change is made; `ingested` holds the new document of
    each change that brings one. With `merge`, the documents must be fit to become one (`merged` makes it)."""
    working = _Working(template, documents)
    for change, document in zip(request.changes, ingested, strict=True):
        if change.action == REMOVE:
            working.remove(change)
        elif document is not None and change.action == REPLACE:
            working.replace(change, document)
        elif document is not None:
            working.add(change, document)
    if not working.slots:
        raise errors.at(("documents",), "would remove every document: a template keeps at least one")
    working.refuse_dangling()
    condition_rules.refuse_loops(working.fields, {slot.uuid: slot.conditions for slot in working.slots})
    if request.merge:
        _refuse_conditional(working.slots)
    return Plan(working.slots, working.roles.items, working.fields)


def merged(plan: Plan, document: IngestedDocument) -> Plan:
    """The plan with its documents as the one `document` made of all their pages, in order: each area moves to
    its page there."""
    offsets, start = {}, 0
    for slot in plan.slots:
        offsets[slot.uuid], start = start, start + slot.page_count

    def moved(area: Area) -> Area | None:
        offset = offsets.get(area["attachment_uuid"])
        return None if offset is None else {**area, "attachment_uuid": document.uuid, "page": area["page"] + offset}

    fields = [_with_areas(f, [a for a in map(moved, f.get("areas", [])) if a is not None]) for f in plan.fields]
    return Plan([_new_slot(document, [])], plan.roles, fields)


class _Working:
    """The documents, roles and fields as the changes so far left them, and the fields that went."""

    def __init__(self, template: Template, documents: list[TemplateDocument]) -> None:
        self.slots = [Slot(d.uuid, d.name, len(d.pages), d, None, d.conditions) for d in documents]
        self.roles = Roles(template.roles)
        self.fields = list(template.fields)
        self.dropped: dict[str, tuple[errors.Location, str]] = {}  # by field uuid: the change that took it, its name

    def add(self, change: Change, new: NewDocument) -> None:
        position = len(self.slots) if change.position is None else _position(change, len(self.slots) + 1)
        self.slots.insert(position, _new_slot(new.document, []))
        self._add_own_fields(change, new)

    def replace(self, change: Change, new: NewDocument) -> None:
        index = _position(change, len(self.slots))
        old, document = self.slots[index], new.document
        self.slots[index] = _new_slot(document, old.conditions)
        if new.has_fields:
            self._keep_areas(change, lambda area: None if area["attachment_uuid"] == old.uuid else area)
            self._add_own_fields(change, new)
            return
        pages = len(document.pages)

        def moved(area: Area) -> Area | None:
            if area["attachment_uuid"] != old.uuid:
                return area
            return {**area, "attachment_uuid": document.uuid} if area["page"] < pages else None

        self._keep_areas(change, moved)

    def remove(self, change: Change) -> None:
        if change.position is not None:
            index = _position(change, len(self.slots))
        else:
            index = next((i for i, slot in enumerate(self.slots) if slot.name == change.name), -1)
            if index < 0:
                raise errors.at((*change.where, "name"), f"names no document of the template: {change.name}")
        old = self.slots.pop(index)
        self._keep_areas(change, lambda area: None if area["attachment_uuid"] == old.uuid else area)

    def refuse_dangling(self) -> None:
        """422 when a remaining field or document names a field that went."""
        for found in self.fields:
            named = [c["field_uuid"] for c in found.get("conditions", [])]
            named += [m.group(1).strip() for m in formulas.REFERENCE.finditer(formulas.formula_of(found) or "")]
            self._refuse_naming(named, f"the field {found['name'] or found['uuid']}")
        for slot in self.slots:
            self._refuse_naming([c["field_uuid"] for c in slot.conditions], f"the conditions of document {slot.name}")

    def _refuse_naming(self, named: list[str], whose: str) -> None:
        for uuid in named:
            if uuid in self.dropped:
                where, name = self.dropped[uuid]
                raise errors.Invalid(
                    f"{errors.written(where)} takes away the field {name}, which {whose} names: change that first",
                    location=where,
                )

    def _keep_areas(self, change: Change, kept: Callable[[Area], Area | None]) -> None:
        """Each field with the areas `kept` answers (changed or not); a field left with none goes."""
        fields = []
        for found in self.fields:
            areas = [area for area in map(kept, found.get("areas", [])) if area is not None]
            if found.get("areas") and not areas:
                self.dropped[found["uuid"]] = (change.where, found["name"] or found["uuid"])
                continue
            fields.append(_with_areas(found, areas))
        self.fields = fields

    def _add_own_fields(self, change: Change, new: NewDocument) -> None:
        """The new document's own fields, as on creation: its form fields (those beyond a template's limit left out),
        then its tags' but those a form field names; their conditions name fields by name, the document's first,
        then the template's. Roles by name, made when new."""
        document = new.document
        sizes = tuple((page["width"], page["height"]) for page in document.pages)
        pages = [Page(document.uuid, len(document.pages), sizes)]
        room = max(template_fields.MAX_FIELDS - len(self.fields), 0)
        form_where, tags_where = (*change.where, "form_fields"), (*change.where, "tags")
        form = template_fields.fields(document.form_fields[:room], self.roles, pages, form_where, first_page=0)
        given = field_tags.without_named(new.tag_fields, [found["name"] for found in form])
        with field_tags.naming_tags([((*tags_where, index), tag) for index, tag in enumerate(given)]):
            tags = template_fields.fields(given, self.roles, pages, tags_where, first_page=1)
            total = len(self.fields) + len(form) + len(tags)
            if total > template_fields.MAX_FIELDS:
                problem = f"would make {total} fields: a template has at most {template_fields.MAX_FIELDS}"
                raise errors.at(change.where, problem)
            places = [(*form_where, i) for i in range(len(form))] + [(*tags_where, i) for i in range(len(tags))]
            checked = condition_rules.checked_fields(form + tags, places, others=self.fields)
            self.fields += formula_checks.checked(checked)


def _refuse_conditional(slots: list[Slot]) -> None:
    """One document cannot apply in part: documents with conditions are not merged."""
    for slot in slots:
        if slot.conditions and len(slots) > 1:
            raise errors.at(
                ("merge",),
                f"cannot make one document of documents that apply under conditions: {slot.name} has conditions; "
                "remove them first",
            )


def _position(change: Change, count: int) -> int:
    """The change's position among `count` places (the documents, one more to add): 422 when there is no such."""
    assert change.position is not None
    if change.position >= count:
        if change.action == ADD:
            places = f"a document is added at a position from 0 to {count - 1}"
        else:
            places = f"the template has {count} document{'s' if count != 1 else ''} (positions from 0)"
        raise errors.at((*change.where, "position"), f"{change.position} does not exist: {places}")
    return change.position


def _new_slot(document: IngestedDocument, conditions: list[Condition]) -> Slot:
    return Slot(document.uuid, document.name, len(document.pages), None, document, conditions)


def _with_areas(found: Field, areas: list[Area]) -> Field:
    return {**found, "areas": areas} if "areas" in found else found
