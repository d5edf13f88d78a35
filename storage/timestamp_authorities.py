"""The certificates of the timestamp authorities the service stamped with: trusted by verify for timestamps."""

from __future__ import annotations

from datetime import datetime

from storage.database import Connection


async def remember(conn: Connection, sha256: str, cert_pem: str, now: datetime) -> None:
    """Keeps the certificate once (the first time it is seen)."""
    await conn.execute("remember_timestamp_authority", sha256=sha256, cert_pem=cert_pem, now=now)


async def certificates(conn: Connection) -> list[str]:
    """Every certificate kept, PEM, oldest first."""
    return [str(row["cert_pem"]) for row in await conn.fetch_all("list_timestamp_authorities")]
