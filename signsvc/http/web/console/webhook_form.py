"""The console's webhook endpoint form: what a person entered, the body `/api/webhooks` takes for it, and
which input a refusal of the endpoints' rules is about (the message is theirs, shown beside that input)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from multidict import MultiDictProxy

from signsvc.webhooks.endpoints import DEFAULT_EVENTS
from storage.records import WebhookEndpoint

# The endpoints' messages start with the name of the input they are about (`url`, `events[0]`,
# `secret.value` ...): the first prefix that matches names the form's input; a message without one (the
# most endpoints an account may have) is about the form as a whole.
_INPUTS = (("secret.header", "secret_header"), ("secret", "secret_value"), ("url", "url"), ("events", "events"))


@dataclass(frozen=True)
class Entered:
    """The form's values, as shown again when the endpoints refuse them."""

    url: str = ""
    events: list[str] = field(default_factory=lambda: list(DEFAULT_EVENTS))
    secret_header: str = ""
    secret_value: str = ""
    remove_secret: bool = False

    @classmethod
    def posted(cls, form: MultiDictProxy[Any]) -> Entered:
        return cls(url=_text(form, "url").strip(), events=[str(value) for value in form.getall("events", [])],
                   secret_header=_text(form, "secret_header").strip(), secret_value=_text(form, "secret_value"),
                   remove_secret=form.get("remove_secret") == "on")

    @classmethod
    def of(cls, endpoint: WebhookEndpoint) -> Entered:
        """An endpoint's settings, for its edit form: the secret's value is never shown again."""
        return cls(url=endpoint.url, events=list(endpoint.events), secret_header=endpoint.secret_header or "")

    def create_body(self) -> dict[str, Any]:
        """A new endpoint: the events checked (none is refused by the endpoints), a secret when either part was
        entered."""
        return {"url": self.url, "events": self.events, "secret": self._secret()}

    def update_body(self, endpoint: WebhookEndpoint) -> dict[str, Any]:
        """A change of `endpoint`: its url and events as entered; its secret removed (only when asked to),
        replaced by the one entered, or kept when neither a value nor another header name was entered."""
        body: dict[str, Any] = {"url": self.url, "events": self.events}
        if self.remove_secret:
            body["secret"] = None
        elif self.secret_value or self.secret_header not in ("", endpoint.secret_header):
            body["secret"] = {"header": self.secret_header, "value": self.secret_value}
        return body

    @property
    def sets_secret(self) -> bool:
        """Whether the body sets a secret value, to be shown once after it is saved."""
        return bool(self.secret_value) and not self.remove_secret

    def _secret(self) -> dict[str, str] | None:
        if not self.secret_header and not self.secret_value:
            return None
        return {"header": self.secret_header, "value": self.secret_value}


def input_of(message: str) -> str:
    """The form's input a refusal is about ("" for the form as a whole)."""
    return next((name for prefix, name in _INPUTS if message.startswith(prefix)), "")


def _text(form: MultiDictProxy[Any], name: str) -> str:
    value = form.get(name, "")
    return value if isinstance(value, str) else ""
