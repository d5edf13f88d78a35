"""The service's signing identity: the chain that signs result documents, and every certificate it trusts.

By default the service signs with a chain of its own (a root CA and a leaf), generated the first time a
document is signed and kept in the database, so every process of a deployment signs with the same key.
`SIGNSVC_SIGNING_P12` replaces it with a PKCS#12 file, read at start (a file that can't be read stops the
start). Every certificate ever used stays in the database: files signed before a rotation still verify.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import storage.results as stored
from signsvc import pdf_calls
from signsvc.config import Config, ConfigError
from signsvc.pool import PdfPool
from signsvc.services import Services

COMMON_NAME = "signsvc"


class Signing:
    def __init__(self, services: Services, pool: PdfPool) -> None:
        self.services, self.pool = services, pool
        self._configured: dict[str, Any] | None = None
        self._generated: dict[str, Any] | None = None
        self._lock = asyncio.Lock()

    async def load(self) -> None:
        """Reads the configured PKCS#12, if any, and records its certificate as trusted."""
        config = self.services.config
        if not config.signing_p12:
            return
        try:
            self._configured = await self.pool.run(pdf_calls.load_signing_p12, _read_p12(config),
                                                   config.signing_p12_password)
        except pdf_calls.EngineError as error:
            raise ConfigError(f"SIGNSVC_SIGNING_P12={config.signing_p12}: {error}") from None
        async with self.services.db.transaction() as tx:
            await stored.insert_certificate(tx, chain={**self._configured, "key_pem": None}, source="p12",
                                            now=self.services.clock.now())

    async def chain(self) -> dict[str, Any]:
        """The chain to sign with now (PEM texts, as `signsvc.pdf.certificates` describes)."""
        if self._configured:
            return self._configured
        async with self._lock:
            if self._generated is None:
                self._generated = await self._current_or_new()
            return self._generated

    async def rotate(self) -> dict[str, Any]:
        """A new generated chain signs from now on; the old one stays trusted."""
        async with self.services.db.transaction() as tx:
            await stored.retire_generated(tx, self.services.clock.now())
        self._generated = None
        return await self.chain()

    async def trusted(self) -> list[str]:
        """Every certificate the service signed with, leaves and issuers, as PEM texts."""
        return [pem for certificate in await stored.certificates(self.services.db)
                for pem in (certificate.cert_pem, *certificate.chain_pems)]

    async def _current_or_new(self) -> dict[str, Any]:
        if current := await stored.current_generated(self.services.db):
            return _pems(current)
        new = await self.pool.run(pdf_calls.generate_signing_chain, COMMON_NAME, COMMON_NAME,
                                  self.services.clock.now())
        async with self.services.db.transaction() as tx:
            # Two processes may both generate one: each signs with what is current once theirs is in.
            if not await stored.current_generated(tx):
                await stored.insert_certificate(tx, chain=new, source="generated", now=self.services.clock.now())
            return _pems(await stored.current_generated(tx))


def _pems(certificate: Any) -> dict[str, Any]:
    return {"key_pem": certificate.key_pem, "cert_pem": certificate.cert_pem,
            "chain_pems": list(certificate.chain_pems), "sha256": certificate.sha256}


def _read_p12(config: Config) -> bytes:
    try:
        return Path(config.signing_p12).read_bytes()
    except OSError as error:
        raise ConfigError(f"SIGNSVC_SIGNING_P12={config.signing_p12} can't be read: {error.strerror}") from None
