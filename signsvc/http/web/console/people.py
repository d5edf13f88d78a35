"""How the console names a person: a user, a signer, a template's author."""

from __future__ import annotations


def display_name(first: str | None, last: str | None = None, *otherwise: str | None) -> str:
    """Their name (first and last name, or the one name a signer has), else the first of `otherwise` they have
    (an email address, a phone number, a role); "" when there is none."""
    return " ".join(part for part in (first, last) if part) or next((value for value in otherwise if value), "")
