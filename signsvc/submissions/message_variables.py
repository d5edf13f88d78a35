"""The variables of a custom email `message` (`subject` and `body`) sent to a signer: `{{template.name}}`,
`{{submission.id}}`, `{{submitter.first_name}}`, `{{submitter.<field name>}}`, `{{submitters[N].email}}`,
`{{sender.name}}` ... in any number of braces and any case. A value of a field with `preferences.mask` is masked;
names the message does not know stay as written."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from signsvc.infra import languages, mail
from signsvc.submissions import field_options, field_values
from storage.records import Submission, Submitter, User
from storage.shapes import Message

if TYPE_CHECKING:
    import re2

# `submitter.Full Name` and `submitters[1].email`: a field's name may hold spaces and most punctuation. The name is
# trimmed and its case folded by `_key`; one that is no variable stays as written. Matched in RE2, in time linear in
# the message (a message is up to 20,000 characters, a subject unbounded: a backtracking engine could stall the
# process on one of braces and spaces).
VARIABLE = r"\{+([^{}\n]{1,200})\}+"


@dataclass(frozen=True)
class Context:
    """What a message to one signer can name."""

    submission: Submission
    submitter: Submitter
    submitters: list[Submitter]
    account_name: str
    sender: User | None
    site: str
    link: str  # the signer's signing form
    language: str = languages.DEFAULT  # the email's: writes the expiry time, yes and no


def applied(message: Message | None, context: Context) -> Message | None:
    """The message with its variables filled (None stays None: the default wording has its own)."""
    if not message:
        return message
    values = variables(context)

    def fill(text: str) -> str:
        return str(_variable().sub(lambda match: values.get(_key(match[1]), match[0]), text))

    return {"subject": fill(message.get("subject") or ""), "body": fill(message.get("body") or "")}


def variables(context: Context) -> dict[str, str]:
    """Every variable's text by its name in lower case."""
    submission, submitter = context.submission, context.submitter
    found = {
        "template.name": submission.template_name,
        "template.id": str(submission.template_id or ""),
        "submission.name": submission.name or submission.template_name,
        "submission.id": str(submission.id),
        "submission.link": f"{context.site}/console/submissions/{submission.id}",
        "submission.expire_at": _time(submission.expire_at, context.language),
        "submitter.link": context.link,
        "submitter.slug": submitter.slug,
        "account.name": context.account_name,
        "submitters": ", ".join(dict.fromkeys(filter(None, (_shown_name(s) for s in context.submitters)))),
        "submission.submitters": ", ".join(dict.fromkeys(filter(None, (_shown_name(s) for s in context.submitters)))),
        **_person("sender", _sender_name(context.sender), context.sender.email if context.sender else ""),
    }
    found |= _signer("submitter", submission, submitter, context.language)
    roles = [role["uuid"] for role in submission.roles]
    for other in context.submitters:  # numbered from 1 in the order of the template's roles
        if other.role_uuid in roles:
            found |= _signer(f"submitters[{roles.index(other.role_uuid) + 1}]", submission, other, context.language)
    return found


def _signer(prefix: str, submission: Submission, submitter: Submitter, language: str) -> dict[str, str]:
    """A signer's name, first name, email, id and their fields' values by field name (masked where the field says)."""
    fields = field_values.role_fields(submission.fields, submitter.role_uuid)
    values = field_options.masked_values(fields, submitter.field_values)
    found = {
        f"{prefix}.{_key(field['name'])}": _text(values[field["uuid"]], language)
        for field in fields
        if field["uuid"] in values and field["type"] not in field_values.FILE_TYPES
    }
    return found | _person(prefix, _shown_name(submitter), submitter.email or "") | {f"{prefix}.id": str(submitter.id)}


def _person(prefix: str, name: str, email: str) -> dict[str, str]:
    return {
        f"{prefix}.name": name,
        f"{prefix}.first_name": name.split()[0] if name.split() else "",
        f"{prefix}.email": email,
    }


def _sender_name(sender: User | None) -> str:
    if sender is None:
        return ""
    return " ".join(filter(None, (sender.first_name, sender.last_name))) or sender.email


def _shown_name(submitter: Submitter) -> str:
    return submitter.name or submitter.email or submitter.phone or ""


def _text(value: object, language: str) -> str:
    if isinstance(value, bool):
        return languages.translator(language)("audit_log.yes" if value else "audit_log.no")
    return ", ".join(map(str, value)) if isinstance(value, list) else str(value)


def _time(moment: datetime | None, language: str) -> str:
    return mail.format_time(moment, language) if moment else ""


def _key(name: str) -> str:
    return " ".join(name.split()).lower()


@functools.cache
def _variable() -> re2._Regexp:
    import re2  # loaded with the first message, as the validation patterns load it

    return re2.compile(VARIABLE)
