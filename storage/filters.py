"""What a list query cuts a page from: each list's filters as one frozen value, which its storage function maps to
its query's parameters. None (or the default) filters nothing. Pages are newest first: at most `limit` records,
older than `after` and newer than `before` (ids)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class SubmissionFilters:
    """`q` matches the submitters' names, emails and phones; `status` is the status the record computes; the time
    bounds are inclusive below, exclusive above."""

    template_id: int | None = None
    archived: bool | None = None
    status: str | None = None
    q: str | None = None
    created_from: datetime | None = None
    created_until: datetime | None = None
    completed_from: datetime | None = None
    completed_until: datetime | None = None
    limit: int = 10
    after: int | None = None
    before: int | None = None


@dataclass(frozen=True)
class SubmitterFilters:
    """`q` matches name, email and phone; the time bounds are inclusive below, exclusive above."""

    submission_id: int | None = None
    external_id: str | None = None
    q: str | None = None
    completed_from: datetime | None = None
    completed_until: datetime | None = None
    limit: int = 10
    after: int | None = None
    before: int | None = None


@dataclass(frozen=True)
class TemplateFilters:
    """`archived` lists the archived templates instead of the others; `q` matches the name."""

    archived: bool = False
    q: str | None = None
    external_id: str | None = None
    folder: str | None = None
    limit: int = 10
    after: int | None = None
    before: int | None = None
