"""The service's signing identity: the chain that signs result documents, and every certificate it trusts.

By default the service signs with a chain of its own (a root CA and a leaf), generated when a server
first warms its pool (after its ready line) or first signs, and kept in the database, so every process of
a deployment signs with the same key.
`SIGNSVC_SIGNING_P12` replaces it with a PKCS#12 file, read at start (a file that can't be read stops the
start). Every certificate ever used stays in the database: files signed before a rotation still verify.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import storage.results as stored
from signsvc.infra import pdf_calls
from signsvc.infra.clock import Clock
from signsvc.infra.config import Config, ConfigError
from signsvc.infra.pool import PdfPool
from storage import Database

COMMON_NAME = "signsvc"


class Signing:
    def __init__(self, db: Database, clock: Clock, config: Config, pool: PdfPool) -> None:
        self.db, self.clock, self.config, self.pool = db, clock, config, pool
        self._configured: dict[str, Any] | None = None
        self._lock = asyncio.Lock()

    async def load(self) -> None:
        """Reads the configured PKCS#12, if any, and records its certificate as trusted."""
        config = self.config
        if not config.signing_p12:
            return
        try:
            self._configured = await self.pool.run(pdf_calls.load_signing_p12, _read_p12(config),
                                                   config.signing_p12_password)
        except pdf_calls.EngineError as error:
            raise ConfigError(f"SIGNSVC_SIGNING_P12={config.signing_p12}: {error}") from None
        async with self.db.transaction() as tx:
            await stored.insert_certificate(tx, chain={**self._configured, "key_pem": None}, source="p12",
                                            now=self.clock.now())

    async def chain(self) -> dict[str, Any]:
        """The chain to sign with now (PEM texts, as `signsvc.pdf.certificates` describes). Read for each
        use, one small query: a rotation by `python run.py signing rotate` reaches running servers at once."""
        if self._configured:
            return self._configured
        return await self._generated_chain()

    async def rotate(self) -> dict[str, Any]:
        """A new generated chain signs from now on (unless a PKCS#12 is configured); the old one stays trusted."""
        new = await self._generate()
        async with self.db.transaction() as tx:
            await stored.retire_generated(tx, self.clock.now())
            await stored.insert_certificate(tx, chain=new, source="generated", now=self.clock.now())
        return await self._generated_chain()

    async def trusted(self) -> list[str]:
        """Every certificate the service signed with, leaves and issuers, as PEM texts."""
        return [pem for certificate in await stored.certificates(self.db)
                for pem in (certificate.cert_pem, *certificate.chain_pems)]

    async def listing(self) -> list[str]:
        """A line per certificate: id, fingerprint, where it comes from, since when, and its state."""
        generated = None if self._configured else await stored.current_generated(self.db)
        signing = self._configured["sha256"] if self._configured else generated.sha256 if generated else None
        return [f"{c.id}\t{c.sha256}\t{c.source}\t{c.created_at:%Y-%m-%d}\t{_state(c, signing)}"
                for c in await stored.certificates(self.db)]

    async def _generated_chain(self) -> dict[str, Any]:
        if current := await stored.current_generated(self.db):
            return _pems(current)
        async with self._lock:  # one generation per process at a time
            if not await stored.current_generated(self.db):
                new = await self._generate()
                async with self.db.transaction() as tx:
                    # Another process may have made one meanwhile: the index keeps one current, theirs or ours.
                    await stored.insert_certificate(tx, chain=new, source="generated", now=self.clock.now())
            return _pems(await stored.current_generated(self.db))

    async def _generate(self) -> dict[str, Any]:
        return await self.pool.run(pdf_calls.generate_signing_chain, COMMON_NAME, COMMON_NAME, self.clock.now())

def _state(certificate: Any, signing: str) -> str:
    if certificate.sha256 == signing:
        return "signs"
    return f"retired {certificate.retired_at:%Y-%m-%d}" if certificate.retired_at else "trusted"


def _pems(certificate: Any) -> dict[str, Any]:
    return {"key_pem": certificate.key_pem, "cert_pem": certificate.cert_pem,
            "chain_pems": list(certificate.chain_pems), "sha256": certificate.sha256}


def _read_p12(config: Config) -> bytes:
    try:
        return Path(config.signing_p12).read_bytes()
    except OSError as error:
        raise ConfigError(f"SIGNSVC_SIGNING_P12={config.signing_p12} can't be read: {error.strerror}") from None
