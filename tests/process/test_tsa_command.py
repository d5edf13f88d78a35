"""`python run.py tsa`: the local timestamp authority as a process, its certificate kept across restarts."""

from __future__ import annotations

import asyncio
import hashlib
import socket
import sys

from pyhanko.sign.timestamps import HTTPTimeStamper

from tests.support import service
from tests.support.paths import ROOT


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def stamp_once(directory, port: int) -> tuple[bytes, str]:
    """Starts the command, gets one timestamp token from it, stops it; the token's certificate and the output."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "run.py",
        "tsa",
        "--directory",
        str(directory),
        "--tsa-port",
        str(port),
        cwd=ROOT,
        env=service.environment(),
        stdout=asyncio.subprocess.PIPE,
    )
    try:
        first = (await asyncio.wait_for(process.stdout.readline(), 60)).decode()
        token = await HTTPTimeStamper(f"http://127.0.0.1:{port}/").async_timestamp(
            hashlib.sha256(b"a document").digest(), "sha256"
        )
    finally:
        process.terminate()
        await process.wait()
    [certificate] = [c.chosen.dump() for c in token["content"]["certificates"]]
    return certificate, first


async def test_tsa_command_serves_timestamps_and_keeps_its_certificate_across_restarts(tmp_path):
    port = free_port()
    first, line = await stamp_once(tmp_path / "tsa", port)
    assert line == f"timestamp authority on http://127.0.0.1:{port}/ (set SIGNSVC_TSA_URL to it)\n"
    again, _ = await stamp_once(tmp_path / "tsa", port)
    assert again == first
    assert (tmp_path / "tsa" / "tsa-certificate.pem").exists()
