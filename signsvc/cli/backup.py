"""`python run.py backup PATH` and `python run.py restore PATH`. Their work is signsvc/cli/backing_up.py, imported
only when one of them runs: a server's start does without it (and without storage.backup)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from signsvc.infra.config import Config


def add_commands(commands: Any, common: argparse.ArgumentParser) -> None:
    made = commands.add_parser(
        "backup", parents=[common], help="copy the database and its files into a new directory, while the service runs"
    )
    made.add_argument("path", metavar="PATH", type=Path, help="a new or empty directory")
    made.set_defaults(run=_backup)
    restored = commands.add_parser(
        "restore", parents=[common], help="restore a backup into a new or empty database and the content store"
    )
    restored.add_argument("path", metavar="PATH", type=Path, help="a directory made by backup")
    restored.set_defaults(run=_restore)


async def _backup(config: Config, args: argparse.Namespace) -> int:
    from signsvc.cli.backing_up import run_backup

    return await run_backup(config, args)


async def _restore(config: Config, args: argparse.Namespace) -> int:
    from signsvc.cli.backing_up import run_restore

    return await run_restore(config, args)
