"""Sending a template for signing from the console: a plain form with a signer for each role of the template,
the order, the emails, a custom message and an expiry, posted as the body of POST /api/submissions to the same
`Submissions.create`. A refusal is the API's message, shown beside the input it is about, the values kept."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from aiohttp import web
from multidict import MultiDictProxy

from signsvc.http.appkeys import SUBMISSIONS, TEMPLATES
from signsvc.http.params import record_id
from signsvc.http.web.console import shell
from signsvc.http.web.console.shell import Console
from signsvc.infra import errors
from storage.records import Template

# Submissions sent by a person from the console, as the hosted service marks those sent from its own pages.
SOURCE = "invite"
CONTACT = ("email", "name", "phone")
# Where the API's message says a refused value is: ``email is invalid in `submitters[1]`.``
_LOCATED = re.compile(r" in `(?P<where>[^`]+)`\.$")
_SIGNER = re.compile(r"^submitters\[(?P<index>\d+)\]")


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

    @classmethod
    def blank(cls, template: Template) -> SendForm:
        return cls([Signer(role["name"]) for role in template.roles])

    @classmethod
    def posted(cls, template: Template, form: MultiDictProxy[Any]) -> SendForm:
        """The posted values, one signer for each of the template's roles (by position)."""
        def text(name: str) -> str:
            value = form.get(name, "")
            return value.strip() if isinstance(value, str) else ""

        signers = [Signer(role["name"], **{key: text(f"{key}-{index}") for key in CONTACT})
                   for index, role in enumerate(template.roles)]
        return cls(signers, order=text("order") or "preserved", send_email=text("send_email") == "on",
                   subject=text("subject"), body=text("body"), expire_at=text("expire_at"))

    def request(self, template_id: int) -> dict[str, Any]:
        """The body of POST /api/submissions: every role with its signer (an empty one is the API's to refuse)."""
        body: dict[str, Any] = {
            "template_id": template_id, "order": self.order, "send_email": self.send_email,
            "submitters": [{"role": signer.role, **{key: getattr(signer, key) for key in CONTACT
                                                    if getattr(signer, key)}} for signer in self.signers]}
        if self.subject or self.body:
            body["message"] = {"subject": self.subject, "body": self.body}
        if self.expire_at:
            body["expire_at"] = self.expire_at
        return body


@dataclass(frozen=True)
class Problem:
    """A refusal: the API's message and the id of the input it is about (None: the form as a whole)."""

    message: str
    input: str | None

    @classmethod
    def of(cls, message: str) -> Problem:
        return cls(message, _input_of(message))


def _input_of(message: str) -> str | None:
    located = _LOCATED.search(message)
    where = located["where"] if located else ""
    if signer := _SIGNER.match(where):
        key = next((key for key in CONTACT if message.startswith(key + " ")), "email")
        return f"{key}-{signer['index']}"
    if where == "message":
        return "subject" if message.startswith("subject ") else "body"
    for key in ("expire_at", "order"):
        if message.startswith(key + " "):
            return key
    return None


async def send_page(request: web.Request) -> web.Response:
    """GET /console/templates/{id}/send."""
    console = await shell.signed_in(request)
    template = await request.app[TEMPLATES].find(console.principal, record_id(request))
    return _form(request, console, template, SendForm.blank(template))


async def send(request: web.Request) -> web.Response:
    """POST /console/templates/{id}/send: the submission made, or the form again with the API's refusal."""
    console = await shell.signed_in(request)
    form = await shell.posted(request, console.session)
    template = await request.app[TEMPLATES].find(console.principal, record_id(request))
    filled = SendForm.posted(template, form)
    try:
        submission, _ = await request.app[SUBMISSIONS].create(console.principal, filled.request(template.id),
                                                              source=SOURCE)
    except errors.Invalid as refused:
        return _form(request, console, template, filled, status=422, problem=Problem.of(refused.message))
    raise shell.done(f"/console/submissions/{submission.id}",
                     "submission_sent" if filled.send_email else "submission_created")


def _form(request: web.Request, console: Console, template: Template, filled: SendForm, *, status: int = 200,
          problem: Problem | None = None) -> web.Response:
    return shell.render(request, "console/send.html", console.session, console=console, status=status,
                        chosen=template, form=filled, problem=problem)


ROUTES = [
    web.get(r"/console/templates/{id:\d{1,18}}/send", send_page),
    web.post(r"/console/templates/{id:\d{1,18}}/send", send),
]
