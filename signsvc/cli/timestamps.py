"""`tsa`: a local timestamp authority (RFC 3161) for trying PAdES B-LTA on a laptop or in a test suite
(`signsvc.testing.timestamps`). Its certificate and key stay in a directory, so validators that trust it keep
trusting it across restarts. Not for production: use a real timestamp authority there."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import Any

from signsvc.infra.config import Config

DEFAULT_DIRECTORY = "data/tsa"
DEFAULT_PORT = 3180


def add_commands(commands: Any, common: argparse.ArgumentParser) -> None:
    tsa = commands.add_parser(
        "tsa",
        help="serve a local timestamp authority (RFC 3161) for tests and laptops",
        description=__doc__,
    )
    tsa.add_argument(
        "--directory", default=DEFAULT_DIRECTORY, help=f"where its certificate and key are kept ({DEFAULT_DIRECTORY})"
    )
    tsa.add_argument("--tsa-host", default="127.0.0.1", help="listen address (127.0.0.1)")
    tsa.add_argument("--tsa-port", type=int, default=DEFAULT_PORT, help=f"listen port ({DEFAULT_PORT})")
    tsa.set_defaults(run=_serve, without_database="tsa")


async def _serve(config: Config, args: argparse.Namespace) -> int | None:
    from aiohttp import web

    from signsvc.testing import timestamps  # pyHanko: only this command needs it

    directory = Path(args.directory)
    authority = await asyncio.to_thread(timestamps.load_or_create, directory)
    runner = web.AppRunner(timestamps.app(authority.stamper()), access_log=None)
    await runner.setup()
    await web.TCPSite(runner, args.tsa_host, args.tsa_port).start()
    print(f"timestamp authority on http://{args.tsa_host}:{args.tsa_port}/ (set SIGNSVC_TSA_URL to it)")
    print(f"its certificate, to trust when validating: {directory / timestamps.CERTIFICATE}", flush=True)
    try:
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()
    return None
