"""Conditions as a template takes them: on fields (`fields[].conditions`) and on whole documents
(`schema[].conditions`), checked against the template's fields when it is saved, and the text-tag and HTML
shorthand `condition=Field:value` (or `condition=Field` alone: not empty) read into the same structure.

What a condition means is `signsvc.submissions.conditions`; here only what may be stored: a known action on a
field of the template (any role's: a later signer's form reads the earlier signers' values), a value where the
action compares one (an option's uuid for an option field, its text is taken too; a number for a number
comparison), no field depending on itself through a chain of conditions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from signsvc.infra import errors
from signsvc.submissions import conditions
from signsvc.templates.formulas import REFERENCE
from storage.records import TemplateDocument
from storage.shapes import Condition, Field

MAX_CONDITIONS = 100  # on one field or document: far beyond any real form
MAX_TEMPLATE_CONDITIONS = 5000  # on a whole template
_OPERATIONS = ("and", "or")
_KEYS = {"field_uuid", "action", "value", "operation"}


def checked_fields(
    fields: list[Field], places: Sequence[errors.Location], *, others: Sequence[Field] = ()
) -> list[Field]:
    """The fields with their conditions checked against each other and the template's `others` (fields it has
    already, whose conditions cannot name these; by name, these come first), `places`: where each field was given;
    an option named by its text becomes its uuid. 422 naming the first condition that names no field of the
    template, an unknown action, a missing or wrong value, or a field that depends on itself."""
    known = [*fields, *others]
    by_uuid = {field["uuid"]: field for field in known}
    result = []
    for field, where in zip(fields, places, strict=True):
        if "conditions" in field:
            given: Any = field["conditions"]
            field = {**field, "conditions": checked(given, known, (*where, "conditions"), by_uuid=by_uuid)}
            if not field["conditions"]:
                del field["conditions"]
        result.append(field)
    _refuse_cycles(result, places)
    return result


def checked(
    raw: Any, fields: list[Field], where: errors.Location, *, by_uuid: Mapping[str, Field] | None = None
) -> list[Condition]:
    """A list of conditions (or the shorthand text, `Field:value`) checked against the template's `fields`."""
    by_uuid = by_uuid if by_uuid is not None else {field["uuid"]: field for field in fields}
    if isinstance(raw, str):
        return parse_shorthand(raw, fields, where)
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise errors.at(where, errors.must_be(list))
    if len(raw) > MAX_CONDITIONS:
        raise errors.at(where, f"has {len(raw)} conditions: at most {MAX_CONDITIONS}")
    return [_condition(item, by_uuid, (*where, index)) for index, item in enumerate(raw)]


def document_conditions(raw: Any, document_uuid: str, fields: list[Field], where: errors.Location) -> list[Condition]:
    """A document's conditions: as a field's, and never on a field that lies only on that document (the document
    would hide the field its showing depends on)."""
    found = checked(raw, fields, (*where, "conditions"))
    by_uuid = {field["uuid"]: field for field in fields}
    for index, condition in enumerate(found):
        areas = by_uuid[condition["field_uuid"]].get("areas", [])
        if areas and all(area["attachment_uuid"] == document_uuid for area in areas):
            name = by_uuid[condition["field_uuid"]]["name"] or condition["field_uuid"]
            problem = f"names {name}, a field only on this document, which would never be shown"
            raise errors.at((*where, "conditions", index, "field_uuid"), problem)
    return found


def schema_conditions(raw: Any, documents: list[TemplateDocument], fields: list[Field]) -> dict[str, list[Condition]]:
    """Every document's conditions after a change: those `schema` gives (`[{attachment_uuid, conditions}]`), the
    others as stored, all checked against `fields` (a change of the fields may not leave a document's condition
    naming a field that is gone)."""
    given: dict[str, tuple[Any, errors.Location]] = {}
    if raw is not None:
        if not isinstance(raw, list):
            raise errors.at(("schema",), errors.must_be(list))
        uuids = {document.uuid for document in documents}
        for index, item in enumerate(raw):
            if not isinstance(item, dict):
                raise errors.at(("schema", index), errors.must_be(dict))
            if not isinstance(item.get("attachment_uuid"), str) or item["attachment_uuid"] not in uuids:
                shown = item.get("attachment_uuid")
                raise errors.at(("schema", index, "attachment_uuid"), f"names no document of the template: {shown}")
            if "conditions" in item:
                given[item["attachment_uuid"]] = (item["conditions"], ("schema", index))
    result = {}
    for position, document in enumerate(documents):
        conditions, where = given.get(document.uuid, (document.conditions, ("schema", position)))
        result[document.uuid] = document_conditions(conditions, document.uuid, fields, where)
    refuse_loops(fields, result)
    return result


