"""Webhook endpoints: per account, a URL, the event types it receives and an optional
secret; every recorded event becomes a delivery to each endpoint that chose its type.

Deliveries are written in the transaction of the change that recorded the event (the outbox), each
with a job that sends it (`signsvc/webhooks/delivery.py`). Endpoints are managed by an API key
(`/api/webhooks`, an extension), by management commands, and for test suites by
`SIGNSVC_WEBHOOK_URL` / `SIGNSVC_TEST_WEBHOOK_URL`, which name one endpoint for every event type.
"""

from __future__ import annotations

import asyncio
import functools
import re
import socket
from dataclasses import replace
from typing import Any

from yarl import URL

import storage.webhooks as stored
from signsvc.accounts import auth
from signsvc.infra import addresses, errors, jobs, json_fields
from signsvc.infra.clock import Clock
from signsvc.webhooks.answers import Changed, Delivered
from storage import Connection, Database
from storage.accounts import default_account
from storage.outbound_records import DeliveryStatus, Event, WebhookDelivery, WebhookEndpoint
from storage.records import Principal

EVENT_TYPES = (
    "form.viewed",
    "form.started",
    "form.completed",
    "form.declined",
    "submission.created",
    "submission.completed",
    "submission.expired",
    "submission.archived",
    "template.created",
    "template.updated",
    "consent.created",
)
DEFAULT_EVENTS = EVENT_TYPES[:4]
DELIVER = "webhooks.deliver"
MAX_ENDPOINTS = 20
MAX_URL_LENGTH = 2048
MIN_SECRET_LENGTH, RECOMMENDED_SECRET_LENGTH, MAX_SECRET_LENGTH = 16, 32, 255
# Headers every delivery sets itself: a secret header must not replace them.
RESERVED_HEADERS = {
    "content-type",
    "content-length",
    "content-encoding",
    "transfer-encoding",
    "host",
    "connection",
    "user-agent",
    "x-service-event-id",
    "x-service-event-type",
    "x-service-timestamp",
    "x-service-signature",
}
_TOKEN = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$")
# An absolute http(s) URL of RFC 3986: scheme in any case, optional userinfo, a host name of unreserved
# characters or a bracketed IPv6 address, a port up to 65535, path, query and fragment. The OpenAPI document
# states the same pattern (WebhookEndpointInput.url).
_UNRESERVED, _SUB_DELIMS, _PCT = "A-Za-z0-9._~\\-", "!$&'()*+,;=", "%[0-9A-Fa-f]{2}"
_H16 = "[0-9A-Fa-f]{1,4}"
_OCTET = "(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])"
_LS32 = f"(?:{_H16}:{_H16}|{_OCTET}\\.{_OCTET}\\.{_OCTET}\\.{_OCTET})"
_IPV6 = (
    "(?:"
    + "|".join(
        [
            f"(?:{_H16}:){{6}}{_LS32}",
            f"::(?:{_H16}:){{5}}{_LS32}",
            f"(?:{_H16})?::(?:{_H16}:){{4}}{_LS32}",
            f"(?:(?:{_H16}:){{0,1}}{_H16})?::(?:{_H16}:){{3}}{_LS32}",
            f"(?:(?:{_H16}:){{0,2}}{_H16})?::(?:{_H16}:){{2}}{_LS32}",
            f"(?:(?:{_H16}:){{0,3}}{_H16})?::{_H16}:{_LS32}",
            f"(?:(?:{_H16}:){{0,4}}{_H16})?::{_LS32}",
            f"(?:(?:{_H16}:){{0,5}}{_H16})?::{_H16}",
            f"(?:(?:{_H16}:){{0,6}}{_H16})?::",
        ]
    )
    + ")"
)
_PORT = "(?::0*(?:[0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])?)?"
_PCHAR = f"(?:[{_UNRESERVED}{_SUB_DELIMS}:@]|{_PCT})"
HTTP_URL_PATTERN = (
    f"^[Hh][Tt][Tt][Pp][Ss]?://(?:(?:[{_UNRESERVED}{_SUB_DELIMS}:]|{_PCT})*@)?"
    f"(?:\\[{_IPV6}\\]|[{_UNRESERVED}]+){_PORT}(?:/{_PCHAR}*)*(?:\\?(?:{_PCHAR}|[/?])*)?"
    f"(?:#(?:{_PCHAR}|[/?])*)?$"
)
PRIVATE_ADDRESS = "a private or local network address (SIGNSVC_WEBHOOK_PUBLIC_ONLY allows only public ones)"
# A host name of a new URL is looked up this long at most (public-only); one that does not answer in time is refused.
RESOLVE_SECONDS = 5


