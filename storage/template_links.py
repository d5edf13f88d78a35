"""Templates reached by their public link (`/d/{slug}`)."""

from __future__ import annotations

from storage.database import Connection
from storage.records import Template
from storage.rows import record


async def template_by_slug(conn: Connection, slug: str) -> Template | None:
    return record(Template, await conn.fetch_one("get_template_by_slug", slug=slug))
