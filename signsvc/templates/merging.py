"""Several templates merged into a new one (`POST /templates/merge`): the request read, and the new template's
roles, fields and documents made of the sources', each source re-keyed as a clone is.

Roles collapse by name (any case): role i of every source is named `roles[i]` when `roles` is given, so the roles
at one index become one; without it, roles of the same name become one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from signsvc.infra import errors, json_fields
from signsvc.templates import rekeying, template_fields
from storage.records import MAX_ID, Template, TemplateDocument
from storage.shapes import Condition, Field, Role

MAX_SOURCES = 50


@dataclass(frozen=True)
class MergeRequest:
    template_ids: list[int]
    roles: list[str] | None
    name: str | None
    folder_name: str | None
    external_id: str | None
    shared_link: bool


@dataclass(frozen=True)
class Source:
    template: Template
    documents: list[TemplateDocument]


@dataclass(frozen=True)
class MergedDocument:
    original: TemplateDocument
    uuid: str
    conditions: list[Condition]


@dataclass(frozen=True)
class Merged:
    roles: list[Role]
    fields: list[Field]
    documents: list[MergedDocument]


def parse(body: dict[str, Any]) -> MergeRequest:
    ids = body.get("template_ids")
    if not isinstance(ids, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in ids):
        raise errors.at(("template_ids",), "must be an array of template ids")
    if not 2 <= len(ids) <= MAX_SOURCES:
        raise errors.at(("template_ids",), f"must name at least 2 templates and at most {MAX_SOURCES}")
    roles = body.get("roles")
    if roles is not None and (not isinstance(roles, list) or not all(isinstance(n, str) and n.strip() for n in roles)):
        raise errors.at(("roles",), "must be an array of role names")
    name = json_fields.text(body, "name")
    if name is not None and not name.strip():
        raise errors.at(("name",), "must not be empty")
    return MergeRequest(
        template_ids=ids,
        roles=[n.strip() for n in roles] if roles is not None else None,
        name=name,
        folder_name=json_fields.text(body, "folder_name") or None,
        external_id=json_fields.text(body, "external_id"),
        shared_link=json_fields.flag(body, "shared_link", True),
    )


def may_exist(template_id: int) -> bool:
    """Beyond the ids' BIGINT no template is: asked of the database, such a number would be an error, not a miss."""
    return 1 <= template_id <= MAX_ID


def merged(sources: list[Source], role_names: list[str] | None) -> Merged:
    """The sources' documents in order, their fields after them in the same order, every uuid new."""
    names = role_names or []
    roles: list[Role] = []
    for name in names:
        _role_uuid(roles, name)
    fields: list[Field] = []
    documents: list[MergedDocument] = []
    for source in sources:
        fresh = rekeying.fresh_uuids(source.template, source.documents)
        for index, role in enumerate(source.template.roles):
            fresh[role["uuid"]] = _role_uuid(roles, names[index] if index < len(names) else role["name"])
        fields += rekeying.renamed_fields(source.template.fields, fresh)
        documents += [
            MergedDocument(document, fresh[document.uuid], rekeying.renamed(document.conditions, fresh))
            for document in source.documents
        ]
    if len(fields) > template_fields.MAX_FIELDS:
        raise errors.at(
            ("template_ids",), f"have {len(fields)} fields in all: a template has at most {template_fields.MAX_FIELDS}"
        )
    return Merged(
        roles or [{"name": template_fields.DEFAULT_ROLE, "uuid": template_fields.new_uuid()}], fields, documents
    )


def _role_uuid(roles: list[Role], name: str) -> str:
    """The uuid of the merged role of this name (any case), added when it is the first."""
    for role in roles:
        if role["name"].lower() == name.lower():
            return role["uuid"]
    roles.append({"name": name, "uuid": template_fields.new_uuid()})
    return roles[-1]["uuid"]
