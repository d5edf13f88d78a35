"""Repairs of generated clickwraps requests: rules JSON Schema cannot state (see hooks.py)."""

import itertools
from typing import Any

from yarl import URL

_SERIAL = itertools.count(1)
_WITH_DOCUMENT = ("view_only", "requires_signature")


def repair(operation: str, case: Any) -> None:
    """Mends a case generated as valid where the document cannot say what valid is."""
    body = case.body if isinstance(case.body, dict) else None
    if body is None:
        return
    if operation in ("createClickwrap", "updateClickwrap"):
        if operation == "createClickwrap" and case.meta.phase.name.value == "stateful":
            # A draft is valid, but consents need a published version: the scenarios that follow a clickwrap
            # to its consents would stop at it (publishing again later makes a new version).
            body["publish"] = True
        _clickwrap(operation, body)
    elif operation in ("createWebhookEndpoint", "updateWebhookEndpoint") and isinstance(body.get("url"), str):
        body["url"] = _unique_url(body["url"])


def _clickwrap(operation: str, body: dict[str, Any]) -> None:
    # template_id must name a template of the account (a reference the generator cannot know).
    if operation == "updateClickwrap":
        # The stored draft decides whether a kind fits the template it has: the update leaves both alone.
        body.pop("kind", None)
        body.pop("template_id", None)
    elif body.get("template_id") is not None or body.get("kind") in _WITH_DOCUMENT:
        # A draft without a document; the stateful phase's link from a template makes document drafts
        # (its body is merged after this hook).
        body["template_id"] = None
        if body.get("kind") in _WITH_DOCUMENT:
            body["kind"] = "no_document"
    # Publishing a no_document draft needs content that is not blank (a rule across fields and, on update,
    # the stored draft).
    if body.get("publish") and not (body.get("content") or "").strip():
        body["content"] = "The terms."


def _unique_url(url: str) -> str:
    """An account has one endpoint per URL (state): a fragment makes each drawn URL new. Deliveries to the drawn
    host would wait on DNS (a name that never answers holds every attempt for the whole delivery timeout, and
    a clock move makes them all due at once): the host becomes a local port that refuses at once."""
    try:
        url = str(URL(url).with_host("127.0.0.1").with_port(9))
    except ValueError:
        url = "http://127.0.0.1:9/"
    serial = f"n{next(_SERIAL)}"
    return (url + serial if "#" in url else f"{url}#{serial}") if len(url) + len(serial) < 2047 else url
