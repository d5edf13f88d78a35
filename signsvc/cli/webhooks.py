"""Commands for webhook endpoints and their delivery logs."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from signsvc.accounts.accounts import Accounts
from signsvc.cli.database import group, with_database
from signsvc.infra.clock import SystemClock
from signsvc.infra.config import Config
from signsvc.infra.urls import Urls
from signsvc.webhooks import endpoints
from signsvc.webhooks.answers import Changed
from signsvc.webhooks.endpoints import WebhookEndpoints
from storage import Database
from storage.outbound_records import DeliveryStatus


def add_commands(commands: Any, common: argparse.ArgumentParser) -> None:
    commands = group(commands, "webhooks", "webhook endpoints and their delivery logs", common)
    owner = argparse.ArgumentParser(add_help=False, parents=[common])
    owner.add_argument("--account", type=int, help="live account id (default: the first account)")
    owner.add_argument("--test", action="store_true", help="the account's test account instead")
    settings = argparse.ArgumentParser(add_help=False)
    settings.add_argument("--events", help="comma-separated event types, or all (default on create: the form.* events)")
    settings.add_argument("--secret-header", help="header name that carries the secret")
    settings.add_argument("--secret", help="secret value, 32+ random characters recommended; - reads it from stdin")
    endpoint = argparse.ArgumentParser(add_help=False, parents=[common])
    endpoint.add_argument("id", type=int, help="endpoint id")

    commands.add_parser("list", parents=[owner], help="list the endpoints of an account").set_defaults(run=_list)
    create = commands.add_parser("create", parents=[owner, settings], help="add an endpoint")
    create.add_argument("url")
    create.set_defaults(run=_create)
    update = commands.add_parser("update", parents=[endpoint, settings], help="change an endpoint")
    update.add_argument("--url")
    update.add_argument("--no-secret", action="store_true", help="remove the secret")
    update.set_defaults(run=_update)
    commands.add_parser("delete", parents=[endpoint], help="remove an endpoint and its delivery log").set_defaults(
        run=_delete
    )
    deliveries = commands.add_parser("deliveries", parents=[endpoint], help="the endpoint's delivery log")
    deliveries.add_argument("--status", choices=[s.value for s in DeliveryStatus])
    deliveries.add_argument("--limit", type=int, default=20)
    deliveries.set_defaults(run=_deliveries)
    resend = commands.add_parser("resend", parents=[endpoint], help="send a delivery's event again now")
    resend.add_argument("delivery", type=int, help="delivery id")
    resend.set_defaults(run=_resend)
    commands.add_parser("test", parents=[endpoint], help="send the test webhook now").set_defaults(run=_test)


async def _list(config: Config, args: argparse.Namespace) -> int | None:
    async def action(db: Database) -> None:
        found = await WebhookEndpoints(db, SystemClock()).page(await _account(db, args), limit=endpoints.MAX_ENDPOINTS)
        for endpoint in found:
            secret = f"secret in {endpoint.secret_header}" if endpoint.secret else "no secret"
            configured = "\tconfigured at start" if endpoint.configured else ""
            print(f"{endpoint.id}\t{endpoint.url}\t{','.join(endpoint.events)}\t{secret}{configured}")

    return await with_database(config, action)


async def _create(config: Config, args: argparse.Namespace) -> int | None:
    async def action(db: Database) -> None:
        webhook_endpoints = WebhookEndpoints(db, SystemClock(), public_only=config.public_webhooks_only)
        changed = await webhook_endpoints.create(await _account(db, args), {"url": args.url, **_settings(args)})
        _print_changed("created", changed)

    return await with_database(config, action)


async def _update(config: Config, args: argparse.Namespace) -> int | None:
    async def action(db: Database) -> None:
        body = {"url": args.url, **_settings(args), **({"secret": None} if args.no_secret else {})}
        webhook_endpoints = WebhookEndpoints(db, SystemClock(), public_only=config.public_webhooks_only)
        _print_changed("updated", await webhook_endpoints.update(None, args.id, body))

    return await with_database(config, action)


async def _delete(config: Config, args: argparse.Namespace) -> int | None:
    async def action(db: Database) -> None:
        endpoint = await WebhookEndpoints(db, SystemClock()).delete(None, args.id)
        print(f"webhook endpoint {endpoint.id} ({endpoint.url}) deleted")

    return await with_database(config, action)


async def _deliveries(config: Config, args: argparse.Namespace) -> int | None:
    async def action(db: Database) -> None:
        found = await WebhookEndpoints(db, SystemClock()).deliveries(
            None, args.id, status=DeliveryStatus(args.status) if args.status else None, limit=args.limit
        )
        for delivery, attempts in ((d.delivery, d.attempts) for d in found):
            last = attempts[-1] if attempts else None
            outcome = (last.error or f"HTTP {last.response_status}") if last else "not attempted yet"
            upcoming = f"\tnext attempt {delivery.next_attempt_at.isoformat()}" if delivery.next_attempt_at else ""
            print(
                f"{delivery.id}\t{delivery.event_type}\t{delivery.event_uuid}\t{delivery.status}\t"
                f"{delivery.attempts} attempt(s), last: {outcome}{upcoming}"
            )

    return await with_database(config, action)


async def _resend(config: Config, args: argparse.Namespace) -> int | None:
    async def action(db: Database) -> None:
        delivery = (await WebhookEndpoints(db, SystemClock()).resend(None, args.id, args.delivery)).delivery
        print(f"delivery {delivery.id} ({delivery.event_type} {delivery.event_uuid}) will be sent again now")

    return await with_database(config, action)


async def _test(config: Config, args: argparse.Namespace) -> int | None:
    from signsvc.app import open_files  # sending needs the web client: only this command
    from signsvc.assembly import webhook_sender
    from signsvc.webhooks.delivery import Deliverer
    from signsvc.webhooks.payloads import Payloads

    async def action(db: Database) -> int:
        clock = SystemClock()
        endpoint = await WebhookEndpoints(db, clock).find(None, args.id)
        sender, files = webhook_sender(config), await open_files(db, clock, config, Urls(config.site))
        try:
            outcome = await Deliverer(db, clock, Payloads(clock, files), sender).test(endpoint)
        finally:
            await sender.close()
            await files.close()
        print(
            f"test webhook {'delivered' if outcome.delivered else 'failed'}: "
            f"{outcome.error or f'HTTP {outcome.response_status}'} in {outcome.duration_ms} ms"
        )
        return 0 if outcome.delivered else 1

    return await with_database(config, action)


async def _account(db: Database, args: argparse.Namespace) -> int:
    """The account the command names: a live account, or with --test its test account."""
    account = await Accounts(db, SystemClock()).find_account(args.account)
    return account.linked_id if args.test else account.id


def _settings(args: argparse.Namespace) -> dict[str, Any]:
    """The body of an endpoint change, from the flags that were given."""
    settings: dict[str, Any] = {}
    if args.events:
        settings["events"] = (
            list(endpoints.EVENT_TYPES) if args.events == "all" else [event.strip() for event in args.events.split(",")]
        )
    if args.secret_header or args.secret:
        secret = sys.stdin.readline().strip() if args.secret == "-" else args.secret
        settings["secret"] = {"header": args.secret_header, "value": secret}
    return settings


def _print_changed(verb: str, changed: Changed) -> None:
    endpoint = changed.endpoint
    print(f"webhook endpoint {endpoint.id} {verb}: {endpoint.url} ({', '.join(endpoint.events)})")
    for warning in changed.warnings:
        print(f"warning: {warning}", file=sys.stderr)