class WebhookEndpoints:
    """Endpoints of accounts. `scope` None is the operator (management commands): any account.

    `public_only` refuses a URL whose host is, or resolves to, a private or local address, or resolves to
    nothing, when it is set (its deliveries would only ever be refused); each delivery is checked again when it
    is sent.
    """

    def __init__(self, db: Database, clock: Clock, *, public_only: bool = False) -> None:
        self.db, self.clock, self.public_only = db, clock, public_only

    async def page(
        self, account_id: int, *, limit: int, after: int | None = None, before: int | None = None
    ) -> list[WebhookEndpoint]:
        return await stored.list_endpoints(self.db, account_id, limit=limit, after=after, before=before)

    async def create(self, account_id: int, body: dict[str, Any]) -> Changed:
        url = await self._checked_url(body.get("url"))
        events = _events(body["events"]) if body.get("events") is not None else list(DEFAULT_EVENTS)
        header, secret = _secret(body.get("secret"))
        async with self.db.transaction() as tx:
            if await stored.count_endpoints(tx, account_id) >= MAX_ENDPOINTS:
                raise errors.Invalid(f"an account has at most {MAX_ENDPOINTS} webhook endpoints")
            endpoint = await stored.insert_endpoint(
                tx,
                account_id=account_id,
                url=url,
                events=events,
                secret_header=header,
                secret=secret,
                now=self.clock.now(),
            )
        if endpoint is None:
            raise errors.at(("url",), f"{url} already has a webhook endpoint")
        return Changed(endpoint, _warnings(secret))

    async def update(self, scope: Principal | None, endpoint_id: int, body: dict[str, Any]) -> Changed:
        """Changes what `body` names: `url`, `events`, `secret` (null removes it)."""
        url = await self._checked_url(body["url"]) if body.get("url") is not None else None
        async with self.db.transaction() as tx:
            endpoint = await _find(tx, scope, endpoint_id)
            changes: dict[str, Any] = {}
            if url is not None and url != endpoint.url:
                changes["url"] = url
                if await stored.find_endpoint_by_url(tx, endpoint.account_id, changes["url"]):
                    raise errors.at(("url",), f"{changes['url']} already has a webhook endpoint")
            if body.get("events") is not None:
                changes["events"] = _events(body["events"])
            if "secret" in body:
                changes["secret_header"], changes["secret"] = _secret(body["secret"])
            endpoint = await stored.update_endpoint(tx, replace(endpoint, **changes), self.clock.now())
        return Changed(endpoint, _warnings(endpoint.secret) if "secret" in changes else [])

    async def delete(self, scope: Principal | None, endpoint_id: int) -> WebhookEndpoint:
        """Removes the endpoint with its delivery log; its pending deliveries are not sent."""
        async with self.db.transaction() as tx:
            endpoint = await _find(tx, scope, endpoint_id)
            await stored.delete_endpoint(tx, endpoint.id)
        return endpoint

    async def find(self, scope: Principal | None, endpoint_id: int) -> WebhookEndpoint:
        """The endpoint, if `scope` may reach it."""
        return await _find(self.db, scope, endpoint_id)

    async def deliveries(
        self,
        scope: Principal | None,
        endpoint_id: int,
        *,
        status: DeliveryStatus | None,
        limit: int,
        after: int | None = None,
        before: int | None = None,
    ) -> list[Delivered]:
        """The endpoint's delivery log, newest first, each delivery with its attempts."""
        endpoint = await self.find(scope, endpoint_id)
        found = await stored.list_deliveries(
            self.db, endpoint.id, status=status, limit=limit, after=after, before=before
        )
        attempts = await stored.attempts_of(self.db, endpoint.id, found)
        return [Delivered(delivery, attempts[delivery.id]) for delivery in found]

    async def latest_deliveries(self, account_id: int) -> dict[int, WebhookDelivery]:
        """The newest delivery of each endpoint of the account, by endpoint id (endpoints without one are absent)."""
        return {delivery.endpoint_id: delivery for delivery in await stored.latest_deliveries(self.db, account_id)}

    async def account_deliveries(
        self, account_id: int, *, event_type: str | None, status: DeliveryStatus | None, limit: int
    ) -> list[Delivered]:
        """The account's deliveries to all its endpoints, newest first, each with its attempts."""
        found = await stored.deliveries_of_account(
            self.db, account_id, event_type=event_type, status=status, limit=limit
        )
        attempts = await stored.attempts_of_deliveries(self.db, found)
        return [Delivered(delivery, attempts[delivery.id]) for delivery in found]

    async def resend(self, scope: Principal | None, endpoint_id: int, delivery_id: int) -> Delivered:
        """Sends the same event (same event_id) again now; if that fails, the whole retry schedule follows."""
        async with self.db.transaction() as tx:
            endpoint = await _find(tx, scope, endpoint_id)
            delivery = await stored.get_delivery(tx, delivery_id)
            if delivery is None or delivery.endpoint_id != endpoint.id:
                raise errors.NotFound(f"Delivery {delivery_id} of webhook endpoint {endpoint.id} not found")
            await stored.resend_delivery(tx, delivery.id, self.clock.now())
            await jobs.bring_forward(
                tx, self.clock, DELIVER, {"delivery_id": delivery.id}, dedupe_key=_job_key(delivery.id)
            )
            resent = await stored.required_delivery(tx, delivery.id)
            return Delivered(resent, (await stored.attempts_of(tx, endpoint.id, [resent]))[resent.id])

    async def put_configured(self, urls: tuple[str | None, str | None], secret: dict[str, str] | None) -> list[str]:
        """Makes the given URLs (live, test; None: none) the configured endpoints of the default account and
        its test account, for every event type, with one secret `{header, value}`; removes those no longer
        named. Answers warnings about the secret."""
        header, value = _secret(secret)
        checked = [await self._checked_url(url) if url else None for url in urls]
        async with self.db.transaction() as tx:
            account = await default_account(tx)
            for owner, url in zip((account.id, account.linked_id), checked, strict=True):
                await stored.put_configured_endpoint(
                    tx,
                    account_id=owner,
                    url=url,
                    events=list(EVENT_TYPES),
                    secret_header=header,
                    secret=value,
                    now=self.clock.now(),
                )
        return _warnings(value) if any(checked) else []

    async def _checked_url(self, value: Any) -> str:
        url = _url(value)
        if self.public_only:
            await _refuse_private(url)
        return url


