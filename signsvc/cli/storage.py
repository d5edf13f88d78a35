"""`storage migrate --to PLACE`: copies every stored file's content into another content store."""

from __future__ import annotations

import argparse
import contextlib
from typing import TYPE_CHECKING, Any

from signsvc.cli.database import group, with_database
from signsvc.infra.config import Config, ConfigError, check_store_url
from storage import Database
from storage.contents import open_store

if TYPE_CHECKING:  # the command imports it when it runs: a server's start does without it
    from storage.content_moves import Moved

PLACES = "directory, database or s3://bucket/prefix"


def add_commands(commands: Any, common: argparse.ArgumentParser) -> None:
    commands = group(commands, "storage", "where the files' contents are kept", common)
    migrate = commands.add_parser(
        "migrate",
        parents=[common],
        help="copy every file's content into another store (run again to resume)",
        description="Copies the content of every stored file from the configured store into PLACE, verifying each "
        "copy by its SHA-256; contents PLACE already holds are skipped, so a run that stopped resumes. "
        "The configured store is left as it was. Then point the service at PLACE "
        "(SIGNSVC_FILE_STORE or SIGNSVC_STORAGE_URL) and restart it.",
    )
    migrate.add_argument("--to", required=True, metavar="PLACE", help=PLACES)
    migrate.set_defaults(run=_migrate)


async def _migrate(config: Config, args: argparse.Namespace) -> int | None:
    target_place = _place(args.to)
    if target_place == config.content_store:
        raise ConfigError(f"--to {args.to}: the files are kept there already")

    async def action(db: Database) -> int:
        from storage.content_moves import move

        async with contextlib.AsyncExitStack() as stores:
            source = await open_store(config.content_store, db, config.data_dir)
            stores.push_async_callback(source.close)
            target = await open_store(target_place, db, config.data_dir)
            stores.push_async_callback(target.close)
            moved = await move(db, source, target, progress=_progress)
        return _report(moved, config.content_store, target_place)

    return await with_database(config, action)


def _place(value: str) -> str:
    if value in ("directory", "database"):
        return value
    if value.startswith("s3://"):
        return check_store_url(value, "--to")
    raise ConfigError(f"--to {value}: use {PLACES}")


def _progress(moved: Moved) -> None:
    print(
        f"{moved.copied + moved.present} contents checked: {moved.copied} copied, {moved.present} there already",
        flush=True,
    )


def _report(moved: Moved, source: str, target: str) -> int:
    for sha256 in moved.missing:
        print(f"missing from {source}: {sha256}")
    for sha256 in moved.damaged:
        print(f"damaged (its bytes do not hash to its name): {sha256}")
    if not moved.complete:
        print(
            f"{len(moved.missing) + len(moved.damaged)} contents could not be copied to {target}; the others are there"
        )
        return 1
    print(
        f"every content is in {target} ({moved.copied} copied, {moved.present} there already); "
        f"{source} is left as it was"
    )
    print(
        f"to use it, {_setting(source, target)} and restart the service (run this again first if it served meanwhile)"
    )
    return 0


def _setting(source: str, target: str) -> str:
    if target.startswith("s3://"):
        return f"set SIGNSVC_STORAGE_URL={target}" + (
            "" if source.startswith("s3://") else " (and unset SIGNSVC_FILE_STORE)"
        )
    unset = " and unset SIGNSVC_STORAGE_URL" if source.startswith("s3://") else ""
    return f"set SIGNSVC_FILE_STORE={target}{unset}"
