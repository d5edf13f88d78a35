"""Named SQL: each `storage/queries/*.sql` file holds blocks headed `-- name --` and a description line.

A file under `storage/queries/<dialect>/` overrides the blocks of the same name for that dialect.
Parameters are written `:name` in every dialect; the Postgres driver renumbers them.
"""

from __future__ import annotations

import re
from pathlib import Path

QUERIES_DIR = Path(__file__).parent / "queries"
_HEADER = re.compile(r"^-- ([a-z_][a-z0-9_]*) --$", re.MULTILINE)
# A statement that may change rows: a SELECT ... FOR UPDATE counts too, which errs on the safe side.
_WRITE = re.compile(r"\b(INSERT|UPDATE|DELETE|REPLACE|CREATE|ALTER|DROP|TRUNCATE)\b", re.IGNORECASE)


class Queries(dict[str, str]):
    """Query name to SQL text for one dialect; `writing` names those that may change rows."""

    writing: frozenset[str] = frozenset()

    @classmethod
    def load(cls, dialect: str) -> Queries:
        queries = cls()
        for path in sorted(QUERIES_DIR.glob("*.sql")):
            queries.update(parse(path.read_text()))
        for path in sorted((QUERIES_DIR / dialect).glob("*.sql")):
            queries.update(parse(path.read_text()))
        queries.writing = frozenset(name for name, sql in queries.items() if _WRITE.search(sql))
        return queries

    def __missing__(self, name: str) -> str:
        raise KeyError(f"no query named {name!r}")


def parse(text: str) -> dict[str, str]:
    """The blocks of one .sql file, by name, with their description comments stripped."""
    parts = _HEADER.split(text)
    blocks = {}
    for name, body in zip(parts[1::2], parts[2::2], strict=True):
        lines = [line for line in body.strip().splitlines() if not line.startswith("--")]
        blocks[name] = "\n".join(lines).strip()
    return blocks


def like_pattern(text: str | None) -> str | None:
    """A LIKE pattern matching `text` anywhere, any case (for the `q` filters)."""
    return None if text is None else "%" + re.sub(r"([\\%_])", r"\\\1", text.lower()) + "%"
