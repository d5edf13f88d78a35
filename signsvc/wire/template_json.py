"""Templates as the API and webhooks show them."""

from __future__ import annotations

from collections import Counter
from typing import Any

from signsvc.infra.links import Links
from storage.records import Template, TemplateDocument
from storage.shapes import Field


def template_json(links: Links, template: Template, documents: list[TemplateDocument]) -> dict[str, Any]:
    return {
        "id": template.id,
        "slug": template.slug,
        "name": template.name,
        "preferences": template.preferences,
        "schema": [_schema_item(d) for d in documents],
        "fields": _named_fields(template.fields),
        "submitters": template.roles,
        "author_id": template.author_id,
        "archived_at": template.archived_at,
        "created_at": template.created_at,
        "updated_at": template.updated_at,
        "source": template.source,
        "external_id": template.external_id,
        "application_key": template.external_id,
        "folder_id": template.folder_id,
        "folder_name": template.folder_name,
        "shared_link": template.shared_link,
        "variables_schema": template.variables_schema,
        "author": {
            "id": template.author_id,
            "email": template.author_email,
            "first_name": template.author_first_name,
            "last_name": template.author_last_name,
        },
        "documents": [document_json(links, d) for d in documents],
    }


def pdf_json(links: Links, template: Template, documents: list[TemplateDocument]) -> dict[str, Any]:
    """GET /templates/{id}/pdf: the template's PDF (all its documents in one when there are several)."""
    if template.combined_uuid and template.combined_filename:
        filename, url = template.combined_filename, links.link(template.combined_uuid, template.combined_filename)
    else:
        filename, url = documents[0].filename, links.link(documents[0].blob_uuid, documents[0].filename)
    return {
        "id": template.id,
        "name": template.name,
        "pdf_url": url,
        "filename": filename,
        "documents": [document_json(links, d) for d in documents],
    }


def document_json(links: Links, document: TemplateDocument) -> dict[str, Any]:
    preview = document.previews[0] if document.previews else None
    return {
        "id": document.id,
        "uuid": document.uuid,
        "url": links.link(document.blob_uuid, document.filename),
        "preview_image_url": links.link(preview["uuid"], preview["filename"]) if preview else None,
        "filename": document.filename,
    }


def _schema_item(document: TemplateDocument) -> dict[str, Any]:
    item: dict[str, Any] = {"attachment_uuid": document.uuid, "name": document.name}
    if document.source_blob_id is not None:
        item["dynamic"] = True
    if document.conditions:
        item["conditions"] = document.conditions
    return item


def _named_fields(fields: list[Field]) -> list[Field]:
    """Unnamed fields are reported as "Text Field 1", "Signature Field 2" (counted per type)."""
    counts: Counter[str] = Counter()
    named = []
    for field in fields:
        counts[field["type"]] += 1
        if not field.get("name"):
            field = {**field, "name": f"{field['type'].capitalize()} Field {counts[field['type']]}"}
        named.append(field)
    return named
