"""`python run.py serve`: listen, print the ready line, stop gracefully on SIGTERM or SIGINT; and
`python run.py migrate`."""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import socket
import sys
from typing import Any

from aiohttp import web

from signsvc.app import create_app
from signsvc.cli.database import with_database
from signsvc.http.access_log import AccessLogger
from signsvc.http.appkeys import ISSUED_KEYS
from signsvc.infra.config import Config

# In-flight requests get this long to finish once a stop is asked for.
SHUTDOWN_TIMEOUT_SECONDS = 30.0


def add_commands(commands: Any, common: argparse.ArgumentParser, listen: argparse.ArgumentParser) -> None:
    commands.add_parser("serve", parents=[common, listen], help="serve the API and pages (the default)") \
        .set_defaults(run=serve_command)
    commands.add_parser("migrate", parents=[common], help="bring the database schema up to date") \
        .set_defaults(run=_migrate)


async def serve_command(config: Config, args: argparse.Namespace) -> None:
    await serve(config)


async def _migrate(config: Config, args: argparse.Namespace) -> int | None:
    async def done(db: object) -> None:
        print("schema is up to date")

    return await with_database(config, done)


async def serve(config: Config) -> None:
    sock = bind(config.host, config.port)
    config = config.replace(port=sock.getsockname()[1])
    runner = await start(create_app(config), sock)
    try:
        print_ready(config, runner.app)
        await _until_stop_signal()
    finally:
        await runner.cleanup()


async def start(app: web.Application, sock: socket.socket) -> web.AppRunner:
    """Starts the app (database, worker) and serves it on `sock`; `runner.cleanup()` stops it
    gracefully: no new connections, requests under way finish, the worker finishes its jobs."""
    runner = web.AppRunner(app, access_log_class=AccessLogger, access_log=logging.getLogger("signsvc.access"),
                           shutdown_timeout=SHUTDOWN_TIMEOUT_SECONDS)
    await runner.setup()
    try:
        await web.SockSite(runner, sock).start()
    except BaseException:
        await runner.cleanup()
        raise
    return runner


def print_ready(config: Config, app: web.Application) -> None:
    lines = [f"signsvc ready: site {config.site}  api {config.site}/api"]
    issued = app[ISSUED_KEYS]
    if issued and issued.live:
        lines.append(f"API key (live): {issued.live}")
    if issued and issued.test:
        lines.append(f"API key (test): {issued.test}")
    print("\n".join(lines), flush=True)


def bind(host: str, port: int) -> socket.socket:
    family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(address)
    sock.listen(128)
    sock.setblocking(False)
    return sock


async def _until_stop_signal() -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    await stop.wait()
    print("signsvc stopping: finishing requests and jobs under way", file=sys.stderr, flush=True)
