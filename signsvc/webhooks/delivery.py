"""Sending webhook deliveries: a signed POST of the event envelope, made by a job
outside any transaction, with one time limit for the whole exchange; of the answer only its status
is taken. Each attempt is logged and the next one scheduled by the retry schedule.

An attempt's outcome (in the log, and the test webhook's answer) is its status code, its duration and a
reason that never tells what listens at the URL: the answer's body is not read, and a refused connection,
a reset, a timeout, a TLS or a non-HTTP server all read alike. Otherwise anyone who may add an endpoint
could read internal services and tell their open ports from closed ones.

A delivery's row is the truth (status, failures, next attempt time); its job is only the durable
wake-up. The handler is idempotent: a job run again after a crash sends only a delivery that is
still pending and due.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import aiohttp
from yarl import URL

import storage.webhooks as stored
from signsvc.infra import downloads, errors, jobs
from signsvc.infra.clock import Clock
from signsvc.webhooks import endpoints, signature
from signsvc.webhooks.payloads import Payloads
from signsvc.wire.encoding import dumps, iso
from storage import Database
from storage.records import DeliveryStatus, WebhookDelivery, WebhookEndpoint

USER_AGENT = "signsvc-webhooks/1"
NO_ANSWER = "No HTTP answer: the connection failed, broke off or timed out"
# A handler failure (the database away, a payload that cannot be built) is not a failed attempt:
# the job retries on its own schedule, and the delivery keeps its place.
HANDLER_RETRIES = jobs.Backoff(longest=timedelta(hours=1), attempts=50)


@dataclass(frozen=True)
class Outcome:
    """One attempt: acknowledged or not, the answer's status code, what went wrong, how long it took."""

    delivered: bool
    attempted_at: datetime
    response_status: int | None = None
    error: str | None = None
    duration_ms: int = 0


