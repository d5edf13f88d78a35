"""A Postgres server of a test's own (initdb in the test's directory, a free port), which the test may stop and start
again: the shared test server must keep serving the other tests."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import tempfile
from pathlib import Path

BIN = (
    Path("/usr/lib/postgresql")
    / (sorted(os.listdir("/usr/lib/postgresql"))[-1] if Path("/usr/lib/postgresql").is_dir() else "")
    / "bin"
)


def available() -> bool:
    return (BIN / "initdb").exists() and (os.geteuid() != 0 or shutil.which("runuser") is not None)


class OwnPostgres:
    """In a directory of its own under the system's temporary directory: as root, the server runs as the postgres
    user, who cannot reach a test's own (private) temporary directory."""

    def __init__(self) -> None:
        self.directory = Path(tempfile.mkdtemp(prefix="signsvc-postgres-"))
        self.data = self.directory / "data"
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    async def create(self) -> OwnPostgres:
        if os.geteuid() == 0:  # Postgres refuses to run as root
            shutil.chown(self.directory, "postgres", "postgres")
        await self._run(BIN / "initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8")
        await self.start()
        return self

    async def start(self) -> None:
        options = f"-p {self.port} -k {self.directory} -c listen_addresses=127.0.0.1 -c fsync=off"
        await self._run(
            BIN / "pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.directory / "log"), "-w", "start"
        )

    async def stop(self) -> None:
        await self._run(BIN / "pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")

    async def remove(self) -> None:
        """Stops the server if it runs, and removes its files."""
        if (self.data / "postmaster.pid").exists():
            await self.stop()
        shutil.rmtree(self.directory, ignore_errors=True)

    async def _run(self, *command: str | Path) -> None:
        prefix = ("runuser", "-u", "postgres", "--") if os.geteuid() == 0 else ()
        process = await asyncio.create_subprocess_exec(
            *prefix, *map(str, command), stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
        )
        out, _ = await asyncio.wait_for(process.communicate(), 60)
        assert process.returncode == 0, out.decode()
