"""Sending a template for signing from the console: a plain form with a signer for each role of the template,
the order, the emails, a custom message, an expiry and the template's variables (`send_variables`), posted as the
body of POST /api/submissions to the same `Submissions.create`. A refusal is the API's message (or the form's own,
for a variable that is not a number or not JSON), shown beside the input it is about, the values kept."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from aiohttp import web
from multidict import MultiDictProxy

from signsvc.http.appkeys import SUBMISSIONS, TEMPLATES
from signsvc.http.params import record_id
from signsvc.http.web import catalogue
from signsvc.http.web.console import bulk_table, send_variables, shell
from signsvc.http.web.console.bulk_mapping import Problem
from signsvc.http.web.console.forms import Refusal, text
from signsvc.http.web.console.paths import ID
from signsvc.http.web.console.send_variables import Variable
from signsvc.http.web.console.shell import Console
from signsvc.infra import errors
from storage.records import Template

# Submissions sent by a person from the console, as the hosted service marks those sent from its own pages.
SOURCE = "invite"
CONTACT = ("email", "name", "phone")


@dataclass(frozen=True)
class Signer:
    role: str
    email: str = ""
    name: str = ""
    phone: str = ""


@dataclass(frozen=True)
class SendForm:
    """The send form's values, as shown and as posted."""

    signers: list[Signer]
    order: str = "preserved"
    send_email: bool = True
    subject: str = ""
    body: str = ""
    expire_at: str = ""
    variables: list[Variable] = field(default_factory=list)

    @classmethod
    def blank(cls, template: Template) -> SendForm:
        return cls(
            [Signer(role["name"]) for role in template.roles],
            variables=send_variables.blank(template.variables_schema),
        )

    @classmethod
    def posted(cls, template: Template, form: MultiDictProxy[Any]) -> SendForm:
        """The posted values, one signer for each of the template's roles (by position)."""
        signers = [
            Signer(role["name"], **{key: text(form, f"{key}-{index}") for key in CONTACT})
            for index, role in enumerate(template.roles)
        ]
        return cls(
            signers,
            order=text(form, "order") or "preserved",
            send_email=text(form, "send_email") == "on",
            subject=text(form, "subject"),
            body=text(form, "body"),
            expire_at=text(form, "expire_at"),
            variables=send_variables.posted(template.variables_schema, form),
        )

    def request(self, template_id: int) -> dict[str, Any]:
        """The body of POST /api/submissions: every role with its signer (an empty one is the API's to refuse);
        `send_variables.Unreadable` for a variable's value that is not of its type."""
        body: dict[str, Any] = {
            "template_id": template_id,
            "order": self.order,
            "send_email": self.send_email,
            "reminders": True,  # the account's schedule (console, Reminders)
            "submitters": [
                {"role": signer.role, **{key: getattr(signer, key) for key in CONTACT if getattr(signer, key)}}
                for signer in self.signers
            ],
        }
        if self.subject or self.body:
            body["message"] = {"subject": self.subject, "body": self.body}
        if self.expire_at:
            body["expire_at"] = self.expire_at
        if self.variables:
            body["variables"] = send_variables.values(self.variables)
        return body


def input_of(location: errors.Location) -> str | None:
    """The form's input for a place in the body a refusal is about: a signer's contact (their email for any other
    field of theirs), the message's subject or body, the expiry or the order; None for the form as a whole."""
    match location:
        case ("submitters", int(index), *inner):
            return f"{inner[0] if inner and inner[0] in CONTACT else 'email'}-{index}"
        case ("message", key, *_):
            return "subject" if key == "subject" else "body"
        case (("expire_at" | "order") as key, *_):
            return key
    return None


async def send_page(request: web.Request) -> web.Response:
    """GET /console/templates/{id}/send."""
    console = await shell.signed_in(request)
    template = await request.app[TEMPLATES].find(console.principal, record_id(request))
    return form_page(request, console, template, SendForm.blank(template))


async def send(request: web.Request) -> web.Response:
    """POST /console/templates/{id}/send: the submission made, or the form again with the API's refusal."""
    console = await shell.signed_in(request)
    form = await shell.posted(request, console.session)
    template = await request.app[TEMPLATES].find(console.principal, record_id(request))
    filled = SendForm.posted(template, form)
    try:
        submission, _ = await request.app[SUBMISSIONS].create(
            console.principal, filled.request(template.id), source=SOURCE
        )
    except send_variables.Unreadable as unreadable:
        message = catalogue.translator(catalogue.language(request))(unreadable.key)
        return form_page(request, console, template, filled, status=422, refused=Refusal(message, unreadable.input_id))
    except errors.Invalid as refused:
        schema = template.variables_schema
        refusal = Refusal.of(refused, lambda at: send_variables.input_of(schema, at) or input_of(at))
        return form_page(request, console, template, filled, status=422, refused=refusal)
    raise shell.done(
        f"/console/submissions/{submission.id}", "submission_sent" if filled.send_email else "submission_created"
    )


def form_page(
    request: web.Request,
    console: Console,
    template: Template,
    filled: SendForm,
    *,
    status: int = 200,
    refused: Refusal | None = None,
    bulk_problem: Problem | None = None,
) -> web.Response:
    """The send page, with the form filled as `filled`, a refusal of it, or a refusal of a bulk file."""
    return shell.render(
        request,
        "console/send.html",
        console.session,
        console=console,
        status=status,
        chosen=template,
        form=filled,
        refused=refused,
        bulk_problem=bulk_problem,
        bulk_accepted=bulk_table.ACCEPTED,
        variables_required=any(variable.required for variable in filled.variables),
    )


ROUTES = [
    web.get(f"/console/templates/{ID}/send", send_page),
    web.post(f"/console/templates/{ID}/send", send),
]
