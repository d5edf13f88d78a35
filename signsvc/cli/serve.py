"""`python run.py serve` (the default) and `python run.py migrate`. The server itself runs in
signsvc/cli/serving.py (with `--workers N`, several processes do: signsvc/cli/workers.py), imported only to serve:
the management commands need none of the web stack."""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Any

from signsvc.cli.database import with_database
from signsvc.infra.config import Config


def add_commands(commands: Any, common: argparse.ArgumentParser, listen: argparse.ArgumentParser) -> None:
    commands.add_parser("serve", parents=[common, listen], help="serve the API and pages (the default)").set_defaults(
        run=serve_command
    )
    commands.add_parser("migrate", parents=[common], help="bring the database schema up to date").set_defaults(
        run=_migrate
    )


async def serve_command(config: Config, args: argparse.Namespace) -> None:
    from signsvc.cli.serving import serve

    await serve(config)


async def _migrate(config: Config, args: argparse.Namespace) -> int | None:
    async def done(db: object) -> None:
        print("schema is up to date")

    return await with_database(config, done)


def configure_logging(config: Config) -> None:
    """Log lines to stderr; with several serving processes each line names the process that wrote it."""
    pid = " [%(process)d]" if config.workers > 1 else ""
    logging.basicConfig(
        level=config.log_level, stream=sys.stderr, format=f"%(asctime)s %(levelname)s{pid} %(name)s: %(message)s"
    )