class Sender:
    """One HTTP client for every delivery: redirects are not followed, no cookies, no proxy from the
    environment, one time limit per attempt, nothing of the answer read but its status.

    `public_only` refuses private and local addresses (the resolver answers only public ones, so a
    name that changes its answer between check and connection gets nowhere).
    """

    def __init__(self, *, timeout: float, public_only: bool) -> None:
        self.timeout, self.public_only = timeout, public_only
        self._client: aiohttp.ClientSession | None = None

    async def post(self, clock: Clock, url: str, body: bytes, headers: dict[str, str]) -> Outcome:
        attempted_at, started = clock.now(), time.monotonic()
        if refused := self._refused(url):
            return Outcome(False, attempted_at, error=refused)
        status, error = None, None
        try:
            async with asyncio.timeout(self.timeout):
                async with self._session().post(url, data=body, headers=headers, allow_redirects=False) as response:
                    status = response.status
        except TimeoutError:
            error = NO_ANSWER
        except aiohttp.ClientError as exc:
            error = _explain(exc)
        duration_ms = round((time.monotonic() - started) * 1000)
        if status is None:
            return Outcome(False, attempted_at, None, error, duration_ms)
        # Any 2xx acknowledges; a 3xx counts as delivered and is not followed.
        if status < 400:
            return Outcome(True, attempted_at, status, None, duration_ms)
        return Outcome(False, attempted_at, status, f"HTTP {status}", duration_ms)

    def _refused(self, url: str) -> str | None:
        # An address written in the URL is never resolved, so the resolver never sees it.
        host = URL(url).host or ""
        if self.public_only and downloads.is_ip(host) and not downloads.is_public(host):
            return _PRIVATE
        return None

    def _session(self) -> aiohttp.ClientSession:
        if self._client is None:
            connector = aiohttp.TCPConnector(resolver=downloads.PublicResolver() if self.public_only else None)
            self._client = aiohttp.ClientSession(connector=connector, cookie_jar=aiohttp.DummyCookieJar(),
                                                 trust_env=False, timeout=aiohttp.ClientTimeout(total=None))
        return self._client

    async def close(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None


class Deliverer:
    """Sends deliveries (the `webhooks.deliver` job) and test webhooks, with one `Sender`; the payload
    of each event is built by `Payloads` when it is sent."""

    def __init__(self, db: Database, clock: Clock, payloads: Payloads, sender: Sender, *,
                 fast_retries: bool = False) -> None:
        self.db, self.clock, self.payloads, self.sender = db, clock, payloads, sender
        self.fast_retries = fast_retries

    def kinds(self) -> list[jobs.Kind]:
        return [jobs.Kind(endpoints.DELIVER, self.deliver, backoff=HANDLER_RETRIES)]

    async def deliver(self, payload: dict[str, Any]) -> datetime | None:
        """Makes the delivery's next attempt if it is pending and due; answers when to run again."""
        db, clock = self.db, self.clock
        delivery = await stored.get_delivery(db, payload["delivery_id"])
        if delivery is None or delivery.status is not DeliveryStatus.PENDING:
            return None  # the endpoint was deleted, or the delivery was settled by an earlier run
        if delivery.next_attempt_at is not None and delivery.next_attempt_at > clock.now():
            return delivery.next_attempt_at  # run early: after a crash between an attempt and its job's release
        data = await self.payloads.data(db, delivery.record_type, delivery.record_id, delivery.event_type)
        if data is None:
            gone = f"Not sent: the {delivery.record_type} {delivery.record_id} no longer exists"
            return await self._record(delivery, Outcome(False, clock.now(), error=gone), final=True)
        envelope = {"event_id": delivery.event_uuid, "event_type": delivery.event_type,
                    "timestamp": iso(delivery.event_created_at), "data": data}
        outcome = await self.sender.post(clock, delivery.url, *signed(delivery, clock, envelope))
        return await self._record(delivery, outcome)

    async def test(self, endpoint: WebhookEndpoint) -> Outcome:
        """Sends a sample form.completed built from the account's latest completed submitter, at once,
        without an event_id; it is not logged and not retried."""
        submitter_id = await stored.latest_completed_submitter_id(self.db, endpoint.account_id)
        if submitter_id is None:
            raise errors.Invalid("No signer of this account has completed yet: the test webhook is a form.completed "
                                 "built from the latest completed signer")
        data = await self.payloads.submitter(self.db, submitter_id)
        envelope = {"event_type": "form.completed", "timestamp": iso(self.clock.now()), "data": data}
        return await self.sender.post(self.clock, endpoint.url, *signed(endpoint, self.clock, envelope))

    async def _record(self, delivery: WebhookDelivery, outcome: Outcome, *, final: bool = False) -> datetime | None:
        """Logs the attempt and settles the delivery or schedules its next attempt; answers that time."""
        failures = 0 if outcome.delivered else delivery.failures + 1
        next_at = None if outcome.delivered or final else self._retries(delivery.event_type).next_at(failures,
                                                                                                      self.clock)
        status = DeliveryStatus.DELIVERED if outcome.delivered else \
            DeliveryStatus.PENDING if next_at else DeliveryStatus.FAILED
        async with self.db.transaction() as tx:
            await stored.record_attempt(tx, delivery, attempted_at=outcome.attempted_at,
                                        response_status=outcome.response_status, error=outcome.error,
                                        duration_ms=outcome.duration_ms, status=status, failures=failures,
                                        next_attempt_at=next_at, now=self.clock.now())
        return next_at

    def _retries(self, event_type: str) -> jobs.Backoff:
        schedule = endpoints.retries(event_type)
        return schedule.fast() if self.fast_retries else schedule


def signed(endpoint: WebhookEndpoint | WebhookDelivery, clock: Clock,
           envelope: dict[str, Any]) -> tuple[bytes, dict[str, str]]:
    """The body and headers of a delivery, signed with the endpoint's secret (which a delivery record
    carries too)."""
    body = dumps(envelope).encode()
    timestamp = int(clock.now().timestamp())
    headers = {"Content-Type": "application/json", "User-Agent": USER_AGENT,
               "X-Service-Event-Type": envelope["event_type"], "X-Service-Timestamp": str(timestamp)}
    if "event_id" in envelope:
        headers["X-Service-Event-Id"] = envelope["event_id"]
    if endpoint.secret is not None and endpoint.secret_header is not None:
        headers["X-Service-Signature"] = signature.sign(endpoint.secret, timestamp, body)
        headers[endpoint.secret_header] = endpoint.secret
    return body, headers


_PRIVATE = "The URL points to a private or local network address (refused by SIGNSVC_WEBHOOK_PUBLIC_ONLY)"


def _explain(exc: aiohttp.ClientError) -> str:
    """Why no answer came, in words for the delivery log: whether signsvc refused the URL, never what the
    connection met (see the module's note)."""
    if isinstance(exc, aiohttp.InvalidURL):
        return "The URL is not valid"
    if isinstance(exc, aiohttp.ClientConnectorDNSError) and isinstance(exc.os_error, downloads.Refused):
        return _PRIVATE
    return NO_ANSWER
