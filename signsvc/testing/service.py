"""A signsvc for an application's test suite: started in this process (`running`), or one started
elsewhere with SIGNSVC_TESTING=1 (`connect`), driven through the testing extension of its API.

The in-process service runs on a thread of its own with its own event loop, so synchronous tests and
clients (the official `docuseal` client is synchronous) can call it; its database is SQLite in memory,
its keys are fixed, and a local receiver captures every webhook it sends.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

from signsvc.testing.inbox import Inbox

LIVE_KEY = "signsvc-testing-live-key"
TEST_KEY = "signsvc-testing-test-key"
START_TIMEOUT_SECONDS = 30.0


class TestingError(RuntimeError):
    """The service answered a testing call with an error; the message is its answer."""

    __test__ = False  # not a test class, whatever pytest makes of the name


class Service:
    """A running signsvc with the testing extension: its addresses, its keys, and the calls that act on
    it. `key` is the live key (the test key addresses the linked test account)."""

    def __init__(self, url: str, key: str, *, test_key: str | None = None, inbox: Inbox | None = None) -> None:
        self.url, self.key, self.test_key = url.rstrip("/"), key, test_key
        self.api_url = f"{self.url}/api"
        self.inbox = inbox

    def now(self) -> str:
        """The service clock, as ISO 8601."""
        return str(self._call("GET", "clock")["now"])

    def advance(self, seconds: float) -> str:
        """Moves the service clock forward and runs what became due (expiries, webhook retries); answers
        the new time."""
        return str(self._call("POST", "clock/advance", {"seconds": seconds})["now"])

    def set_time(self, moment: str) -> str:
        """Sets the service clock to an ISO 8601 time, then runs what became due."""
        return str(self._call("POST", "clock/set", {"time": moment})["now"])

    def freeze(self) -> str:
        return str(self._call("POST", "clock/freeze")["now"])

    def unfreeze(self) -> str:
        return str(self._call("POST", "clock/unfreeze")["now"])

    def reset(self) -> None:
        """Forgets every template, submission, clickwrap, webhook endpoint, event, email and file (keys
        stay), and every webhook captured so far."""
        self._call("POST", "reset")
        if self.inbox:
            self.inbox.clear()

    def drain(self) -> int:
        """Runs every job that is due (documents, deliveries, emails) and answers once none is left."""
        return int(self._call("POST", "jobs/drain")["ran"])

    def view_as(self, submitter: Any) -> dict[str, Any]:
        return self._as(submitter, "view")

    def start_as(self, submitter: Any, values: dict[str, Any] | None = None) -> dict[str, Any]:
        return self._as(submitter, "start", {"values": values or {}})

    def sign_as(self, submitter: Any, values: dict[str, Any] | None = None) -> dict[str, Any]:
        """Opens the submitter's form and completes it as a person would in the signing form (values by
        field name), then runs the jobs that follow (documents, webhooks, emails); answers the submitter."""
        self.view_as(submitter)
        signed = self._as(submitter, "complete", {"values": values or {}})
        self.drain()
        return signed

    def decline_as(self, submitter: Any, reason: str) -> dict[str, Any]:
        """Opens the submitter's form and declines it with `reason`, then runs the jobs that follow."""
        self.view_as(submitter)
        declined = self._as(submitter, "decline", {"reason": reason})
        self.drain()
        return declined

    def emails(self, *, limit: int = 100) -> list[dict[str, Any]]:
        """The emails the service sent or kept, newest first: to, subject, text, html, links, attachments."""
        return list(self._call("GET", f"emails?limit={limit}")["data"])

    def deliveries(self, event_type: str | None = None, *, wait: int = 0) -> list[dict[str, Any]]:
        """The webhook delivery log, newest first; `wait` seconds for one of `event_type` to exist."""
        query = f"wait={wait}&limit=100" + (f"&event_type={event_type}" if event_type else "")
        return list(self._call("GET", f"webhooks/deliveries?{query}")["data"])

    def webhooks(self, event_type: str | None = None) -> list[dict[str, Any]]:
        """The webhooks received so far (their JSON bodies), oldest first."""
        return self._inbox().received(event_type)

    def wait_for_webhook(self, event_type: str, *, timeout: float = 5.0, **data: Any) -> dict[str, Any]:
        """The first webhook received of `event_type` whose `data` has the given values (e.g. `id=3`),
        waiting for it up to `timeout` seconds."""
        return self._inbox().wait_for(event_type, timeout=timeout, **data)

    def _inbox(self) -> Inbox:
        if self.inbox is None:
            raise TestingError("this service sends its webhooks elsewhere: use deliveries() to read its log")
        return self.inbox

    def _as(self, submitter: Any, action: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        submitter_id = submitter["id"] if isinstance(submitter, dict) else int(submitter)
        return dict(self._call("POST", f"submitters/{submitter_id}/{action}", body))

    def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            f"{self.api_url}/_testing/{path}",
            data=data,
            method=method,
            headers={"X-Auth-Token": self.key, "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as error:
            with error:  # its connection, closed once the answer is read
                raise TestingError(f"{method} {path}: {error.code} {error.read().decode(errors='replace')}") from None


def connect(url: str, key: str) -> Service:
    """A signsvc started elsewhere with SIGNSVC_TESTING=1 (a process, a container), at its site URL."""
    return Service(url, key)


@contextlib.contextmanager
def running(**settings: Any) -> Iterator[Service]:
    """A signsvc in this process until the block ends: SQLite in memory, fixed keys (`LIVE_KEY`,
    `TEST_KEY`), every webhook captured. `settings` are `signsvc.infra.config.Config` fields
    (`rate_limit_per_key=0`, `smtp_url=...`)."""
    runner = _Runner(settings)
    runner.start()
    try:
        yield runner.service
    finally:
        runner.stop()


class _Runner:
    """The thread that runs the service and its webhook inbox on an event loop of their own."""

    def __init__(self, settings: dict[str, Any]) -> None:
        self.settings = settings
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._run, name="signsvc-testing", daemon=True)
        self.failure: BaseException | None = None
        self.service: Service

    def start(self) -> None:
        self.thread.start()
        if not self.ready.wait(START_TIMEOUT_SECONDS):
            raise TestingError("signsvc did not start in time")
        if self.failure:
            raise TestingError(f"signsvc did not start: {self.failure}") from self.failure

    def stop(self) -> None:
        if self.thread.is_alive():
            self.loop.call_soon_threadsafe(self._stopping.set)
            self.thread.join(START_TIMEOUT_SECONDS)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(self._serve())
        self.loop.close()

    async def _serve(self) -> None:
        self._stopping = asyncio.Event()
        inbox = Inbox()
        runners: list[Any] = []
        try:
            from signsvc.app import create_app, serving_started
            from signsvc.infra.config import Config

            inbox_url = await _start(inbox.app(), runners)
            sock = _socket()
            site = f"http://127.0.0.1:{sock.getsockname()[1]}"
            config = Config(
                **{
                    "database_url": "sqlite:///:memory:",
                    "api_key": LIVE_KEY,
                    "test_api_key": TEST_KEY,
                    "site_url": site,
                    "testing": True,
                    "webhook_url": inbox_url,
                    "test_webhook_url": inbox_url,
                    "log_level": "WARNING",
                    **self.settings,
                }
            )
            app = create_app(config)
            await _start(app, runners, sock)
            serving_started(app)
            self.service = Service(site, LIVE_KEY, test_key=TEST_KEY, inbox=inbox)
        except BaseException as error:
            self.failure = error
        self.ready.set()
        if not self.failure:
            await self._stopping.wait()
        for runner in reversed(runners):
            await runner.cleanup()


async def _start(app: Any, runners: list[Any], sock: socket.socket | None = None) -> str:
    from aiohttp import web

    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    runners.append(runner)
    sock = sock or _socket()
    await web.SockSite(runner, sock).start()
    return f"http://127.0.0.1:{sock.getsockname()[1]}/"


def _socket() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    sock.setblocking(False)
    return sock
