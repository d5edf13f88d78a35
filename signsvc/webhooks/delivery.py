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
import ssl
import time
from collections.abc import Awaitable, Iterable
from datetime import datetime
from typing import Any, TypeVar, cast

import storage.webhooks as stored
from signsvc.infra import errors, jobs, retries
from signsvc.infra.clock import Clock
from signsvc.webhooks import endpoints, signature
from signsvc.webhooks.answers import Outcome
from signsvc.webhooks.payloads import Data, Key, Payloads
from signsvc.webhooks.poster import InvalidUrl, NoAddress, Poster
from signsvc.wire.encoding import encoded, iso
from storage import Database
from storage.outbound_records import DeliveryStatus, WebhookDelivery, WebhookEndpoint

USER_AGENT = "signsvc-webhooks/1"
# Deliveries in flight at once across every endpoint, each on its own connection, kept alive between
# deliveries. The test webhook, which someone waits for, goes beside them and never queues behind a backlog.
CONNECTIONS = 100
NO_ANSWER = "No HTTP answer: the connection failed, broke off or timed out"


class Sender:
    """One HTTP client for every delivery (`signsvc/webhooks/poster.py`): redirects are not followed, no
    cookies, no proxy from the environment, one time limit per attempt, nothing of the answer read but its
    status. `public_only` refuses private and local addresses: a host name is connected to only through the
    public addresses its lookup answered."""

    def __init__(self, *, timeout: float, public_only: bool, tls: ssl.SSLContext | None = None) -> None:
        self.timeout = timeout
        self._poster = Poster(public_only=public_only, tls=tls)
        self._connections = asyncio.Semaphore(CONNECTIONS)

    async def post(
        self, clock: Clock, url: str, body: bytes, headers: dict[str, str], *, queued: bool = True
    ) -> Outcome:
        """A delivery waits for a free connection before its attempt begins, so that a batch queued behind
        slow endpoints does not spend its time limit waiting; `queued=False` (someone waiting for the test
        webhook's outcome) goes at once, beside the deliveries' connections."""
        if not queued:
            return await self._post(clock, url, body, headers)
        async with self._connections:
            return await self._post(clock, url, body, headers)

    async def _post(self, clock: Clock, url: str, body: bytes, headers: dict[str, str]) -> Outcome:
        attempted_at, started = clock.now(), time.monotonic()
        status, error = None, None
        try:
            async with asyncio.timeout(self.timeout):
                status = await self._poster.post(url, body, headers)
        except TimeoutError:
            error = NO_ANSWER
        except InvalidUrl:
            error = "The URL is not valid"
        except NoAddress:
            error = _PRIVATE
        except ValueError as exc:  # a header the endpoint's settings made that HTTP cannot carry
            error = f"Not sent: {exc}"
        except OSError:
            error = NO_ANSWER
        duration_ms = round((time.monotonic() - started) * 1000)
        if status is None:
            return Outcome(False, attempted_at, None, error, duration_ms)
        # Any 2xx acknowledges; a 3xx counts as delivered and is not followed.
        if status < 400:
            return Outcome(True, attempted_at, status, None, duration_ms)
        return Outcome(False, attempted_at, status, f"HTTP {status}", duration_ms)

    async def close(self) -> None:
        await self._poster.close()


