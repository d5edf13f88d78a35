"""The console's webhook endpoint form: what a person entered, the body `/api/webhooks` takes for it, and
which input a refusal of the endpoints' rules is about (the message is theirs, shown beside that input)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from multidict import MultiDictProxy

from signsvc.http.web.console.forms import text
from signsvc.webhooks.endpoints import DEFAULT_EVENTS
from storage.records import WebhookEndpoint

# The form's input for each field of the body a refusal of the endpoints may be about (`forms.by_key`); a refusal
# about no field (the most endpoints an account may have) is about the form as a whole.
INPUTS = {
    "url": "url",
    "events": "events",
    "secret": "secret_value",
    "secret.header": "secret_header",
    "secret.value": "secret_value",
}


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
        return cls(
            url=text(form, "url"),
            events=[str(value) for value in form.getall("events", [])],
            secret_header=text(form, "secret_header"),
            secret_value=text(form, "secret_value", strip=False),
            remove_secret=form.get("remove_secret") == "on",
        )

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
