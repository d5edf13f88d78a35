"""Submissions a public page makes for its visitor (a template's public link, a requires_signature
clickwrap): the template's first role, signed at once by whoever holds the link.

What both pages share: which templates a visitor can sign alone, the rules of what they type, the
submission made as the template's author, and the refusals the pages show.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

import storage.submissions as stored_submissions
from signsvc.accounts import auth
from signsvc.infra import errors
from signsvc.submissions.submissions import Submissions
from storage import Connection, Database
from storage.records import Submission, Template
from storage.shapes import Field

MISSING, INVALID, TOO_LONG = "missing", "invalid", "too_long"
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")  # no input of a page can hold them; Postgres can't store NUL


class Refused(errors.Invalid):
    """Answers the page cannot accept: by input (`name`, `email`, `checkbox-0` ...), the broken rule."""

    def __init__(self, problems: dict[str, str]) -> None:
        super().__init__(", ".join(f"{where}: {rule}" for where, rule in problems.items()))
        self.problems = problems


class Unavailable(Exception):
    """What the page shows was archived or deleted since it was published."""


def fields_of_role(template: Template, position: int) -> list[Field]:
    role_uuid = template.roles[position]["uuid"]
    return [field for field in template.fields if field.get("submitter_uuid") == role_uuid]


def signable_alone(template: Template) -> bool:
    """The first role has fields and no other role has any: no one else would ever be invited to fill
    theirs, so a submission waiting for them would never complete."""
    return bool(fields_of_role(template, 0)) and not any(
        fields_of_role(template, position) for position in range(1, len(template.roles))
    )


def text_problem(value: str, limit: int) -> str | None:
    """TOO_LONG or INVALID (a control character) for typed text, else None."""
    if len(value) > limit:
        return TOO_LONG
    return INVALID if _CONTROL.search(value) else None


async def start(
    db: Database,
    submissions: Submissions,
    template: Template,
    signer: dict[str, Any],
    source: str,
    along: Callable[[Connection, Submission], Awaitable[None]],
) -> str:
    """A submission of the template for the visitor, made as its author; answers their signing slug. They
    sign now: no invitation is sent, their completed copy is."""
    principal = await auth.on_behalf_of(db, template.account_id, template.author_id)
    body = {
        "template_id": template.id,
        "send_email": False,
        "submitters": [{**{key: value for key, value in signer.items() if value}, "send_copy_email": True}],
    }
    _, submitters = await submissions.create(principal, body, source=source, along=along)
    return submitters[0].slug


async def signing_slug(db: Database, submission_id: int) -> str:
    """The visitor's signing slug in a submission made for them; Unavailable once it was deleted."""
    signers = await stored_submissions.submitters_of(db, submission_id)
    if not signers:
        raise Unavailable()
    return signers[0].slug