async def fan_out(tx: Connection, clock: Clock, event: Event) -> None:
    """In the event's own transaction: a delivery, and the job that sends it, for each endpoint of the
    event's account that chose its type. Test-mode events stay in the test account's endpoints."""
    delivery_ids = await stored.insert_deliveries(
        tx, event_id=event.id, account_id=event.account_id, event_type=event.event_type, now=clock.now()
    )
    for delivery_id in delivery_ids:
        # One job per delivery at a time (its dedupe key): one attempt is ever under way.
        await jobs.enqueue(tx, clock, DELIVER, {"delivery_id": delivery_id}, dedupe_key=_job_key(delivery_id))


async def _find(conn: Connection, scope: Principal | None, endpoint_id: int) -> WebhookEndpoint:
    endpoint = await stored.get_endpoint(conn, endpoint_id)
    if endpoint is None:
        raise errors.NotFound(f"Webhook endpoint {endpoint_id} not found")
    if scope is not None:
        auth.check_owner(scope, endpoint.account_id, "Webhook endpoint", endpoint.id)
    return endpoint


def _job_key(delivery_id: int) -> str:
    return f"webhook-delivery:{delivery_id}"


@functools.cache
def _http_url() -> re.Pattern[str]:
    """`HTTP_URL_PATTERN` compiled at its first use (milliseconds that a start without webhook URLs does without)."""
    return re.compile(HTTP_URL_PATTERN)


