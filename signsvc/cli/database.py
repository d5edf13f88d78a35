"""What every management command shares: the database prepared as a server would, the domain objects a
command calls, and a group of subcommands that prints its help when called without one."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from signsvc.accounts.accounts import Accounts, IssuedKeys
from signsvc.accounts.key_seal import KeySeal
from signsvc.accounts.user_links import UserLinks
from signsvc.infra import secret_key
from signsvc.infra.clock import SystemClock
from signsvc.infra.config import Config
from signsvc.infra.urls import Urls
from signsvc.preparation import open_configured_database, prepare
from storage import Database
from storage.contents import DirectoryStore

_PASSWORD_PARAMETER = re.compile(r"((?:^|&)password=)[^&]*")


async def with_database(config: Config, action: Callable[[Database], Awaitable[int | None]]) -> int | None:
    """Runs `action` on the database, migrated and with its default account (whose keys and console setup link
    are printed on the first start)."""
    announce(config)
    db = await open_configured_database(config)
    try:
        issued = await prepare(db, SystemClock(), config)
        if issued:
            print_keys(issued)
            print_setup_link(issued, await user_links(db, config).setup_link(issued.user.id))
        return await action(db)
    finally:
        await db.close()


async def accounts_of(db: Database, config: Config) -> Accounts:
    """Accounts as the server has them: every key a command makes is sealed for the console to show."""
    return Accounts(db, SystemClock(), KeySeal(await secret_key.load(db, config.secret_key)))


def user_links(db: Database, config: Config) -> UserLinks:
    """One-time console links on the configured site."""
    return UserLinks(db, SystemClock(), Urls(config.site))


def group(commands: Any, name: str, help_text: str, common: argparse.ArgumentParser) -> Any:
    found = commands.add_parser(name, parents=[common], help=help_text)
    found.set_defaults(run=lambda config, args: _usage(found))
    return found.add_subparsers(title="commands", metavar="COMMAND")


def announce(config: Config) -> None:
    """Says on stderr which database and file store a command works on, so that a setting that did not apply
    shows before anything is changed."""
    print(f"signsvc: {where(config)}", file=sys.stderr, flush=True)


def where(config: Config) -> str:
    store = config.content_store
    if store == "directory":
        files = f"files in {DirectoryStore.in_data_dir(config.data_dir).root}"
    else:
        files = "files in the database" if store == "database" else f"files in {store}"
    return f"database {shown_url(config.database_url)}, {files}"


def shown_url(url: str) -> str:
    """A database URL as it can be printed: a password in it, before the host or as a parameter, hidden."""
    scheme, separator, rest = url.partition("://")
    place, question, query = rest.partition("?")
    authority, slash, path = place.partition("/")
    credentials, at, host = authority.rpartition("@")
    if at and ":" in credentials:
        authority = f"{credentials.split(':', 1)[0]}:***@{host}"
    query = _PASSWORD_PARAMETER.sub(r"\1***", query)
    return f"{scheme}{separator}{authority}{slash}{path}{question}{query}"


def print_keys(issued: IssuedKeys) -> None:
    for mode, key in (("live", issued.live), ("test", issued.test)):
        if key:
            print(f"API key ({mode}): {key}")


def print_setup_link(issued: IssuedKeys, link: str) -> None:
    print(f"Console setup link (sets the password of {issued.user.email}): {link}")


async def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2
