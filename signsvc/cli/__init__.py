"""The command line: `serve` (the default), `migrate`, management of accounts, users, keys, access, webhook
endpoints, signing certificates and the files' store (`storage migrate`), `backup` and `restore`, and `tsa` (a local
timestamp authority). Each group of
commands is a module of this package. Installed as the `signsvc` command; `python run.py` is the same.

Options may come before the command or after it (`--database X users list` and `users list --database X` are
one command); the listening options before a command other than `serve` are refused, since only `serve` listens.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from typing import Any

import signsvc
from signsvc.cli import serve
from signsvc.infra import config as configuration
from signsvc.infra import errors
from signsvc.infra.config import ConfigError
from storage import StorageError

# The options every command takes, and those only `serve` takes; given before the command, each is parsed into
# `before_<name>` and then settled with the same option given after it.
COMMON = ("database",)
LISTEN = ("host", "port", "workers")
_TOP_FLAGS = frozenset(f"--{name}" for name in COMMON + LISTEN)


def main(argv: list[str] | None = None) -> int:
    top = parser(with_commands=not serve_options_only(sys.argv[1:] if argv is None else argv))
    args = top.parse_args(argv)
    try:
        settle(top, args)
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
    except BrokenPipeError:  # `... | head`: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


def settle(top: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """One value per option, wherever it was written; the parser exits with one line for a contradiction or a
    listening option before a command that does not listen."""
    serving = getattr(args, "run", serve.serve_command) is serve.serve_command
    for name in COMMON + LISTEN:
        before, after = getattr(args, f"before_{name}"), getattr(args, name, None)
        flag = f"--{name}"
        if before is not None and name in LISTEN and not serving:
            top.error(f"{flag} applies to serve only: {top.prog} serve {flag} {before}")
        if before is not None and name in COMMON and getattr(args, "without_database", None):
            top.error(f"{flag} does not apply to {args.without_database}, which uses no database")
        if before is not None and after is not None and before != after:
            top.error(f"{flag} is given twice, as {before} before the command and {after} after it: give it once")
        setattr(args, name, after if after is not None else before)


def serve_options_only(argv: list[str]) -> bool:
    """Whether the command line is only the options given before a command, each written whole, and no command:
    the default `serve`, which the top parser alone parses (the start spends no time building every command's)."""
    words = iter(argv)
    for word in words:
        flag, equals, _ = word.partition("=")
        if flag not in _TOP_FLAGS or (not equals and next(words, None) is None):
            return False
    return True


def parser(*, with_commands: bool = True) -> argparse.ArgumentParser:
    """The whole command line's parser; `with_commands=False` leaves the commands out, for `serve_options_only`
    (they never take part in such a parse, and the usage names them only as COMMAND)."""
    top = argparse.ArgumentParser(prog=_program(), description="signsvc, a self-hostable electronic-signature service.")
    top.add_argument("--version", action="version", version=f"signsvc {signsvc.__version__}")
    _common_options(top, prefix="before_")
    _listen_options(top, prefix="before_")
    commands = top.add_subparsers(title="commands", metavar="COMMAND")
    if not with_commands:
        return top
    from signsvc.cli import accounts, backup, signing, storage, timestamps, webhooks  # their imports: not for serve

    common = argparse.ArgumentParser(add_help=False)
    _common_options(common)
    listen = argparse.ArgumentParser(add_help=False)
    _listen_options(listen)
    serve.add_commands(commands, common, listen)
    accounts.add_commands(commands, common)
    webhooks.add_commands(commands, common)
    signing.add_commands(commands, common)
    backup.add_commands(commands, common)
    storage.add_commands(commands, common)
    timestamps.add_commands(commands, common)
    return top


def _common_options(parser: argparse.ArgumentParser, prefix: str = "") -> None:
    parser.add_argument(
        "--database",
        dest=f"{prefix}database",
        metavar="URL",
        help="database URL (SIGNSVC_DATABASE_URL)",
        default=_unset(prefix),
    )


def _listen_options(parser: argparse.ArgumentParser, prefix: str = "") -> None:
    unset = _unset(prefix)
    parser.add_argument(
        "--host", dest=f"{prefix}host", metavar="HOST", help="listen address (SIGNSVC_HOST)", default=unset
    )
    parser.add_argument(
        "--port", dest=f"{prefix}port", type=int, metavar="PORT", help="listen port (SIGNSVC_PORT)", default=unset
    )
    parser.add_argument(
        "--workers",
        dest=f"{prefix}workers",
        type=_worker_count,
        metavar="N",
        help="serving processes sharing the port and the database, for more cores; "
        "1 (the default) is one process (SIGNSVC_WORKERS)",
        default=unset,
    )


def _unset(prefix: str) -> Any:
    """Options after the command leave no attribute when absent, so that they never hide the same option given
    before it (argparse copies a subcommand's defaults over the values parsed before the subcommand)."""
    return None if prefix else argparse.SUPPRESS


def _program() -> str:
    return "python run.py" if os.path.basename(sys.argv[0]) == "run.py" else "signsvc"


def _worker_count(value: str) -> int:
    try:
        count = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number of processes") from None
    if count < 1:
        raise argparse.ArgumentTypeError(f"{count} is not a number of processes: use 1 or more")
    return count