def _url(value: Any) -> str:
    """An absolute http(s) URL as RFC 3986 writes it (the document's pattern is `HTTP_URL_PATTERN`): no spaces or other
    characters a URL must percent-encode, a host name of letters, digits and `-._~` or a bracketed IPv6 address,
    a port up to 65535, and a host name yarl can decode (an `xn--` label must be valid punycode)."""
    if not isinstance(value, str) or not value.strip():
        raise errors.at(("url",), "is required: an http:// or https:// URL")
    if len(value) > MAX_URL_LENGTH:
        raise errors.at(("url",), f"is too long: at most {MAX_URL_LENGTH} characters")
    try:
        valid = _http_url().match(value) is not None and bool(URL(value).host)
    except ValueError:  # UnicodeError too: a host label `xn--...` that is not punycode
        valid = False
    if not valid:
        raise errors.at(
            ("url",),
            "must be an http:// or https:// URL with a host (RFC 3986: no spaces, characters "
            "outside a URL's percent-encoded)",
        )
    return value


async def _refuse_private(url: str) -> None:
    """Refuses a URL whose host is a private address, resolves to one, or resolves to nothing (in time): a
    mistyped name is said now rather than by failed deliveries. Every delivery is checked again when sent."""
    host = URL(url).host or ""
    if addresses.is_ip(host):
        if not addresses.is_public(host):
            raise errors.at(("url",), f"must point to a public address: {host} is {PRIVATE_ADDRESS}")
        return
    found = await _addresses(host)
    if not found:
        raise errors.at(
            ("url",),
            f"must point to a public address: {host} does not resolve to any address "
            f"(looked up for at most {RESOLVE_SECONDS} seconds)",
        )
    if not all(addresses.is_public(address) for address in found):
        raise errors.at(("url",), f"must point to a public address: {host} resolves to {PRIVATE_ADDRESS}")


async def _addresses(host: str) -> set[str]:
    """The addresses `host` resolves to now, through the loop's resolver (off the event loop); none when it
    does not resolve in time."""
    try:
        async with asyncio.timeout(RESOLVE_SECONDS):
            answers = await asyncio.get_running_loop().getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (OSError, TimeoutError):
        return set()
    return {str(answer[4][0]) for answer in answers}


def _events(value: Any) -> list[str]:
    """The event types chosen: a non-empty array of them, or `"all"` (as the command line takes it)."""
    if value == "all":
        return list(EVENT_TYPES)
    if not isinstance(value, list) or not value:
        raise errors.at(("events",), f'must be "all" or a non-empty array of event types: {", ".join(EVENT_TYPES)}')
    for index, event_type in enumerate(value):
        if event_type not in EVENT_TYPES:
            raise errors.at(
                ("events", index), f"{event_type!r} is not an event type; use one of: {', '.join(EVENT_TYPES)}"
            )
    return [event_type for event_type in EVENT_TYPES if event_type in value]


def _secret(value: Any) -> tuple[str | None, str | None]:
    """The header name and value of a secret `{header, value}`; (None, None) for null."""
    if value is None:
        return None, None
    if not isinstance(value, dict):
        raise errors.at(("secret",), "must be an object with header and value, or null")
    header = json_fields.text(value, "header", where=("secret",))
    secret = json_fields.text(value, "value", where=("secret",))
    if not header or not _TOKEN.match(header):
        raise errors.at(("secret", "header"), "must be an HTTP header name (letters, digits and -, at most 100)")
    if header.lower() in RESERVED_HEADERS:
        raise errors.at(("secret", "header"), f"{header} is a header every delivery sets itself; choose another name")
    if not secret or len(secret) < MIN_SECRET_LENGTH or len(secret) > MAX_SECRET_LENGTH:
        raise errors.at(
            ("secret", "value"),
            f"must have {MIN_SECRET_LENGTH} to {MAX_SECRET_LENGTH} characters "
            f"({RECOMMENDED_SECRET_LENGTH} or more random characters are recommended)",
        )
    if not all("!" <= character <= "~" for character in secret):
        raise errors.at(("secret", "value"), "must be printable ASCII without spaces (it is sent as a header value)")
    return header, secret


def _warnings(secret: str | None) -> list[str]:
    if secret is not None and len(secret) < RECOMMENDED_SECRET_LENGTH:
        return [
            f"secret.value has {len(secret)} characters; {RECOMMENDED_SECRET_LENGTH} or more random "
            "characters are recommended"
        ]
    return []
