"""Reading the console's posted forms: a value as text, and which input a refusal of the domain is about, so
that its message is shown beside that input (the `refusal` and `described` macros of console/_macros.html)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from multidict import MultiDictProxy

from signsvc.infra import errors

# The domain's messages start with the name of the field they are about (`url must be…`, `secret.header…`,
# `events[2]…`) and end with where it is, when it is in a part of the body (``email is invalid in `submitters[1]`.``).
_NAMED = re.compile(r"^(?P<name>[a-z_]+(?:\.[a-z_]+)*)")
_LOCATED = re.compile(r" in `(?P<where>[^`]+)`\.$")


def text(form: MultiDictProxy[Any], name: str, *, strip: bool = True) -> str:
    """A posted value as text ("" when missing, or a file where text belongs)."""
    value = form.get(name, "")
    if not isinstance(value, str):
        return ""
    return value.strip() if strip else value


def field_of(message: str) -> str:
    """The field a message of the domain is about, as the API's path to it: `url`, `secret.header`, `events` (of
    `events[2]`), `submitters[1].email`, `message.subject`; "" for a message about no field."""
    named = _NAMED.match(message)
    located = _LOCATED.search(message)
    name = named["name"] if named else ""
    if not located:
        return name
    return f"{located['where']}.{name}" if name else located["where"]


@dataclass(frozen=True)
class Refusal:
    """A form the domain refused: its message and the id of the input it is about ("" for the form as a whole)."""

    message: str
    input: str = ""

    @classmethod
    def of(cls, refused: errors.Invalid, input_of: Callable[[str], str | None]) -> Refusal:
        """The refusal beside the input `input_of` names for the message's field (see `field_of`)."""
        return cls(refused.message, input_of(field_of(refused.message)) or "")
