"""The kit for test suites: signsvc.testing's in-process service and pytest plugin, `connect()` to one
started as a process, and the sample suite of docs/testing.md."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import urllib.request

import pytest

from signsvc.testing import LIVE_KEY, TEST_KEY, TestingError, connect, running
from tests.support import service
from tests.support.documents import b64, pdf
from tests.support.paths import NPM_DIR, ROOT
from tests.support.system import NODE, NPM_CLIENT, PANGO, SOFFICE

EXAMPLES = ROOT / "docs" / "examples"
FIELDS = [{"name": "Full Name", "role": "Buyer", "areas": [{"x": 0.1, "y": 0.1, "w": 0.3, "h": 0.05, "page": 1}]}]


def api_call(kit, method: str, path: str, body: dict | None = None, key: str | None = None) -> dict:
    import json

    request = urllib.request.Request(
        f"{kit.api_url}{path}",
        method=method,
        data=json.dumps(body).encode() if body is not None else None,
        headers={"X-Auth-Token": key or kit.key, "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def sent(kit) -> dict:
    """A template with one Buyer field, sent to one submitter."""
    template = api_call(
        kit,
        "POST",
        "/templates",
        {"name": "Order", "documents": [{"name": "order", "file": b64(pdf()), "fields": FIELDS}]},
    )
    return api_call(
        kit, "POST", "/submissions", {"template_id": template["id"], "submitters": [{"email": "bo@example.com"}]}
    )[0]


def test_the_in_process_service_has_fixed_keys_and_captures_every_webhook():
    with running() as kit:
        assert (kit.key, kit.test_key) == (LIVE_KEY, TEST_KEY)
        assert api_call(kit, "GET", "/user")["email"] == "admin@example.com"
        submitter = sent(kit)
        signed = kit.sign_as(submitter, {"Full Name": "Bo"})
        assert signed["status"] == "completed"
        assert kit.wait_for_webhook("submission.completed")["data"]["id"] == submitter["submission_id"]
        assert [hook["event_type"] for hook in kit.webhooks()] == [
            "template.created",
            "submission.created",
            "form.viewed",
            "form.started",
            "form.completed",
            "submission.completed",
        ]
        assert kit.webhooks("form.viewed")[0]["data"]["id"] == submitter["id"]


def test_waiting_for_a_webhook_that_never_comes_fails_naming_what_came():
    with running() as kit:
        sent(kit)
        kit.drain()
        with pytest.raises(
            TimeoutError,
            match=r"no form.completed webhook within 0.2 s; received: "
            r"\['template.created', 'submission.created'\]",
        ):
            kit.wait_for_webhook("form.completed", timeout=0.2)


def test_sign_as_acts_for_a_signer_who_must_verify_their_email_without_the_code():
    with running() as kit:
        template = api_call(
            kit,
            "POST",
            "/templates",
            {"name": "Order", "documents": [{"name": "order", "file": b64(pdf()), "fields": FIELDS}]},
        )
        body = {"template_id": template["id"], "submitters": [{"email": "bo@example.com"}], "require_email_2fa": True}
        [submitter] = api_call(kit, "POST", "/submissions", body)
        assert submitter["preferences"]["require_email_2fa"] is True
        assert kit.sign_as(submitter, {"Full Name": "Bo"})["status"] == "completed"


def test_a_reset_forgets_the_data_and_the_captured_webhooks_but_not_the_keys():
    with running() as kit:
        sent(kit)
        kit.drain()
        kit.reset()
        assert kit.webhooks() == [] and kit.emails() == []
        assert api_call(kit, "GET", "/templates")["data"] == []
        assert api_call(kit, "GET", "/user", key=TEST_KEY)["email"] == "admin@example.com"


def test_the_clock_moves_and_runs_what_became_due():
    with running() as kit:
        kit.freeze()
        before = kit.now()
        assert kit.now() == before, "frozen"
        moved = kit.advance(3600)
        assert moved > before
        assert kit.set_time("2030-01-01T00:00:00Z") == "2030-01-01T00:00:00.000Z"


def test_a_refused_testing_call_says_what_the_service_answered():
    with running() as kit, pytest.raises(TestingError, match=r"POST submitters/999/view: 404 "):
        kit.view_as(999)


def test_settings_change_the_in_process_service():
    with running(rate_limit_per_key=1) as kit:
        api_call(kit, "GET", "/user")
        with pytest.raises(urllib.error.HTTPError) as refused:
            api_call(kit, "GET", "/user")
        refused.value.close()
        assert refused.value.code == 429


async def test_connect_drives_a_service_started_as_a_process_with_signsvc_testing():
    started = await service.start(
        SIGNSVC_TESTING="1", SIGNSVC_API_KEY="process-key", SIGNSVC_DATABASE_URL="sqlite:///:memory:"
    )
    try:
        kit = connect(started.site, "process-key")

        def scenario():
            submitter = sent(kit)
            kit.sign_as(submitter, {"Full Name": "Bo"})
            return submitter, kit.deliveries(), kit.emails(), kit.advance(60)

        _submitter, deliveries, emails, _ = await asyncio.to_thread(scenario)
        assert deliveries == [] and emails[0]["to"] == "bo@example.com"
        with pytest.raises(TestingError, match="use deliveries"):
            kit.webhooks()
    finally:
        assert await started.stop() == 0


async def test_the_testing_extension_is_off_in_a_process_without_signsvc_testing():
    started = await service.start(SIGNSVC_API_KEY="process-key", SIGNSVC_DATABASE_URL="sqlite:///:memory:")
    try:
        with pytest.raises(TestingError, match="GET clock: 404"):
            await asyncio.to_thread(connect(started.site, "process-key").now)
    finally:
        assert await started.stop() == 0


@pytest.mark.parametrize(
    "suite",
    ["test_contract_flow.py", pytest.param("test_documents_from_data.py", marks=[PANGO, SOFFICE])],
)
def test_the_sample_suites_of_the_docs_pass_with_the_pytest_plugin(tmp_path, suite):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SIGNSVC_", "PYTEST_"))}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-n",
            "0",
            "--rootdir",
            str(tmp_path),
            "-c",
            os.devnull,
            str(EXAMPLES / suite),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    tests = (EXAMPLES / suite).read_text().count("\ndef test_")
    assert f"{tests} passed" in done.stdout


@NODE
@NPM_CLIENT
async def test_the_npm_sample_suite_of_the_docs_passes_against_a_service_started_with_signsvc_testing(tmp_path):
    started = await service.start(
        SIGNSVC_TESTING="1", SIGNSVC_API_KEY="npm-suite-key", SIGNSVC_DATABASE_URL="sqlite:///:memory:"
    )
    try:
        (tmp_path / "node_modules").symlink_to(NPM_DIR / "node_modules")
        suite = tmp_path / "contract_flow.test.mjs"
        suite.write_text((EXAMPLES / "contract_flow.test.mjs").read_text())
        node = await asyncio.create_subprocess_exec(
            "node",
            "--test",
            str(suite),
            cwd=tmp_path,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env={**os.environ, "SIGNSVC_URL": started.site, "SIGNSVC_KEY": "npm-suite-key"},
        )
        out, err = await asyncio.wait_for(node.communicate(), 120)
        assert node.returncode == 0, out.decode()[-3000:] + err.decode()[-2000:]
        assert "# pass 2" in out.decode()
    finally:
        assert await started.stop() == 0


def test_the_docs_show_the_sample_suites_as_they_are():
    docs = (ROOT / "docs" / "testing.md").read_text()
    assert f"```python\n{(EXAMPLES / 'test_contract_flow.py').read_text()}```" in docs
    assert f"```js\n{(EXAMPLES / 'contract_flow.test.mjs').read_text()}```" in docs
