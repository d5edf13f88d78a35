"""Ids in the console's paths: the route pattern that lets only a record's id through (read back by
`signsvc.http.params.record_id`)."""

from __future__ import annotations


def path_id(name: str = "id") -> str:
    """The route pattern of an id named `name`: digits, no more than an id has."""
    return f"{{{name}:\\d{{1,18}}}}"


ID = path_id()
