"""Reading the console's posted forms: a value as text, and which input a refusal of the domain is about, so
that its message is shown beside that input (the `refusal` and `described` macros of console/_macros.html)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from multidict import MultiDictProxy

from signsvc.infra import errors

# The id of a form's input for the place in the request body a refusal is about (`errors.Invalid.location`),
# None for the form as a whole.
InputOf = Callable[[errors.Location], str | None]


def text(form: MultiDictProxy[Any], name: str, *, strip: bool = True) -> str:
    """A posted value as text ("" when missing, or a file where text belongs)."""
    value = form.get(name, "")
    if not isinstance(value, str):
        return ""
    return value.strip() if strip else value


def by_key(inputs: dict[str, str]) -> InputOf:
    """The `InputOf` of a form whose inputs each stand for a key of the body, named by its keys without the
    indexes between them: `secret.header`, and `events` for `events[2]`."""
    return lambda location: inputs.get(".".join(part for part in location if isinstance(part, str)))


@dataclass(frozen=True)
class Refusal:
    """A form the domain refused: its message and the id of the input it is about ("" for the form as a whole)."""

    message: str
    input: str = ""

    @classmethod
    def of(cls, refused: errors.Invalid, input_of: InputOf) -> Refusal:
        """The refusal beside the input `input_of` names for the place it is about."""
        return cls(refused.message, input_of(refused.location) or "")