def _condition(raw: Any, by_uuid: Mapping[str, Field], where: errors.Location) -> Condition:
    if not isinstance(raw, dict):
        raise errors.at(where, errors.must_be(dict))
    if unknown := sorted(set(raw) - _KEYS):
        raise errors.at((*where, unknown[0]), f"is not a key of a condition: {', '.join(sorted(_KEYS))}")
    uuid = raw.get("field_uuid")
    if not isinstance(uuid, str) or uuid not in by_uuid:
        shown = uuid if isinstance(uuid, str) else "nothing"
        raise errors.at((*where, "field_uuid"), f"names no field of the template: {shown}")
    action = raw.get("action")
    if action not in conditions.ACTIONS:
        raise errors.at((*where, "action"), f"is unknown: {action}; one of {', '.join(conditions.ACTIONS)}")
    result: Condition = {"field_uuid": uuid, "action": action}
    if action in conditions.WITH_VALUE:
        result["value"] = _value(raw.get("value"), by_uuid[uuid], action, (*where, "value"))
    operation = raw.get("operation")
    if operation is not None:
        if operation not in _OPERATIONS:
            raise errors.at((*where, "operation"), f"must be and or or, not {operation}")
        if operation == "or":
            result["operation"] = "or"
    return result


def _value(value: Any, field: Field, action: str, where: errors.Location) -> str:
    text = conditions.text_of(value)
    if text is None or conditions.is_blank(text):
        raise errors.at(where, f"is required for {action}: a text or a number")
    if field["type"] in conditions.OPTION_TYPES and action not in ("greater_than", "less_than"):
        return _option_uuid(field, text, where)
    numeric = action in ("greater_than", "less_than") or field["type"] == "number"
    if numeric and conditions.number_of(text) is None:
        raise errors.at(where, f"must be a number for {action} on {field['name'] or field['type']}: {text}")
    return text


def _option_uuid(field: Field, text: str, where: errors.Location) -> str:
    options = field.get("options", [])
    found = next((o for o in options if o["uuid"] == text), None) or next(
        (o for o in options if o["value"] == text), None
    )
    if found is None:
        raise errors.at(where, f"names no option of {field['name'] or field['type']}: {text}")
    return found["uuid"]


def refuse_loops(fields: list[Field], documents: Mapping[str, list[Condition]]) -> None:
    """422 naming a field that depends on itself through conditions, formulas and documents together (a field only
    on a document whose conditions name it back, a condition on a formula that reads the field it shows...): such a
    field could never be decided. Pure condition loops are refused with the fields (`checked_fields`), pure
    formula loops by the formula checks; this is what only the whole template shows. At most MAX_TEMPLATE_CONDITIONS
    conditions in all."""
    total = sum(len(f.get("conditions", [])) for f in fields) + sum(len(c) for c in documents.values())
    if total > MAX_TEMPLATE_CONDITIONS:
        raise errors.Invalid(f"the template has {total} conditions: at most {MAX_TEMPLATE_CONDITIONS}")
    edges = _field_edges(fields, with_formulas=True, documents=documents)
    for uuid, named in documents.items():
        edges[f"document:{uuid}"] = [f"field:{c['field_uuid']}" for c in named]
    loop = _loop(edges)
    if loop is not None:
        names = {f"field:{f['uuid']}": f["name"] or f["uuid"] for f in fields}
        chain = " -> ".join(names.get(node, "document " + node.split(":", 1)[1]) for node in loop)
        raise errors.Invalid(f"conditions and formulas depend on each other in a loop: {chain}")


def _refuse_cycles(fields: list[Field], places: Sequence[errors.Location]) -> None:
    """422 naming a field whose conditions lead back to it (it could never be shown)."""
    loop = _loop(_field_edges(fields, with_formulas=False, documents={}))
    if loop is None:
        return
    names = {f"field:{f['uuid']}": f["name"] or f["uuid"] for f in fields}
    where = dict(zip((f"field:{f['uuid']}" for f in fields), places, strict=True))[loop[0]]
    chain = " -> ".join(names[node] for node in loop)
    raise errors.at((*where, "conditions"), f"depend on the field itself: {chain}")


