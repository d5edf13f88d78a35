"""The service's signing identity: the chain that signs result documents, and every certificate it trusts.

By default the service signs with a chain of its own (a root CA and a leaf), generated when a server
first warms its pool (after its ready line) or first signs, and kept in the database, so every process of
a deployment signs with the same key. A configured PKCS#12 file replaces it (read at start: a file that
can't be used stops the start). Every certificate ever used stays in the database: files signed before a
rotation still verify.

The generated chain's root CA key is kept with it, encrypted with the service's secret key (`ca_key`), and
opened only to issue the CRL: it issues the CRL the leaf names (`{site}/signing/crl/{root
sha256}.crl`), valid for `CRL_VALIDITY`, made once per CA and kept in the database, renewed by a job when older
than `CRL_RENEW_AFTER`, so every process serves and embeds the same one. A chain generated before the CA key was
kept can't have a CRL: it keeps signing (B-T or B-B), since a new root would no longer be trusted by whoever
trusts the old one, and each start warns that `python run.py signing rotate` gives a chain that reaches B-LT.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import logging
import ssl
from datetime import timedelta
from typing import Any

import storage.results as stored
import storage.timestamp_authorities as stored_stampers
from signsvc.infra import jobs, pdf_calls
from signsvc.infra.clock import Clock
from signsvc.infra.pdf_calls import SigningChain
from signsvc.infra.pool import PdfPool
from signsvc.results.ca_key import CaKeySeal
from storage import Connection, Database
from storage.records import SigningCertificate, SigningCrl

log = logging.getLogger(__name__)

COMMON_NAME = "signsvc"
CRL_PATH = "/signing/crl"  # under the site: `{CRL_PATH}/{root sha256}.crl`
CRL_VALIDITY = timedelta(days=7)
CRL_RENEW_AFTER = timedelta(days=1)
CRL_JOB = "signing.crl"
CRL_JOB_EVERY = timedelta(hours=1)


class SigningIdentity:
    def __init__(self, db: Database, clock: Clock, pool: PdfPool, secret_key: str, site: str | None = None) -> None:
        self.db, self.clock, self.pool = db, clock, pool
        self.ca_keys = CaKeySeal(secret_key)
        self.crl_url = f"{site}{CRL_PATH}" if site else None
        self._configured: SigningChain | None = None
        self._lock = asyncio.Lock()
        self._known_stampers: set[str] = set()  # timestamp authorities already kept, by SHA-256

    def kinds(self) -> list[jobs.Kind]:
        return [jobs.Kind(CRL_JOB, self.renew_crls, every=CRL_JOB_EVERY)]

    @property
    def configured(self) -> SigningChain | None:
        """The PKCS#12 chain that signs, if one is configured."""
        return self._configured

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
        new, ca_key_pem = await self._generate()
        async with self.db.transaction() as tx:
            await stored.retire_generated(tx, self.clock.now())
            await self._insert(tx, new, ca_key_pem)
        return await self._generated_chain()

    async def trusted(self) -> list[str]:
        """Every certificate the service signed with, leaves and issuers, as PEM texts."""
        return [
            pem
            for certificate in await stored.certificates(self.db)
            for pem in (certificate.cert_pem, *certificate.chain_pems)
        ]

    async def remember_timestamp_authorities(self, pems: tuple[str, ...]) -> None:
        """Keeps the certificates of the timestamps the service just stamped with (`Sealed.timestamp_certificates`):
        verify trusts them for timestamps, so the service's own B-LTA files date their signatures."""
        for pem in pems:
            sha256 = hashlib.sha256(ssl.PEM_cert_to_DER_cert(pem)).hexdigest()
            if sha256 not in self._known_stampers:
                await stored_stampers.remember(self.db, sha256, pem, self.clock.now())
                self._known_stampers.add(sha256)

    async def timestamp_authorities(self) -> list[str]:
        """The certificates of every timestamp authority the service stamped with, PEM."""
        return await stored_stampers.certificates(self.db)

    async def listing(self) -> list[str]:
        """A line per certificate: id, fingerprint, where it comes from, since when, and its state."""
        generated = None if self._configured else await stored.current_generated(self.db)
        signing = self._configured.sha256 if self._configured else generated.sha256 if generated else None
        return [
            f"{c.id}\t{c.sha256}\t{c.source}\t{c.created_at:%Y-%m-%d}\t{_state(c, signing)}"
            for c in await stored.certificates(self.db)
        ]

    async def crl(self, chain: SigningChain) -> bytes | None:
        """The current CRL (DER) of a generated chain's CA, made now if it has none yet or it has expired;
        None for a chain without a CA key (or whose key can't be opened)."""
        return await self._current_crl(root_sha256(chain)) if chain.issues_crl else None

    async def published_crl(self, issuer_sha256: str) -> bytes | None:
        """The CRL the service publishes for the CA with this certificate hash, renewed now if it has expired
        (None: no such CA, or its expired CRL can't be renewed)."""
        return await self._current_crl(issuer_sha256)

    async def renew_crls(self, payload: dict[str, Any]) -> None:
        """The job: a new CRL for each CA whose key the service holds, once the kept one is `CRL_RENEW_AFTER` old."""
        for certificate in await stored.certificates(self.db):
            if certificate.ca_key_sealed is None:
                continue
            kept = await stored.get_crl(self.db, root_sha256(_chain(certificate)))
            if kept is None or self.clock.now() - kept.this_update >= CRL_RENEW_AFTER:
                await self._issue_crl(certificate)

    async def _current_crl(self, issuer_sha256: str) -> bytes | None:
        kept = await stored.get_crl(self.db, issuer_sha256)
        if kept is None or kept.next_update <= self.clock.now():
            issuers = [c for c in await stored.certificates(self.db) if c.ca_key_sealed and _root(c) == issuer_sha256]
            kept = await self._issue_crl(issuers[-1]) if issuers else None
        return base64.b64decode(kept.crl) if kept else None

    async def _issue_crl(self, certificate: SigningCertificate) -> SigningCrl | None:
        """A new CRL of the certificate's CA, kept; None when its key can't be opened (logged)."""
        assert certificate.ca_key_sealed is not None, "only a CA whose key is kept issues CRLs"
        ca_key_pem = self.ca_keys.open(certificate.ca_key_sealed)
        if ca_key_pem is None:
            log.error(
                "the CA key of signing certificate %s can't be opened with this SIGNSVC_SECRET_KEY (it was kept under "
                "another one): its CRL is not renewed; restore the secret key, or run `python run.py signing rotate`",
                certificate.sha256,
            )
            return None
        now, issuer = self.clock.now(), _root(certificate)
        der = await self.pool.run(pdf_calls.issue_crl, ca_key_pem, certificate.chain_pems[-1], now, CRL_VALIDITY)
        await stored.put_crl(self.db, SigningCrl(issuer, base64.b64encode(der).decode(), now, now + CRL_VALIDITY))
        return await stored.get_crl(self.db, issuer)  # ours, or a newer one another process made meanwhile

    async def warn_without_crl(self) -> None:
        """At start: a warning when the generated chain that signs can't have a CRL (it predates kept CA keys)."""
        current = None if self._configured else await stored.current_generated(self.db)
        if current is not None and current.ca_key_sealed is None:
            log.warning(
                "signing certificate %s was generated before the service kept its CA key, so it has no CRL and "
                "documents are signed without revocation information (PAdES B-T or B-B, not B-LT); run "
                "`python run.py signing rotate` for a new chain that reaches B-LT (its new root must then be "
                "trusted where the old one is; the old certificate stays trusted by the service)",
                current.sha256,
            )

    async def _generated_chain(self) -> SigningChain:
        current = await stored.current_generated(self.db)
        if current:
            return _chain(current)
        async with self._lock:  # one generation per process at a time
            if await stored.current_generated(self.db) is None:
                new, ca_key_pem = await self._generate()
                async with self.db.transaction() as tx:
                    # Another process may have made one meanwhile: the index keeps one current, theirs or ours.
                    await self._insert(tx, new, ca_key_pem)
            current = await stored.current_generated(self.db)
            if current is None:
                raise LookupError("no current signing certificate right after one was made")
            return _chain(current)

    async def _generate(self) -> tuple[SigningChain, str]:
        return await self.pool.run(
            pdf_calls.generate_signing_chain, COMMON_NAME, COMMON_NAME, self.clock.now(), self.crl_url
        )

    async def _insert(self, tx: Connection, chain: SigningChain, ca_key_pem: str) -> None:
        await stored.insert_certificate(
            tx,
            sha256=chain.sha256,
            cert_pem=chain.cert_pem,
            chain_pems=list(chain.chain_pems),
            key_pem=chain.key_pem,
            source="generated",
            now=self.clock.now(),
            ca_key_sealed=self.ca_keys.seal(ca_key_pem),
        )


def _state(certificate: SigningCertificate, signing: str | None) -> str:
    if certificate.sha256 == signing:
        return "signs"
    return f"retired {certificate.retired_at:%Y-%m-%d}" if certificate.retired_at else "trusted"


def root_sha256(chain: SigningChain) -> str:
    """The SHA-256 of the chain's root certificate: what names its CRL."""
    return hashlib.sha256(ssl.PEM_cert_to_DER_cert(chain.chain_pems[-1])).hexdigest()


def _chain(certificate: SigningCertificate) -> SigningChain:
    return SigningChain(
        certificate.key_pem,
        certificate.cert_pem,
        tuple(certificate.chain_pems),
        certificate.sha256,
        issues_crl=certificate.ca_key_sealed is not None,
    )


def _root(certificate: SigningCertificate) -> str:
    return hashlib.sha256(ssl.PEM_cert_to_DER_cert(certificate.chain_pems[-1])).hexdigest()
