"""The service's signing identity: the chain that signs result documents, and every certificate it trusts.

By default the service signs with a chain of its own (a root CA and a leaf), generated when a server
first warms its pool (after its ready line) or first signs, and kept in the database, so every process of
a deployment signs with the same key. A configured PKCS#12 file replaces it (read at start: a file that
can't be used stops the start). Every certificate ever used stays in the database: files signed before a
rotation still verify.
"""

from __future__ import annotations

import asyncio

import storage.results as stored
from signsvc.infra import pdf_calls
from signsvc.infra.clock import Clock
from signsvc.infra.pdf_calls import SigningChain
from signsvc.infra.pool import PdfPool
from storage import Connection, Database
from storage.records import SigningCertificate

COMMON_NAME = "signsvc"


class SigningIdentity:
    def __init__(self, db: Database, clock: Clock, pool: PdfPool) -> None:
        self.db, self.clock, self.pool = db, clock, pool
        self._configured: SigningChain | None = None
        self._lock = asyncio.Lock()

    async def use_p12(self, data: bytes, password: str | None) -> None:
        """Signs with the chain of a PKCS#12 file from now on, and records its certificate as trusted.
        Raises EngineError when the file can't be used (wrong password, not PKCS#12, no key, unfit to sign)."""
        chain = await self.pool.run(pdf_calls.load_signing_p12, data, password, self.clock.now())
        async with self.db.transaction() as tx:
            await stored.insert_certificate(
                tx,
                sha256=chain.sha256,
                cert_pem=chain.cert_pem,
                chain_pems=list(chain.chain_pems),
                key_pem=None,
                source="p12",
                now=self.clock.now(),
            )
        self._configured = chain

    async def chain(self) -> SigningChain:
        """The chain to sign with now. Read for each use, one small query: a rotation by
        `python run.py signing rotate` reaches running servers at once."""
        if self._configured:
            return self._configured
        return await self._generated_chain()

    async def rotate(self) -> SigningChain:
        """A new generated chain signs from now on (unless a PKCS#12 is configured); the old one stays trusted."""
        new = await self._generate()
        async with self.db.transaction() as tx:
            await stored.retire_generated(tx, self.clock.now())
            await self._insert(tx, new)
        return await self._generated_chain()

    async def trusted(self) -> list[str]:
        """Every certificate the service signed with, leaves and issuers, as PEM texts."""
        return [
            pem
            for certificate in await stored.certificates(self.db)
            for pem in (certificate.cert_pem, *certificate.chain_pems)
        ]

    async def listing(self) -> list[str]:
        """A line per certificate: id, fingerprint, where it comes from, since when, and its state."""
        generated = None if self._configured else await stored.current_generated(self.db)
        signing = self._configured.sha256 if self._configured else generated.sha256 if generated else None
        return [
            f"{c.id}\t{c.sha256}\t{c.source}\t{c.created_at:%Y-%m-%d}\t{_state(c, signing)}"
            for c in await stored.certificates(self.db)
        ]

    async def _generated_chain(self) -> SigningChain:
        if current := await stored.current_generated(self.db):
            return _chain(current)
        async with self._lock:  # one generation per process at a time
            if not await stored.current_generated(self.db):
                new = await self._generate()
                async with self.db.transaction() as tx:
                    # Another process may have made one meanwhile: the index keeps one current, theirs or ours.
                    await self._insert(tx, new)
            current = await stored.current_generated(self.db)
            if current is None:
                raise LookupError("no current signing certificate right after one was made")
            return _chain(current)

    async def _generate(self) -> SigningChain:
        return await self.pool.run(pdf_calls.generate_signing_chain, COMMON_NAME, COMMON_NAME, self.clock.now())

    async def _insert(self, tx: Connection, chain: SigningChain) -> None:
        await stored.insert_certificate(
            tx,
            sha256=chain.sha256,
            cert_pem=chain.cert_pem,
            chain_pems=list(chain.chain_pems),
            key_pem=chain.key_pem,
            source="generated",
            now=self.clock.now(),
        )


def _state(certificate: SigningCertificate, signing: str | None) -> str:
    if certificate.sha256 == signing:
        return "signs"
    return f"retired {certificate.retired_at:%Y-%m-%d}" if certificate.retired_at else "trusted"


def _chain(certificate: SigningCertificate) -> SigningChain:
    return SigningChain(certificate.key_pem, certificate.cert_pem, tuple(certificate.chain_pems), certificate.sha256)
