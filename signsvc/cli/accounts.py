"""Commands for accounts, users (their console setup links, the instance administrator, deactivation), API keys
and API access approval."""

from __future__ import annotations

import argparse
from typing import Any

from signsvc.accounts.accounts import IssuedKeys
from signsvc.cli.database import accounts_of, group, print_keys, print_setup_link, user_links, with_database
from signsvc.infra.config import Config
from storage import Database
from storage.records import KeyMode


def add_commands(commands: Any, common: argparse.ArgumentParser) -> None:
    account_commands = group(commands, "accounts", "live accounts (each has a linked test account)", common)
    account_commands.add_parser("list", parents=[common], help="list accounts").set_defaults(run=_list_accounts)
    create = account_commands.add_parser("create", parents=[common], help="create an account and its first user")
    create.add_argument("--name", required=True)
    _user_arguments(create)
    create.add_argument("--approve", action="store_true", help="approve API access at once")
    create.set_defaults(run=_create_account)

    user_commands = group(commands, "users", "users and their keys", common)
    create = user_commands.add_parser("create", parents=[common], help="create a user; prints their keys")
    _user_arguments(create)
    create.add_argument("--account", type=int, help="account id (default: the first account)")
    create.set_defaults(run=_create_user)
    listing = user_commands.add_parser("list", parents=[common], help="list the users of an account")
    listing.add_argument("--account", type=int, help="account id (default: the first account)")
    listing.set_defaults(run=_list_users)
    setup_link = user_commands.add_parser(
        "setup-link", parents=[common], help="print a new one-time link that sets the user's console password"
    )
    setup_link.add_argument("email")
    setup_link.set_defaults(run=_setup_link)
    admin = user_commands.add_parser(
        "admin", parents=[common], help="make the user an instance administrator (approves API access)"
    )
    admin.add_argument("email")
    admin.add_argument("--revoke", action="store_true", help="no longer an administrator")
    admin.set_defaults(run=_set_admin)
    deactivate = user_commands.add_parser(
        "deactivate", parents=[common], help="deactivate a user: their keys and console sessions stop at once"
    )
    deactivate.add_argument("email")
    deactivate.set_defaults(run=_deactivate)

    key_commands = group(commands, "keys", "API keys", common)
    rotate = key_commands.add_parser("rotate", parents=[common], help="replace a key; the old one stops working")
    rotate.add_argument("user", help="user id or email")
    rotate.add_argument("--mode", choices=[m.value for m in KeyMode], default="live")
    rotate.set_defaults(run=_rotate_key)

    access_commands = group(commands, "access", "API access approval of an account", common)
    for name, approved in (("approve", True), ("revoke", False)):
        command = access_commands.add_parser(name, parents=[common], help=f"{name} API access")
        command.add_argument("--account", type=int, help="account id (default: the first account)")
        command.set_defaults(run=_set_access, approved=approved)


def _user_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--email", required=True)
    parser.add_argument("--first-name")
    parser.add_argument("--last-name")


async def _list_accounts(config: Config, args: argparse.Namespace) -> int | None:
    async def action(db: Database) -> None:
        for account in await (await accounts_of(db, config)).list_accounts():
            approval = "approved" if account.api_access_approved else "not approved"
            print(f"{account.id}\t{account.name}\tAPI access {approval}\ttest account {account.linked_account_id}")

    return await with_database(config, action)


async def _create_account(config: Config, args: argparse.Namespace) -> int | None:
    async def action(db: Database) -> None:
        issued = await (await accounts_of(db, config)).create_account(
            name=args.name,
            email=args.email,
            first_name=args.first_name,
            last_name=args.last_name,
            approved=args.approve,
        )
        print(f"account {issued.user.account_id} created with user {issued.user.id} <{issued.user.email}>")
        await _print_new_user(db, config, issued)

    return await with_database(config, action)


async def _create_user(config: Config, args: argparse.Namespace) -> int | None:
    async def action(db: Database) -> None:
        accounts = await accounts_of(db, config)
        account = await accounts.find_account(args.account)
        issued = await accounts.create_user(
            account_id=account.id, email=args.email, first_name=args.first_name, last_name=args.last_name
        )
        print(f"user {issued.user.id} <{issued.user.email}> created in account {issued.user.account_id}")
        await _print_new_user(db, config, issued)

    return await with_database(config, action)


async def _list_users(config: Config, args: argparse.Namespace) -> int | None:
    async def action(db: Database) -> None:
        accounts = await accounts_of(db, config)
        account = await accounts.find_account(args.account)
        after = None
        while users := await accounts.list_users(account.id, limit=100, after=after):
            for user in users:
                print(f"{user.id}\t{user.email}\t{user.first_name or ''} {user.last_name or ''}".rstrip())
            after = users[-1].id

    return await with_database(config, action)


async def _rotate_key(config: Config, args: argparse.Namespace) -> int | None:
    async def action(db: Database) -> None:
        accounts = await accounts_of(db, config)
        user = await accounts.find_user(args.user)
        key = await accounts.rotate_key(user.id, KeyMode(args.mode))
        print(f"API key ({args.mode}) of {user.email}: {key}")

    return await with_database(config, action)


async def _set_access(config: Config, args: argparse.Namespace) -> int | None:
    async def action(db: Database) -> None:
        accounts = await accounts_of(db, config)
        account = await accounts.set_api_access((await accounts.find_account(args.account)).id, args.approved)
        state = "approved" if account.api_access_approved else "revoked"
        print(f"API access of account {account.id} ({account.name}) {state}")

    return await with_database(config, action)


async def _setup_link(config: Config, args: argparse.Namespace) -> int | None:
    async def action(db: Database) -> None:
        user = await (await accounts_of(db, config)).find_user(args.email)
        link = await user_links(db, config).setup_link(user.id)
        print(f"Console setup link of {user.email} (works once, for 7 days; earlier ones stop working): {link}")

    return await with_database(config, action)


async def _set_admin(config: Config, args: argparse.Namespace) -> int | None:
    async def action(db: Database) -> None:
        accounts = await accounts_of(db, config)
        user = await accounts.set_admin((await accounts.find_user(args.email)).id, not args.revoke)
        state = "is an instance administrator" if user.is_admin else "is no longer an instance administrator"
        print(f"user {user.id} <{user.email}> {state}")

    return await with_database(config, action)


async def _deactivate(config: Config, args: argparse.Namespace) -> int | None:
    async def action(db: Database) -> None:
        accounts = await accounts_of(db, config)
        user = await accounts.deactivate_user((await accounts.find_user(args.email)).id)
        print(f"user {user.id} <{user.email}> deactivated: their API keys and console sessions no longer work")

    return await with_database(config, action)


async def _print_new_user(db: Database, config: Config, issued: IssuedKeys) -> None:
    """A new user's keys and the link that sets their console password."""
    print_keys(issued)
    print_setup_link(issued, await user_links(db, config).setup_link(issued.user.id))
