"""The command line: `serve` (the default), `migrate`, and management of accounts, users, keys, access,
webhook endpoints and signing certificates."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from typing import Any, Awaitable, Callable

from signsvc.accounts import accounts

from signsvc.infra import config as configuration

from signsvc.infra import errors

from signsvc.webhooks import payloads as webhook_payloads

from signsvc.webhooks import endpoints as webhooks
from signsvc.infra.clock import SystemClock
from signsvc.infra.config import Config, ConfigError
from signsvc.infra.pool import PdfPool
from signsvc.results.signing_identity import Signing
from signsvc.startup import prepare
from storage import Database, StorageError, open_database
from storage.accounts import first_live_account, get_account, list_live_accounts, list_users
from storage.records import DeliveryStatus, KeyMode
from storage.webhooks import attempts_of, list_deliveries, list_endpoints


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        config = configuration.from_env().replace(host=args.host, port=args.port, database_url=args.database)
        logging.basicConfig(level=config.log_level, stream=sys.stderr,
                            format="%(asctime)s %(levelname)s %(name)s: %(message)s")
        command = getattr(args, "run", _serve)
        return asyncio.run(command(config, args)) or 0
    except (ConfigError, StorageError, errors.ServiceError, ValueError) as exc:
        print(f"signsvc: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


def _parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--database", default=argparse.SUPPRESS, help="database URL (SIGNSVC_DATABASE_URL)")
    listen = argparse.ArgumentParser(add_help=False)
    listen.add_argument("--host", default=argparse.SUPPRESS, help="listen address (SIGNSVC_HOST)")
    listen.add_argument("--port", type=int, default=argparse.SUPPRESS, help="listen port (SIGNSVC_PORT)")

    parser = argparse.ArgumentParser(prog="python run.py", parents=[common, listen],
                                     description="signsvc, a self-hostable electronic-signature service.")
    parser.set_defaults(host=None, port=None, database=None)
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")
    commands.add_parser("serve", parents=[common, listen], help="serve the API and pages (the default)") \
        .set_defaults(run=_serve)
    commands.add_parser("migrate", parents=[common], help="bring the database schema up to date") \
        .set_defaults(run=_migrate)

    account_commands = _group(commands, "accounts", "live accounts (each has a linked test account)", common)
    account_commands.add_parser("list", parents=[common], help="list accounts").set_defaults(run=_list_accounts)
    create = account_commands.add_parser("create", parents=[common], help="create an account and its first user")
    create.add_argument("--name", required=True)
    _user_arguments(create)
    create.add_argument("--approve", action="store_true", help="approve API access at once")
    create.set_defaults(run=_create_account)

    user_commands = _group(commands, "users", "users and their keys", common)
    create = user_commands.add_parser("create", parents=[common], help="create a user; prints their keys")
    _user_arguments(create)
    create.add_argument("--account", type=int, help="account id (default: the first account)")
    create.set_defaults(run=_create_user)
    listing = user_commands.add_parser("list", parents=[common], help="list the users of an account")
    listing.add_argument("--account", type=int, help="account id (default: the first account)")
    listing.set_defaults(run=_list_users)

    key_commands = _group(commands, "keys", "API keys", common)
    rotate = key_commands.add_parser("rotate", parents=[common], help="replace a key; the old one stops working")
    rotate.add_argument("user", help="user id or email")
    rotate.add_argument("--mode", choices=[m.value for m in KeyMode], default="live")
    rotate.set_defaults(run=_rotate_key)

    access_commands = _group(commands, "access", "API access approval of an account", common)
    for name, approved in (("approve", True), ("revoke", False)):
        command = access_commands.add_parser(name, parents=[common], help=f"{name} API access")
        command.add_argument("--account", type=int, help="account id (default: the first account)")
        command.set_defaults(run=_set_access, approved=approved)

    _webhook_commands(_group(commands, "webhooks", "webhook endpoints and their delivery logs", common), common)

    signing_commands = _group(commands, "signing", "the certificates that sign result documents", common)
    signing_commands.add_parser("list", parents=[common], help="every certificate, current and past") \
        .set_defaults(run=_list_certificates)
    signing_commands.add_parser("rotate", parents=[common],
                                help="a new generated certificate signs from now on; the old one stays trusted") \
        .set_defaults(run=_rotate_certificate)
    return parser


def _webhook_commands(commands: Any, common: argparse.ArgumentParser) -> None:
    owner = argparse.ArgumentParser(add_help=False, parents=[common])
    owner.add_argument("--account", type=int, help="live account id (default: the first account)")
    owner.add_argument("--test", action="store_true", help="the account's test account instead")
    settings = argparse.ArgumentParser(add_help=False)
    settings.add_argument("--events", help="comma-separated event types, or all (default on create: the form.* "
                                           "events)")
    settings.add_argument("--secret-header", help="header name that carries the secret")
    settings.add_argument("--secret", help="secret value, 32+ random characters recommended; - reads it from stdin")
    endpoint = argparse.ArgumentParser(add_help=False, parents=[common])
    endpoint.add_argument("id", type=int, help="endpoint id")

    commands.add_parser("list", parents=[owner], help="list the endpoints of an account").set_defaults(
        run=_list_webhooks)
    create = commands.add_parser("create", parents=[owner, settings], help="add an endpoint")
    create.add_argument("url")
    create.set_defaults(run=_create_webhook)
    update = commands.add_parser("update", parents=[endpoint, settings], help="change an endpoint")
    update.add_argument("--url")
    update.add_argument("--no-secret", action="store_true", help="remove the secret")
    update.set_defaults(run=_update_webhook)
    commands.add_parser("delete", parents=[endpoint], help="remove an endpoint and its delivery log") \
        .set_defaults(run=_delete_webhook)
    deliveries = commands.add_parser("deliveries", parents=[endpoint], help="the endpoint's delivery log")
    deliveries.add_argument("--status", choices=[s.value for s in DeliveryStatus])
    deliveries.add_argument("--limit", type=int, default=20)
    deliveries.set_defaults(run=_list_deliveries)
    resend = commands.add_parser("resend", parents=[endpoint], help="send a delivery's event again now")
    resend.add_argument("delivery", type=int, help="delivery id")
    resend.set_defaults(run=_resend_delivery)
    commands.add_parser("test", parents=[endpoint], help="send the test webhook now").set_defaults(
        run=_test_webhook)


def _group(commands: Any, name: str, help_text: str, common: argparse.ArgumentParser) -> Any:
    group = commands.add_parser(name, parents=[common], help=help_text)
    group.set_defaults(run=lambda config, args: _usage(group))
    return group.add_subparsers(title="commands", metavar="COMMAND")


def _user_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--email", required=True)
    parser.add_argument("--first-name")
    parser.add_argument("--last-name")


async def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


async def _serve(config: Config, args: argparse.Namespace) -> None:
    from signsvc.cli.serve import serve

    await serve(config)


async def _with_db(config: Config, action: Callable[[Database], Awaitable[int | None]]) -> int | None:
    db = await open_database(config.database_url)
    try:
        issued = await prepare(db, SystemClock(), config)
        if issued:
            _print_keys(issued)
        return await action(db)
    finally:
        await db.close()


async def _migrate(config: Config, args: argparse.Namespace) -> int | None:
    return await _with_db(config, lambda db: _done("schema is up to date"))


async def _done(message: str) -> None:
    print(message)


async def _list_accounts(config: Config, args: argparse.Namespace) -> int | None:
    async def action(db: Database) -> None:
        for account in await list_live_accounts(db):
            approval = "approved" if account.api_access_approved else "not approved"
            print(f"{account.id}\t{account.name}\tAPI access {approval}\ttest account {account.linked_account_id}")

    return await _with_db(config, action)


async def _create_account(config: Config, args: argparse.Namespace) -> int | None:
    async def action(db: Database) -> None:
        issued = await accounts.create_account(db, SystemClock(), name=args.name, email=args.email,
                                               first_name=args.first_name, last_name=args.last_name,
                                               approved=args.approve)
        print(f"account {issued.user.account_id} created with user {issued.user.id} <{issued.user.email}>")
        _print_keys(issued)

    return await _with_db(config, action)


async def _create_user(config: Config, args: argparse.Namespace) -> int | None:
    async def action(db: Database) -> None:
        issued = await accounts.create_user(db, SystemClock(), account_id=await _account_id(db, args.account),
                                            email=args.email, first_name=args.first_name, last_name=args.last_name)
        print(f"user {issued.user.id} <{issued.user.email}> created in account {issued.user.account_id}")
        _print_keys(issued)

    return await _with_db(config, action)


async def _list_users(config: Config, args: argparse.Namespace) -> int | None:
    async def action(db: Database) -> None:
        after = None
        while users := await list_users(db, await _account_id(db, args.account), limit=100, after=after):
            for user in users:
                print(f"{user.id}\t{user.email}\t{user.first_name or ''} {user.last_name or ''}".rstrip())
            after = users[-1].id

    return await _with_db(config, action)


async def _rotate_key(config: Config, args: argparse.Namespace) -> int | None:
    async def action(db: Database) -> None:
        user = await accounts.find_user(db, args.user)
        key = await accounts.rotate_key(db, SystemClock(), user.id, KeyMode(args.mode))
        print(f"API key ({args.mode}) of {user.email}: {key}")

    return await _with_db(config, action)


async def _list_certificates(config: Config, args: argparse.Namespace) -> int | None:
    async def action(signing: Signing) -> None:
        for line in await signing.listing():
            print(line)

    return await _with_signing(config, action)


async def _rotate_certificate(config: Config, args: argparse.Namespace) -> int | None:
    async def action(signing: Signing) -> None:
        chain = await signing.rotate()
        print(f"signing certificate {chain['sha256']} generated; earlier certificates stay trusted")
        if config.signing_p12:
            print("SIGNSVC_SIGNING_P12 is set: its certificate signs until it is removed")

    return await _with_signing(config, action)


async def _with_signing(config: Config, action: Callable[[Signing], Awaitable[None]]) -> int | None:
    async def with_pool(db: Database) -> None:
        pool = PdfPool(workers=1)
        try:
            signing = Signing(db, SystemClock(), config, pool)
            await signing.load()
            await action(signing)
        finally:
            pool.close()

    return await _with_db(config, with_pool)


async def _set_access(config: Config, args: argparse.Namespace) -> int | None:
    async def action(db: Database) -> None:
        account = await accounts.set_api_access(db, await _account_id(db, args.account), args.approved)
        state = "approved" if account.api_access_approved else "revoked"
        print(f"API access of account {account.id} ({account.name}) {state}")

    return await _with_db(config, action)


async def _list_webhooks(config: Config, args: argparse.Namespace) -> int | None:
    async def action(db: Database) -> None:
        for endpoint in await list_endpoints(db, await _webhook_account(db, args), limit=webhooks.MAX_ENDPOINTS):
            secret = f"secret in {endpoint.secret_header}" if endpoint.secret else "no secret"
            configured = "\tconfigured at start" if endpoint.configured else ""
            print(f"{endpoint.id}\t{endpoint.url}\t{','.join(endpoint.events)}\t{secret}{configured}")

    return await _with_db(config, action)


async def _create_webhook(config: Config, args: argparse.Namespace) -> int | None:
    async def action(db: Database) -> None:
        changed = await webhooks.create(db, SystemClock(), await _webhook_account(db, args),
                                        {"url": args.url, **_webhook_settings(args)})
        _print_changed("created", changed)

    return await _with_db(config, action)


async def _update_webhook(config: Config, args: argparse.Namespace) -> int | None:
    async def action(db: Database) -> None:
        body = {"url": args.url, **_webhook_settings(args), **({"secret": None} if args.no_secret else {})}
        _print_changed("updated", await webhooks.update(db, SystemClock(), None, args.id, body))

    return await _with_db(config, action)


async def _delete_webhook(config: Config, args: argparse.Namespace) -> int | None:
    async def action(db: Database) -> None:
        endpoint = await webhooks.delete(db, None, args.id)
        print(f"webhook endpoint {endpoint.id} ({endpoint.url}) deleted")

    return await _with_db(config, action)


async def _list_deliveries(config: Config, args: argparse.Namespace) -> int | None:
    async def action(db: Database) -> None:
        endpoint = await webhooks.find(db, None, args.id)
        found = await list_deliveries(db, endpoint.id, status=DeliveryStatus(args.status) if args.status else None,
                                      limit=args.limit)
        attempts = await attempts_of(db, endpoint.id, found)
        for delivery in found:
            last = attempts[delivery.id][-1] if attempts[delivery.id] else None
            outcome = (last.error or f"HTTP {last.response_status}") if last else "not attempted yet"
            upcoming = f"\tnext attempt {delivery.next_attempt_at.isoformat()}" if delivery.next_attempt_at else ""
            print(f"{delivery.id}\t{delivery.event_type}\t{delivery.event_uuid}\t{delivery.status}\t"
                  f"{delivery.attempts} attempt(s), last: {outcome}{upcoming}")

    return await _with_db(config, action)


async def _resend_delivery(config: Config, args: argparse.Namespace) -> int | None:
    async def action(db: Database) -> None:
        delivery = await webhooks.resend(db, SystemClock(), None, args.id, args.delivery)
        print(f"delivery {delivery.id} ({delivery.event_type} {delivery.event_uuid}) will be sent again now")

    return await _with_db(config, action)


async def _test_webhook(config: Config, args: argparse.Namespace) -> int | None:
    from signsvc.app import services
    from signsvc.webhooks.delivery import Deliverer

    async def action(db: Database) -> int:
        deliverer = Deliverer(config, webhook_payloads.SERIALIZERS)
        try:
            outcome = await deliverer.test(await services(db, SystemClock(), config), await webhooks.find(db, None,
                                                                                                        args.id))
        finally:
            await deliverer.sender.close()
        print(f"test webhook {'delivered' if outcome.delivered else 'failed'}: "
              f"{outcome.error or f'HTTP {outcome.response_status}'} in {outcome.duration_ms} ms")
        return 0 if outcome.delivered else 1

    return await _with_db(config, action)


async def _webhook_account(db: Database, args: argparse.Namespace) -> int:
    account = await get_account(db, await _account_id(db, args.account))
    if account is None or account.is_test:
        raise errors.NotFound(f"Account {args.account} not found")
    return account.linked_account_id if args.test else account.id


def _webhook_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The body of an endpoint change, from the flags that were given."""
    settings: dict[str, Any] = {}
    if args.events:
        settings["events"] = list(webhooks.EVENT_TYPES) if args.events == "all" else \
            [event.strip() for event in args.events.split(",")]
    if args.secret_header or args.secret:
        secret = sys.stdin.readline().strip() if args.secret == "-" else args.secret
        settings["secret"] = {"header": args.secret_header, "value": secret}
    return settings


def _print_changed(verb: str, changed: webhooks.Changed) -> None:
    endpoint = changed.endpoint
    print(f"webhook endpoint {endpoint.id} {verb}: {endpoint.url} ({', '.join(endpoint.events)})")
    for warning in changed.warnings:
        print(f"warning: {warning}", file=sys.stderr)


async def _account_id(db: Database, given: int | None) -> int:
    if given is not None:
        return given
    return (await first_live_account(db)).id


def _print_keys(issued: accounts.IssuedKeys) -> None:
    for mode, key in (("live", issued.live), ("test", issued.test)):
        if key:
            print(f"API key ({mode}): {key}")
