"""Commands for the certificates that sign result documents."""

from __future__ import annotations

import argparse
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from signsvc.cli.database import group, with_database
from signsvc.infra.clock import SystemClock
from signsvc.infra.config import Config
from storage import Database

if TYPE_CHECKING:
    from signsvc.results.signing_identity import SigningIdentity


def add_commands(commands: Any, common: argparse.ArgumentParser) -> None:
    commands = group(commands, "signing", "the certificates that sign result documents", common)
    commands.add_parser("list", parents=[common], help="every certificate, current and past").set_defaults(run=_list)
    commands.add_parser(
        "rotate", parents=[common], help="a new generated certificate signs from now on; the old one stays trusted"
    ).set_defaults(run=_rotate)


async def _list(config: Config, args: argparse.Namespace) -> int | None:
    async def action(identity: SigningIdentity) -> None:
        for line in await identity.listing():
            print(line)

    return await _with_identity(config, action)


async def _rotate(config: Config, args: argparse.Namespace) -> int | None:
    async def action(identity: SigningIdentity) -> None:
        chain = await identity.rotate()
        print(f"signing certificate {chain.sha256} generated; earlier certificates stay trusted")
        if config.signing_p12:
            print("SIGNSVC_SIGNING_P12 is set: its certificate signs until it is removed")

    return await _with_identity(config, action)


async def _with_identity(config: Config, action: Callable[[SigningIdentity], Awaitable[None]]) -> int | None:
    from signsvc.app import signing_identity  # the PDF engines: only these commands need them
    from signsvc.infra import secret_key
    from signsvc.infra.pool import PdfPool

    async def with_pool(db: Database) -> None:
        pool = PdfPool(workers=1)
        try:
            secret = await secret_key.load(db, config.secret_key)
            await action(await signing_identity(db, SystemClock(), pool, config, secret))
        finally:
            pool.close()

    return await with_database(config, with_pool)