def _field_edges(
    fields: list[Field], *, with_formulas: bool, documents: Mapping[str, list[Condition]]
) -> dict[str, list[str]]:
    """What each field's showing depends on: the fields its conditions name, with `with_formulas` the fields its
    formula reads (by uuid or name), and the documents (of those with conditions) its areas lie on."""
    by_name = {f["name"]: f["uuid"] for f in fields if f["name"]}
    uuids = {f["uuid"] for f in fields}
    edges: dict[str, list[str]] = {}
    for field in fields:
        targets = [f"field:{c['field_uuid']}" for c in field.get("conditions", [])]
        formula = (field.get("preferences") or {}).get("formula")
        if with_formulas and isinstance(formula, str):
            for found in REFERENCE.finditer(formula):
                name = found.group(1).strip()
                uuid = name if name in uuids else by_name.get(name)
                if uuid is not None:
                    targets.append(f"field:{uuid}")
        targets += [
            f"document:{a['attachment_uuid']}" for a in field.get("areas", []) if a.get("attachment_uuid") in documents
        ]
        edges[f"field:{field['uuid']}"] = targets
    return edges


def _loop(edges: Mapping[str, list[str]]) -> list[str] | None:
    """A loop of `edges` (its first node repeated at its end), by one depth-first walk in three colours with parent
    pointers: each node and edge is visited once; the path is rebuilt only when a loop is found."""
    done: set[str] = set()
    parent: dict[str, str | None] = {}
    for root in edges:
        if root in done:
            continue
        parent[root] = None
        stack: list[tuple[str, int]] = [(root, 0)]
        while stack:
            node, next_edge = stack[-1]
            targets = edges.get(node, [])
            if next_edge == len(targets):
                stack.pop()
                done.add(node)
                continue
            stack[-1] = (node, next_edge + 1)
            target = targets[next_edge]
            if target in done:
                continue
            if target in parent:  # under way: on the current path
                path = [node]
                while path[-1] != target:
                    path.append(parent[path[-1]])  # type: ignore[arg-type]
                return [*reversed(path), target]
            parent[target] = node
            stack.append((target, 0))
        parent.clear()
    return None


def parse_shorthand(text: str, fields: list[Field], where: errors.Location = ()) -> list[Condition]:
    """`Field:value` or `Field` (not empty), as text tags and HTML field tags write a condition, as the conditions
    it means, by the template's `fields` (by name, exactly, then in any case; or by uuid). The value of an option
    field names an option by its text; of a checkbox, `true`/`false` (checked, unchecked); of a number field, a
    number. The name is read up to the last colon whose left side names a field, so a name may hold a colon."""
    if not text.strip():
        raise errors.at(where, "is empty: write Field, or Field:value")
    name, value = _split(text.strip(), fields)
    field = _named(fields, name)
    if field is None:
        raise errors.at(where, f"names no field of the template: {name}")
    if value is None:
        return [{"field_uuid": field["uuid"], "action": "not_empty"}]
    if field["type"] == "checkbox":
        word = value.strip().lower()
        if word not in ("true", "false"):
            raise errors.at(where, f"must be true or false for the checkbox {field['name']}: {value}")
        return [{"field_uuid": field["uuid"], "action": "checked" if word == "true" else "unchecked"}]
    action = "contains" if field["type"] == "multiple" else "equal"
    return [{"field_uuid": field["uuid"], "action": action, "value": _value(value, field, action, where)}]


def _split(text: str, fields: list[Field]) -> tuple[str, str | None]:
    if _named(fields, text) is not None or ":" not in text:
        return text, None
    colons = [index for index, char in enumerate(text) if char == ":"]
    for index in reversed(colons):
        if _named(fields, text[:index].strip()) is not None:
            return text[:index].strip(), text[index + 1 :].strip()
    return text[: colons[0]].strip(), text[colons[0] + 1 :].strip()


def _named(fields: list[Field], name: str) -> Field | None:
    return (
        next((f for f in fields if f["name"] == name), None)
        or next((f for f in fields if f["name"].casefold() == name.casefold()), None)
        or next((f for f in fields if f["uuid"] == name), None)
    )
