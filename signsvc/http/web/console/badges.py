"""A status as the console's pages show it: a badge (the `badge` macro of console/_macros.html)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Badge:
    """A status as a badge: its catalogue key and its tone (a class of console.css: good, bad, wait; "" for none)."""

    key: str
    tone: str = ""