class Deliverer:
    """Sends deliveries (the `webhooks.deliver` job) and test webhooks, with one `Sender`; the payload
    of each event is built by `Payloads` when it is sent."""

    def __init__(
        self, db: Database, clock: Clock, payloads: Payloads, sender: Sender, *, fast_retries: bool = False
    ) -> None:
        self.db, self.clock, self.payloads, self.sender = db, clock, payloads, sender
        self.fast_retries = fast_retries

    def kinds(self) -> list[jobs.Kind]:
        return [jobs.Kind(endpoints.DELIVER, self.deliver, backoff=retries.WEBHOOK_HANDLER, batch=self.deliver_batch)]

    async def deliver(self, payload: dict[str, Any]) -> datetime | None:
        """Makes the delivery's next attempt if it is pending and due; answers when to run again."""
        answer = (await self.deliver_batch([payload]))[0]
        if isinstance(answer, Exception):
            raise answer
        return answer

    async def deliver_batch(self, payloads: list[dict[str, Any]]) -> list[datetime | Exception | None]:
        """`deliver` for several deliveries at once: read in one statement, each record's payload built once,
        sent side by side, and every attempt logged in one transaction. Answers for each in order."""
        ids = [payload["delivery_id"] for payload in payloads]
        found = {delivery.id: delivery for delivery in await stored.get_deliveries(self.db, ids)}
        answers: dict[int, datetime | Exception | None] = {}
        due = []
        for delivery in found.values():
            if delivery.status is not DeliveryStatus.PENDING:
                continue  # settled by an earlier run (a deleted endpoint's delivery is not found at all)
            if delivery.next_attempt_at is not None and delivery.next_attempt_at > self.clock.now():
                answers[delivery.id] = delivery.next_attempt_at  # run early: after a crash between attempt and release
            else:
                due.append(delivery)
        built = await self._data_of(due)
        outcomes = await _each(self._attempt(delivery, built) for delivery in due)
        attempted = []
        for delivery, outcome in zip(due, outcomes, strict=True):
            if isinstance(outcome, Outcome):
                attempted.append(self._attempted(delivery, outcome))
                answers[delivery.id] = attempted[-1].next_attempt_at
            else:
                answers[delivery.id] = outcome
        async with self.db.transaction() as tx:
            await stored.record_attempts(tx, attempted, now=self.clock.now())
        return [answers.get(delivery_id) for delivery_id in ids]

    async def _data_of(self, due: list[WebhookDelivery]) -> dict[Key, Data | Exception]:
        """The payload data of each record the deliveries are about, built once per record and event type, the
        records read together."""
        return await self.payloads.data_of_many(self.db, [(d.record_type, d.record_id, d.event_type) for d in due])

    async def _attempt(self, delivery: WebhookDelivery, built: dict[Key, Data | Exception]) -> Outcome:
        data = built[(delivery.record_type, delivery.record_id, delivery.event_type)]
        if isinstance(data, Exception):
            raise data
        if data is None:
            gone = f"Not sent: the {delivery.record_type} {delivery.record_id} no longer exists"
            return Outcome(False, self.clock.now(), error=gone, final=True)
        envelope = {
            "event_id": delivery.event_uuid,
            "event_type": delivery.event_type,
            "timestamp": iso(delivery.event_created_at),
            "data": data,
        }
        return await self.sender.post(self.clock, delivery.url, *signed(delivery, self.clock, envelope))

    async def test(self, endpoint: WebhookEndpoint) -> Outcome:
        """Sends a sample form.completed built from the account's latest completed submitter, at once,
        without an event_id; it is not logged and not retried."""
        submitter_id = await stored.latest_completed_submitter_id(self.db, endpoint.account_id)
        if submitter_id is None:
            raise errors.Invalid(
                "No signer of this account has completed yet: the test webhook is a form.completed "
                "built from the latest completed signer"
            )
        data = await self.payloads.submitter(self.db, submitter_id)
        envelope = {"event_type": "form.completed", "timestamp": iso(self.clock.now()), "data": data}
        return await self.sender.post(self.clock, endpoint.url, *signed(endpoint, self.clock, envelope), queued=False)

    def _attempted(self, delivery: WebhookDelivery, outcome: Outcome) -> stored.Attempted:
        """The attempt to log, with the delivery settled or its next attempt scheduled by the retry schedule."""
        failures = 0 if outcome.delivered else delivery.failures + 1
        retries = self._retries(delivery.event_type)
        next_at = None if outcome.delivered or outcome.final else retries.next_at(failures, self.clock)
        status = (
            DeliveryStatus.DELIVERED
            if outcome.delivered
            else DeliveryStatus.PENDING
            if next_at
            else DeliveryStatus.FAILED
        )
        return stored.Attempted(
            delivery,
            outcome.attempted_at,
            outcome.response_status,
            outcome.error,
            outcome.duration_ms,
            status,
            failures,
            next_at,
        )

    def _retries(self, event_type: str) -> retries.Backoff:
        schedule = retries.webhook_delivery(event_type)
        return schedule.fast() if self.fast_retries else schedule


T = TypeVar("T")


async def _each(work: Iterable[Awaitable[T]]) -> list[T | Exception]:
    """The results of awaitables run side by side, an exception standing in for each that raised one."""
    results = await asyncio.gather(*work, return_exceptions=True)
    for result in results:
        if isinstance(result, BaseException) and not isinstance(result, Exception):
            raise result  # a cancellation is not a failed run
    return cast(list[T | Exception], results)


def signed(
    endpoint: WebhookEndpoint | WebhookDelivery, clock: Clock, envelope: dict[str, Any]
) -> tuple[bytes, dict[str, str]]:
    """The body and headers of a delivery, signed with the endpoint's secret (which a delivery record
    carries too)."""
    body = encoded(envelope)
    timestamp = int(clock.now().timestamp())
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "X-Service-Event-Type": envelope["event_type"],
        "X-Service-Timestamp": str(timestamp),
    }
    if "event_id" in envelope:
        headers["X-Service-Event-Id"] = envelope["event_id"]
    if endpoint.secret is not None and endpoint.secret_header is not None:
        headers["X-Service-Signature"] = signature.sign(endpoint.secret, timestamp, body)
        headers[endpoint.secret_header] = endpoint.secret
    return body, headers


_PRIVATE = "The URL points to a private or local network address (refused by SIGNSVC_WEBHOOK_PUBLIC_ONLY)"
