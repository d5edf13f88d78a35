"""The server of `python run.py serve`: listen, print the ready line, stop gracefully on SIGTERM or SIGINT."""

from __future__ import annotations

import asyncio
import errno
import logging
import signal
import socket
import sys
from collections.abc import Callable

from aiohttp import web

from signsvc.accounts.accounts import DEFAULT_EMAIL, IssuedKeys
from signsvc.app import create_app, serving_started
from signsvc.cli.database import where
from signsvc.http.access_log import AccessLogger
from signsvc.http.appkeys import ISSUED_KEYS, SETUP_LINK
from signsvc.http.connection_deadlines import GuardedSite, Limits
from signsvc.infra.config import Config, ConfigError
from signsvc.infra.urls import Urls

log = logging.getLogger(__name__)

# In-flight requests get this long to finish once a stop is asked for.
SHUTDOWN_TIMEOUT_SECONDS = 30.0
# An idle kept-alive connection is closed after this long (aiohttp's own default keeps it an hour).
KEEPALIVE_SECONDS = 75.0
STOPPING = "signsvc stopping: finishing requests and jobs under way"
# Keys are stored as hashes, so a later start cannot print them again; it says how to get a new one.
KEYS_SHOWN_ONCE = (
    f"API keys are printed on the first start only; for a new one: python run.py keys rotate "
    f"{DEFAULT_EMAIL} (add --mode test for the test key)"
)


async def serve(config: Config) -> None:
    if config.metrics_token:  # prometheus_client, and what the metrics read, only then
        from signsvc.infra import metrics

        metrics.keep_in_memory()
    sock = bind(config.host, config.port)
    config = config.replace(port=sock.getsockname()[1])
    stop = asyncio.Event()

    def announce(app: web.Application) -> None:
        """Between the start's halves (signsvc/app.py): the socket listens, the database and the keys are made, and
        the configuration can no longer stop the start. Connections made from now on wait in the socket's backlog
        until the second half is done."""
        on_stop_signals(stop.set)  # before the ready line: whoever reads it may signal at once
        print_ready(config, app[ISSUED_KEYS], app[SETUP_LINK])

    runner = await start(create_app(config, announce=announce), sock, limits(config))
    try:
        log.info("serving %s", where(config))
        serving_started(runner.app)
        await stop.wait()
        print(STOPPING, file=sys.stderr, flush=True)
    finally:
        await runner.cleanup()


async def start(app: web.Application, sock: socket.socket, deadlines: Limits | None = None) -> web.AppRunner:
    """Starts the app (database, worker) and serves it on `sock`, its connections under `deadlines` (by default
    the settings' defaults); `runner.cleanup()` stops it gracefully: no new connections, requests under way
    finish, the worker finishes its jobs."""
    runner = await set_up(app)
    try:
        await GuardedSite(runner, sock, deadlines or limits(Config())).start()
    except BaseException:
        await runner.cleanup()
        raise
    return runner


async def set_up(app: web.Application) -> web.AppRunner:
    """Starts the app (database, worker) without serving it yet."""
    runner = web.AppRunner(
        app,
        access_log_class=AccessLogger,
        access_log=logging.getLogger("signsvc.access"),
        shutdown_timeout=SHUTDOWN_TIMEOUT_SECONDS,
        keepalive_timeout=KEEPALIVE_SECONDS,
    )
    await runner.setup()
    return runner


def limits(config: Config) -> Limits:
    """How slowly a client may send a request's head and body (`signsvc/http/connection_deadlines.py`)."""
    return Limits(config.header_timeout_seconds, config.body_min_rate, config.body_rate_window_seconds)


def print_ready(config: Config, issued: IssuedKeys | None, setup_link: str | None) -> None:
    urls = Urls(config.site)
    lines = [f"signsvc ready: site {urls.site}  api {urls.api()}", *_key_lines(config, issued)]
    if issued and setup_link:
        lines.append(f"Console setup link (sets the password of {issued.user.email}): {setup_link}")
    print("\n".join(lines), flush=True)


def _key_lines(config: Config, issued: IssuedKeys | None) -> list[str]:
    """The keys this start made; else, unless configuration fixes both, how to get a new one."""
    keys = (
        [f"API key ({mode}): {key}" for mode, key in (("live", issued.live), ("test", issued.test)) if key]
        if issued
        else []
    )
    if keys or (config.api_key and config.test_api_key):
        return keys
    return [KEYS_SHOWN_ONCE]


def bind(host: str, port: int, *, reuse_port: bool = False, listen: bool = True) -> socket.socket:
    """The listening socket; an address that cannot be had is a start error that names it and why.
    `reuse_port`: one of several processes' sockets on the same port, the kernel spreading connections among
    those that listen (`--workers`); `listen=False`: bound only, holding the port for them."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except socket.gaierror:
        raise ConfigError(
            f"cannot listen on {_shown(host, port)}: the host name does not resolve "
            f"(set another with --host or SIGNSVC_HOST)"
        ) from None
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if reuse_port:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind(address)
        if listen:
            sock.listen(128)
    except OSError as error:
        sock.close()
        raise ConfigError(f"cannot listen on {_shown(host, port)}: {_why_not(error, port)}") from None
    sock.setblocking(False)
    return sock


def _why_not(error: OSError, port: int) -> str:
    if error.errno == errno.EADDRINUSE:
        return "the port is already in use (set another with --port or SIGNSVC_PORT)"
    if error.errno == errno.EADDRNOTAVAIL:
        return "the address is not one of this machine's (set another with --host or SIGNSVC_HOST)"
    if error.errno == errno.EACCES and 0 < port < 1024:
        return "ports below 1024 need privileges (set another with --port or SIGNSVC_PORT)"
    return error.strerror or str(error)


def _shown(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def stop_signals() -> asyncio.Event:
    """An event set by SIGTERM or SIGINT."""
    stop = asyncio.Event()
    on_stop_signals(stop.set)
    return stop


def on_stop_signals(callback: Callable[[], None]) -> None:
    """`callback` on SIGTERM or SIGINT, instead of the process's end."""
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, callback)
