"""Which column of a bulk-send file fills what: each role's email, name and phone, and the values of the fields
filled by typing (a file cannot carry a signature or an image). The columns are guessed from their headers
(`Email`, `Second Party email`, a field's name) and the person sending can change each one.

A mapping is refused as a whole when it cannot make a submission (no column gives an email address, a role with
columns but no email column, two columns for one thing, a field the template does not have); each row is then
made into the body of POST /submissions, or refused by its number (an email address missing)."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any

from signsvc.http.web.console.bulk_table import Row, Table
from signsvc.submissions.field_values import FILE_TYPES
from storage.records import Template

NOT_USED = ""
CONTACT = ("email", "name", "phone")
# Headers that name a contact without a role: the first role without that contact yet gets the column.
_CONTACT_WORDS = {
    "email": ("email", "email address", "mail"),
    "name": ("name", "full name", "signer name"),
    "phone": ("phone", "phone number", "mobile", "telephone"),
}


@dataclass(frozen=True)
class Target:
    """What a column can fill: a contact of a role (`role.1.email`) or a field's value (`field.<uuid>`)."""

    key: str
    role_index: int
    role: str
    contact: str = ""  # one of CONTACT, or "" for a field
    field_name: str = ""


@dataclass(frozen=True)
class Problem:
    """A refusal to show: the catalogue's key and its placeholders."""

    key: str
    values: dict[str, Any] = field(default_factory=dict)


def targets(template: Template) -> list[Target]:
    """Everything a column can fill, role by role: the contacts, then the fields filled by typing."""
    found = []
    for index, role in enumerate(template.roles):
        found += [Target(f"role.{index}.{contact}", index, role["name"], contact=contact) for contact in CONTACT]
        found += [
            Target(f"field.{item['uuid']}", index, role["name"], field_name=item["name"])
            for item in template.fields
            if item.get("submitter_uuid") == role["uuid"] and item.get("name") and item["type"] not in FILE_TYPES
        ]
    return found


def guess(headers: tuple[str, ...], template: Template) -> tuple[str, ...]:
    """A target for each column whose header names one (`Email`, `Second Party name`, a field's name), each
    target for one column at most; NOT_USED for the others."""
    offered = targets(template)
    named: dict[str, str] = {}
    for target in offered:
        for name in _names(target):
            named.setdefault(name, target.key)
    taken: set[str] = set()
    chosen = []
    for header in headers:
        key = named.get(_normal(header)) or _bare_contact(_normal(header), offered, taken)
        key = key if key and key not in taken else NOT_USED
        taken.add(key)
        chosen.append(key)
    return tuple(chosen)


def _names(target: Target) -> list[str]:
    """The headers that name `target` with no doubt: its role and contact, a field's name with or without its role."""
    role = _normal(target.role)
    if target.contact:
        return [f"{role} {word}" for word in _CONTACT_WORDS[target.contact]]
    return [_normal(target.field_name), f"{role} {_normal(target.field_name)}"]


def _bare_contact(header: str, offered: list[Target], taken: set[str]) -> str | None:
    contact = next((name for name, words in _CONTACT_WORDS.items() if header in words), None)
    free = (t.key for t in offered if t.contact == contact and contact and t.key not in taken)
    return next(free, None)


def _normal(text: str) -> str:
    """A header compared without case, punctuation or spacing: `E-Mail` and `e_mail ` are `email`."""
    words = " ".join(re.sub(r"[\W_]+", " ", text.casefold()).split())
    return re.sub(r"\be mail\b", "email", words)


@dataclass(frozen=True)
class Mapping:
    """The target of each column of a table (NOT_USED for a column left out)."""

    template: Template
    headers: tuple[str, ...]
    keys: tuple[str, ...]

    @functools.cached_property
    def offered(self) -> dict[str, Target]:
        return {target.key: target for target in targets(self.template)}

    def problems(self) -> list[Problem]:
        """Why no row can be sent with this mapping; [] when rows can."""
        offered = self.offered
        found: list[Problem] = []
        first_column: dict[str, int] = {}
        for column, key in enumerate(self.keys):
            if key == NOT_USED:
                continue
            if key not in offered:
                found.append(Problem("console.bulk.mapping.unknown", {"column": self._header(column)}))
            elif key in first_column:
                found.append(
                    Problem(
                        "console.bulk.mapping.twice",
                        {"first": self._header(first_column[key]), "second": self._header(column)},
                    )
                )
            first_column.setdefault(key, column)
        roles = {offered[key].role_index for key in first_column if key in offered}
        with_email = {
            offered[key].role_index for key in first_column if key in offered and offered[key].contact == "email"
        }
        if not with_email:
            found.append(Problem("console.bulk.mapping.no_email"))
        found += [
            Problem("console.bulk.mapping.role_without_email", {"role": self.template.roles[index]["name"]})
            for index in sorted(roles - with_email)
        ]
        return found

    def body(self, row: Row) -> dict[str, Any] | Problem:
        """The body of POST /submissions for the row: a submitter for each role it has something for, or the
        row's problem (nothing in the mapped columns, a role's email address missing)."""
        offered = self.offered
        submitters = []
        for index, role in enumerate(self.template.roles):
            given: dict[str, Any] = {}
            values: dict[str, str] = {}
            for column, key in enumerate(self.keys):
                target, cell = offered.get(key), row.cell(column)
                if target is None or target.role_index != index or not cell:
                    continue
                if target.contact:
                    given[target.contact] = cell
                else:
                    values[target.field_name] = cell
            if not given and not values:
                continue
            if not given.get("email"):
                return Problem("console.bulk.row.missing_email", {"row": row.number, "role": role["name"]})
            submitters.append({"role": role["name"], **given, **({"values": values} if values else {})})
        if not submitters:
            return Problem("console.bulk.row.empty", {"row": row.number})
        # Console sends follow the account's reminder schedule, as the send page's do.
        return {"template_id": self.template.id, "send_email": True, "reminders": True, "submitters": submitters}

    def _header(self, column: int) -> str:
        return self.headers[column] or f"#{column + 1}"


def guessed(table: Table, template: Template) -> Mapping:
    return Mapping(template, table.headers, guess(table.headers, template))
