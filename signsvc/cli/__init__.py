"""The command line: `serve` (the default), `migrate`, management of accounts, users, keys, access, webhook
endpoints, signing certificates and the files' store (`storage migrate`), `backup` and `restore`. Each group of
commands is a module of this package."""

from __future__ import annotations

import argparse
import asyncio
import sys

from signsvc.cli import accounts, backup, serve, signing, storage, webhooks
from signsvc.infra import config as configuration
from signsvc.infra import errors
from signsvc.infra.config import ConfigError
from storage import StorageError


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        port = None if args.port is None else configuration.checked_port(args.port, "--port")
        config = configuration.from_env().replace(
            host=args.host, port=port, database_url=args.database, workers=args.workers
        )
        serve.configure_logging(config)
        command = getattr(args, "run", serve.serve_command)
        if command is serve.serve_command and config.workers > 1:
            from signsvc.cli.workers import supervise_command  # only a supervisor needs multiprocessing

            command = supervise_command
        return asyncio.run(command(config, args)) or 0
    except (ConfigError, StorageError, errors.ServiceError, ValueError) as exc:
        print(f"signsvc: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


def parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--database", default=argparse.SUPPRESS, help="database URL (SIGNSVC_DATABASE_URL)")
    listen = argparse.ArgumentParser(add_help=False)
    listen.add_argument("--host", default=argparse.SUPPRESS, help="listen address (SIGNSVC_HOST)")
    listen.add_argument("--port", type=int, default=argparse.SUPPRESS, help="listen port (SIGNSVC_PORT)")
    listen.add_argument(
        "--workers",
        type=_worker_count,
        default=argparse.SUPPRESS,
        metavar="N",
        help="serving processes sharing the port and the database, for more cores; "
        "1 (the default) is one process (SIGNSVC_WORKERS)",
    )

    top = argparse.ArgumentParser(
        prog="python run.py",
        parents=[common, listen],
        description="signsvc, a self-hostable electronic-signature service.",
    )
    top.set_defaults(host=None, port=None, database=None, workers=None)
    commands = top.add_subparsers(title="commands", metavar="COMMAND")
    serve.add_commands(commands, common, listen)
    accounts.add_commands(commands, common)
    webhooks.add_commands(commands, common)
    signing.add_commands(commands, common)
    backup.add_commands(commands, common)
    storage.add_commands(commands, common)
    return top


def _worker_count(value: str) -> int:
    try:
        count = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number of processes") from None
    if count < 1:
        raise argparse.ArgumentTypeError(f"{count} is not a number of processes: use 1 or more")
    return count
