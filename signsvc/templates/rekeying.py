"""Fresh uuids for a copy of a template (a clone, each source of a merge): every role, field, option and document
gets a new one, and every reference to them follows (conditions, formulas, areas, option choices)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from signsvc.templates import formula_checks, template_fields
from signsvc.templates.template_fields import Roles
from storage.records import Template, TemplateDocument
from storage.shapes import Field


def fresh_uuids(template: Template, documents: list[TemplateDocument]) -> dict[str, str]:
    """A new uuid for each uuid of the template's roles, documents, fields and options, by the old one."""
    old = [role["uuid"] for role in template.roles] + [document.uuid for document in documents]
    for field in template.fields:
        old += [field["uuid"]] + [option["uuid"] for option in field.get("options", [])]
    return {uuid: template_fields.new_uuid() for uuid in old}


def renamed(value: Any, fresh: Mapping[str, str]) -> Any:
    """`value` with every uuid in `fresh` replaced by its new one."""
    if isinstance(value, dict):
        return {key: renamed(item, fresh) for key, item in value.items()}
    if isinstance(value, list):
        return [renamed(item, fresh) for item in value]
    return fresh.get(value, value) if isinstance(value, str) else value


def renamed_fields(fields: list[Field], fresh: Mapping[str, str]) -> list[Field]:
    """The fields with their uuids and every uuid they name replaced, `{{uuid}}` inside formulas too."""
    return formula_checks.renamed(renamed(fields, fresh), fresh)


def copied(
    template: Template, documents: list[TemplateDocument], roles: Roles
) -> tuple[list[Field], list[TemplateDocument]]:
    """The template's fields and documents with fresh uuids, to go with other documents (a one-off submission's):
    its roles become those of `roles` of the same name (any case), added when new."""
    fresh = fresh_uuids(template, documents)
    fresh |= {role["uuid"]: roles.uuid_for(role["name"]) for role in template.roles}
    return renamed_fields(template.fields, fresh), [
        dataclasses.replace(d, uuid=fresh[d.uuid], conditions=renamed(d.conditions, fresh)) for d in documents
    ]
