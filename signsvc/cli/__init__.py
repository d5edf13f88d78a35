"""The command line: `serve` (the default), `migrate`, and management of accounts, users, keys, access,
webhook endpoints and signing certificates. Each group of commands is a module of this package."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys

from signsvc.cli import accounts, serve, signing, webhooks
from signsvc.infra import config as configuration
from signsvc.infra import errors
from signsvc.infra.config import ConfigError
from storage import StorageError


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        port = None if args.port is None else configuration.checked_port(args.port, "--port")
        config = configuration.from_env().replace(host=args.host, port=port, database_url=args.database)
        logging.basicConfig(level=config.log_level, stream=sys.stderr,
                            format="%(asctime)s %(levelname)s %(name)s: %(message)s")
        command = getattr(args, "run", serve.serve_command)
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

    top = argparse.ArgumentParser(prog="python run.py", parents=[common, listen],
                                  description="signsvc, a self-hostable electronic-signature service.")
    top.set_defaults(host=None, port=None, database=None)
    commands = top.add_subparsers(title="commands", metavar="COMMAND")
    serve.add_commands(commands, common, listen)
    accounts.add_commands(commands, common)
    webhooks.add_commands(commands, common)
    signing.add_commands(commands, common)
    return top
