"""Sending a template to the rows of a file: every row checked by the rules of POST /submissions first (so the
console refuses what the API would, with the row's number), and only when none is refused, one submission for
each row, fifty to a transaction. Each submission queues its invitations as jobs as POST /submissions does:
nothing is sent while the request runs."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from signsvc.http.web.console.bulk_mapping import Mapping, Problem
from signsvc.http.web.console.bulk_table import Table
from signsvc.infra import errors
from signsvc.submissions.submissions import Submissions
from storage.records import Principal, Submission

# Submissions made from a file, as the hosted service marks those of its bulk send.
SOURCE = "bulk"
_PLACE = re.compile(r" in `[^`]*`\.$")


@dataclass(frozen=True)
class Checked:
    """The rows of a table made into request bodies, and the problems of those that cannot be sent."""

    bodies: list[dict[str, Any]]
    problems: list[Problem]


async def check(submissions: Submissions, principal: Principal, table: Table, mapping: Mapping) -> Checked:
    """Each row's body checked as `Submissions.create` checks it, nothing written. A refusal of the request as a
    whole (the template archived) is raised as it is: it is no row's."""
    bodies: list[dict[str, Any]] = []
    problems: list[Problem] = []
    for row in table.rows:
        body = mapping.body(row)
        if isinstance(body, Problem):
            problems.append(body)
            continue
        try:
            await submissions.check(principal, body)
        except errors.Invalid as refused:
            if refused.location[:1] != ("submitters",):
                raise
            problems.append(_row_refusal(row.number, body, refused))
            continue
        bodies.append(body)
    return Checked(bodies, problems)


async def send(submissions: Submissions, principal: Principal, bodies: list[dict[str, Any]]) -> list[Submission]:
    """One submission for each body, in order."""
    return await submissions.create_many(principal, bodies, source=SOURCE)


def _row_refusal(number: int, body: dict[str, Any], refused: errors.Invalid) -> Problem:
    """The API's message for the row, without the place in the body it names (`in `submitters[0]`.`): the role
    named instead."""
    problem = _PLACE.sub("", refused.message)
    index = refused.location[1] if len(refused.location) > 1 else None
    if isinstance(index, int) and index < len(body["submitters"]):
        role = body["submitters"][index]["role"]
        return Problem("console.bulk.row.refused_role", {"row": number, "role": role, "problem": problem})
    return Problem("console.bulk.row.refused", {"row": number, "problem": problem})
