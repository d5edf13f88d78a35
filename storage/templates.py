"""Stored templates, their folders and documents."""

from __future__ import annotations

import unicodedata
from datetime import datetime
from typing import Any

from storage.database import Connection
from storage.filters import TemplateFilters
from storage.queries import like_pattern
from storage.records import Folder, Template, TemplateDocument
from storage.rows import record, records, required
from storage.shapes import Condition, Field, PageSize, Preview, Role, TemplatePreferences


async def folder(conn: Connection, account_id: int, name: str, now: datetime) -> Folder:
    """The account's folder with this name, created when missing."""
    return required(Folder, await conn.fetch_one("add_folder", account_id=account_id, name=name, created_at=now))


async def insert_template(
    conn: Connection,
    *,
    account_id: int,
    author_id: int,
    folder_id: int,
    slug: str,
    name: str,
    external_id: str | None,
    source: str,
    roles: list[Role],
    fields: list[Field],
    preferences: TemplatePreferences,
    combined_blob_id: int | None,
    shared_link: bool,
    now: datetime,
    variables_schema: dict[str, Any] | None = None,
) -> int:
    return int(
        await conn.fetch_value(
            "insert_template",
            "id",
            account_id=account_id,
            author_id=author_id,
            folder_id=folder_id,
            slug=slug,
            name=name,
            external_id=external_id,
            source=source,
            roles=roles,
            fields=fields,
            preferences=preferences,
            combined_blob_id=combined_blob_id,
            shared_link=shared_link,
            variables_schema=variables_schema or {},
            created_at=now,
        )
    )


async def required_template(conn: Connection, template_id: int) -> Template:
    """A template that must exist (read back in the transaction that holds it)."""
    return required(Template, await conn.fetch_one("get_template", id=template_id))


async def get_template(conn: Connection, template_id: int) -> Template | None:
    return record(Template, await conn.fetch_one("get_template", id=template_id))


async def templates_by_ids(conn: Connection, ids: list[int]) -> dict[int, Template]:
    """The templates among these ids that exist, by id."""
    if not ids:
        return {}
    return {t.id: t for t in records(Template, await conn.fetch_all("get_templates", ids=ids))}


async def list_templates(conn: Connection, account_id: int, filters: TemplateFilters) -> list[Template]:
    """A page of the account's templates, newest first."""
    f = filters
    rows = await conn.fetch_all(
        "list_templates",
        account_id=account_id,
        archived=f.archived,
        name_pattern=like_pattern(f.q),
        external_id=f.external_id,
        folder=f.folder,
        limit=f.limit,
        after=f.after,
        before=f.before,
    )
    return records(Template, rows)


async def folder_names(conn: Connection, account_id: int) -> list[str]:
    """The names of the account's folders that hold a template (archived or not), in the order of a
    dictionary: case and accents aside first ("Äpfel", "apple", "Banana"), the same on every database."""
    names = [row["name"] for row in await conn.fetch_all("list_folder_names", account_id=account_id)]
    return sorted(names, key=_dictionary_order)


def _dictionary_order(name: str) -> tuple[str, str, str]:
    folded = name.casefold()
    plain = "".join(char for char in unicodedata.normalize("NFKD", folded) if not unicodedata.combining(char))
    return plain, folded, name


async def update_template(conn: Connection, template: Template, changes: dict[str, Any], now: datetime) -> None:
    state = {
        name: changes.get(name, getattr(template, name))
        for name in (
            "name",
            "external_id",
            "folder_id",
            "roles",
            "fields",
            "preferences",
            "shared_link",
            "archived_at",
            "variables_schema",
        )
    }
    await conn.execute("update_template", id=template.id, updated_at=now, **state)


async def delete_template(conn: Connection, template_id: int) -> None:
    await conn.execute("delete_template", id=template_id)


async def insert_document(
    conn: Connection,
    *,
    template_id: int,
    uuid: str,
    position: int,
    name: str,
    blob_id: int,
    pages: list[PageSize],
    previews: list[Preview],
    conditions: list[Condition] | None = None,
    source_blob_id: int | None = None,
) -> None:
    """`previews` are the page images as `{id, uuid, filename}` of their stored files; `source_blob_id` a dynamic
    document's DOCX."""
    await conn.execute(
        "insert_document",
        template_id=template_id,
        uuid=uuid,
        position=position,
        name=name,
        blob_id=blob_id,
        pages=pages,
        previews=previews,
        conditions=conditions or [],
        source_blob_id=source_blob_id,
    )


async def set_document_conditions(conn: Connection, template_id: int, uuid: str, conditions: list[Condition]) -> None:
    await conn.execute("set_document_conditions", template_id=template_id, uuid=uuid, conditions=conditions)


async def delete_documents(conn: Connection, template_id: int) -> None:
    await conn.execute("delete_documents", template_id=template_id)


async def delete_document(conn: Connection, document_id: int) -> None:
    await conn.execute("delete_document", id=document_id)


async def set_document_position(conn: Connection, document_id: int, position: int) -> None:
    await conn.execute("set_document_position", id=document_id, position=position)


async def set_combined_blob(conn: Connection, template_id: int, combined_blob_id: int | None) -> None:
    await conn.execute("set_combined_blob", id=template_id, combined_blob_id=combined_blob_id)


async def lock_document(conn: Connection, document_id: int) -> TemplateDocument | None:
    """A template's document, locked for the rest of the transaction (on SQLite every writing transaction is)."""
    return record(TemplateDocument, await conn.fetch_one("lock_document", id=document_id))


async def set_document_images(
    conn: Connection, document_id: int, pages: list[PageSize], previews: list[Preview]
) -> None:
    """Writes the page images of a template's document, and its pages with their texts."""
    await conn.execute("set_document_images", id=document_id, pages=pages, previews=previews)


async def list_documents(conn: Connection, template_id: int) -> list[TemplateDocument]:
    return records(TemplateDocument, await conn.fetch_all("list_documents", template_id=template_id))


async def lock_template(conn: Connection, template_id: int) -> None:
    """Locks the template for the rest of the transaction, before its documents are read to be written or deleted
    (on SQLite every writing transaction holds the database)."""
    await conn.fetch_one("lock_template", id=template_id)


async def documents_of(
    conn: Connection, account_id: int, templates: list[Template]
) -> dict[int, list[TemplateDocument]]:
    """The documents of each template of a page, by template id."""
    found: dict[int, list[TemplateDocument]] = {template.id: [] for template in templates}
    if templates:
        rows = await conn.fetch_all("list_documents_of_many", account_id=account_id, ids=list(found))
        for document in records(TemplateDocument, rows):
            found.get(document.template_id, []).append(document)
    return found
