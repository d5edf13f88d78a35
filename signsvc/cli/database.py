"""What every management command shares: the database prepared as a server would, and a group of
subcommands that prints its help when called without one."""

from __future__ import annotations

import argparse
from collections.abc import Awaitable, Callable
from typing import Any

from signsvc.accounts.accounts import IssuedKeys
from signsvc.app import open_configured_database, prepare
from signsvc.infra.clock import SystemClock
from signsvc.infra.config import Config
from storage import Database


async def with_database(config: Config, action: Callable[[Database], Awaitable[int | None]]) -> int | None:
    """Runs `action` on the database, migrated and with its default account (whose keys are printed on the
    first start)."""
    db = await open_configured_database(config)
    try:
        issued = await prepare(db, SystemClock(), config)
        if issued:
            print_keys(issued)
        return await action(db)
    finally:
        await db.close()


def group(commands: Any, name: str, help_text: str, common: argparse.ArgumentParser) -> Any:
    found = commands.add_parser(name, parents=[common], help=help_text)
    found.set_defaults(run=lambda config, args: _usage(found))
    return found.add_subparsers(title="commands", metavar="COMMAND")


def print_keys(issued: IssuedKeys) -> None:
    for mode, key in (("live", issued.live), ("test", issued.test)):
        if key:
            print(f"API key ({mode}): {key}")


async def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2
