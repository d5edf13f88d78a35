"""Records the deepest operations act on, made through the API just before a valid case needs one.

Signing as a submitter, reading a completed submission's documents, resending a delivery, the test webhook
and reading a consent or an email each need records several steps away (a template, a submission, a signer
who completed, an endpoint with a delivery, a published clickwrap). The stateful phase gets there by the
document's links when its scenarios go that deep; the coverage and fuzzing phases would only ever draw ids
that name nothing. For their valid cases these ids name real records, fresh where the operation uses one
up (a signer who signs, a submission archived), shared and made again when gone (the testing extension's
reset forgets everything) where it only reads.
"""

from __future__ import annotations

import base64
import json
import os
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from tests.support.documents import pdf, word

PDF = base64.b64encode(pdf()).decode()  # one page
DOCX = base64.b64encode(word("Order of [[name]]", "[[if: total > 10]]Free shipping.[[end]]")).decode()  # one A4 page
_FIELD = {
    "name": "Note",
    "type": "text",
    "required": False,
    "areas": [{"x": 0.1, "y": 0.1, "w": 0.3, "h": 0.05, "page": 1}],
}


class Api:
    def __init__(self, base: str, key: str) -> None:
        self.base, self.key = base, key

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        request = urllib.request.Request(
            self.base + path,
            method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={"X-Auth-Token": self.key, "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.loads(response.read())

    def exists(self, path: str) -> bool:
        try:
            self.call("GET", path)
        except urllib.error.HTTPError as error:
            if error.code == 404:
                return False
            raise
        return True


class Records:
    def __init__(self, api: Api) -> None:
        self.api = api
        self._shared: dict[str, tuple[str, int]] = {}

    def signer(self) -> dict[str, Any]:
        """A signer who has not signed yet, of a new submission (send_email: an email in the outbox)."""
        return self.api.call(
            "POST",
            "/submissions",
            {
                "template_id": self.template(),
                "send_email": True,
                "submitters": [{"email": "signer@example.com", "name": "Signer"}],
            },
        )[0]

    def completed_submission(self) -> int:
        def make() -> tuple[str, int]:
            signer = self.signer()
            self.api.call("POST", f"/_testing/submitters/{signer['id']}/complete", {"values": {"Note": "Done"}})
            self.run_jobs()
            return f"/submissions/{signer['submission_id']}", signer["submission_id"]

        return self._kept("completed", make)

    def run_jobs(self) -> None:
        """Runs the jobs that are due (documents, deliveries, emails) and waits for them."""
        self.api.call("POST", "/_testing/jobs/drain")

    def endpoint(self) -> int:
        def make() -> tuple[str, int]:
            created = self.api.call("POST", "/webhooks", {"url": "http://127.0.0.1:9/records", "events": "all"})
            return f"/webhooks/{created['id']}", created["id"]

        return self._kept("endpoint", make)

    def delivery(self) -> tuple[int, int]:
        """An endpoint and one of its deliveries (of the event a new submission makes)."""
        endpoint = self.endpoint()
        found = self.api.call("GET", f"/webhooks/{endpoint}/deliveries?limit=1")["data"]
        if not found:
            self.signer()
            found = self.api.call("GET", f"/webhooks/{endpoint}/deliveries?limit=1")["data"]
        return endpoint, found[0]["id"]

    def clickwrap(self) -> int:
        def make() -> tuple[str, int]:
            created = self.api.call(
                "POST",
                "/clickwraps",
                {"name": "Terms", "kind": "no_document", "content": "The terms.", "publish": True},
            )
            return f"/clickwraps/{created['id']}", created["id"]

        return self._kept("clickwrap", make)

    def consent(self) -> int:
        def make() -> tuple[str, int]:
            created = self.api.call("POST", f"/clickwraps/{self.clickwrap()}/consents", {"name": "Ann"})
            return f"/consents/{created['id']}", created["id"]

        return self._kept("consent", make)

    def signer_fields(self, submitter_id: Any) -> list[dict[str, Any]]:
        """The fields a signer fills: their role's in the template of their submission (none once either is
        gone; a template edited since the submission was made may no longer match it)."""
        try:
            signer = self.api.call("GET", f"/submitters/{urllib.parse.quote(str(submitter_id))}")
            if signer.get("template") is None:  # deleted for good
                return []
            template = self.api.call("GET", f"/templates/{signer['template']['id']}")
        except urllib.error.HTTPError:
            return []
        role = next((role["uuid"] for role in template["submitters"] if role["name"] == signer["role"]), None)
        return [field for field in template["fields"] if field["submitter_uuid"] == role]

    def email(self) -> int:
        found = self.api.call("GET", "/_testing/emails?limit=1")["data"]
        if not found:
            self.signer()
            found = self.api.call("GET", "/_testing/emails?limit=1")["data"]
        return found[0]["id"]

    def template(self) -> int:
        """A template someone can sign: one text field of one role."""

        def make() -> tuple[str, int]:
            created = self.api.call(
                "POST",
                "/templates",
                {"name": "Fuzzing", "documents": [{"name": "form", "file": PDF, "fields": [_FIELD]}]},
            )
            return f"/templates/{created['id']}", created["id"]

        return self._kept("template", make)

    def template_to_change(self) -> int:
        """A new template of one document, for a change of its documents (a shared one would grow with each)."""
        return self.api.call("POST", "/templates", {"name": "Changing", "documents": [{"name": "doc", "file": PDF}]})[
            "id"
        ]

    def _kept(self, name: str, make: Any) -> int:
        """A shared record, made again when it is gone (an archived template, or one without fields, is gone for new
        submissions)."""
        kept = self._shared.get(name)
        if kept is None or not self._usable(name, kept[0]):
            kept = self._shared[name] = make()
        return kept[1]

    def _usable(self, name: str, path: str) -> bool:
        if name == "template":  # an update may have archived it or taken its fields: no submission of it then
            try:
                template = self.api.call("GET", path)
            except urllib.error.HTTPError:
                return False
            return template.get("archived_at") is None and bool(template.get("fields"))
        return self.api.exists(path)


def from_environment() -> Records | None:
    base, key = os.environ.get("SIGNSVC_FUZZ_API"), os.environ.get("SIGNSVC_FUZZ_KEY")
    return Records(Api(base, key)) if base and key else None
