"""The relations of templates: their documents, for a page in one statement."""

from __future__ import annotations

import storage.templates as stored
from storage import Connection
from storage.records import Template, TemplateDocument


async def documents(conn: Connection, account_id: int, templates: list[Template]) -> dict[int, list[TemplateDocument]]:
    """The documents of each template, in order, by template id."""
    return await stored.documents_of(conn, account_id, templates)
