"""Signatures that stay valid (PAdES B-LT and B-LTA): the DSS in every signed file, the CRL the service issues,
publishes and renews for its own CA, document timestamps and their renewal, revocation information fetched for a
configured PKCS#12 chain. Completed files are validated with pyHanko offline: no fetching, the service's CA as the
only trust root (with the test TSA's certificate for timestamps), revocation checking required."""

from __future__ import annotations

import base64
import hashlib
import io
import logging
import subprocess
from datetime import timedelta
from typing import Any

import pytest
from aiohttp import web
from asn1crypto import pem as asn1_pem
from asn1crypto import x509 as asn1_x509
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import NameOID
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.diff_analysis import ModificationLevel
from pyhanko.sign.validation import (
    DocumentSecurityStore,
    async_validate_pdf_signature,
    async_validate_pdf_timestamp,
)
from pyhanko.sign.validation.errors import NoDSSFoundError
from pyhanko.sign.validation.status import SignatureCoverageLevel
from pyhanko_certvalidator import ValidationContext

import storage.clickwraps as stored_clickwraps
import storage.results as stored_results
from signsvc.http.appkeys import FILES, RESULTS, WORKER
from signsvc.infra import downloads
from signsvc.pdf import certificates
from signsvc.results import revocation, sealing, signing_identity
from signsvc.results.ca_key import CaKeySeal
from signsvc.testing import timestamps
from tests.api.test_clickwrap_page import agree, clickwrap, consents
from tests.support.app import Api
from tests.support.results import completed_submission, fetch
from tests.support.signing import ANN_VALUES, BOB_VALUES, submission
from tests.support.system import PDFSIG

# Latin names: no CJK fallback font to load, so the completions stay quick.
COMPLETED = (
    {"email": "ann@example.com", "name": "Ann Smith", "values": ANN_VALUES, "completed": True},
    {"email": "bob@example.com", "name": "Bob Buyer", "values": BOB_VALUES, "completed": True},
)


def asn1(pem: str | bytes) -> asn1_x509.Certificate:
    return asn1_x509.Certificate.load(asn1_pem.unarmor(pem.encode() if isinstance(pem, str) else pem)[2])


async def service_roots(db) -> list[asn1_x509.Certificate]:
    """The roots of every chain the service generated: its CAs."""
    return [asn1(c.chain_pems[-1]) for c in await stored_results.certificates(db) if c.chain_pems]


async def signed_files(api: Api, worker) -> dict[str, bytes]:
    """The signed document, audit log and combined document of a new completed submission."""
    found = await completed_submission(api, worker, *COMPLETED)
    api.last_submission_id = found["id"]
    urls = {
        "document": found["documents"][0]["url"],
        "audit_log": found["audit_log_url"],
        "combined": found["combined_document_url"],
    }
    return {name: await fetch(api, url) for name, url in urls.items()}


async def signed_levels(db, submission_id: int) -> set[str | None]:
    """The levels of the signed files of a submission (the first signer's own documents are not signed)."""
    results = await stored_results.results_of(db, submission_id)
    return {r.pades_level for r in results if r.kind != "submitter" or r.submitter_id == max_submitter(results)}


def max_submitter(results) -> int:
    return max(r.submitter_id for r in results if r.submitter_id is not None)


def offline(data: bytes, roots: list[asn1_x509.Certificate], moment, *, embedded: bool = True):
    """A validation context of what the file carries only (or of nothing but the roots), requiring revocation
    information for every certificate but the roots."""
    settings: dict[str, Any] = {
        "trust_roots": roots,
        "allow_fetching": False,
        "revocation_mode": "hard-fail",
        "moment": moment,
    }
    try:
        dss = DocumentSecurityStore.read_dss(PdfFileReader(io.BytesIO(data)))
    except NoDSSFoundError:
        dss = None
    if dss is None or not embedded:
        return ValidationContext(**settings, crls=[], ocsps=[])
    return dss.as_validation_context(settings)


async def certification_status(data: bytes, roots, moment, *, embedded: bool = True):
    reader = PdfFileReader(io.BytesIO(data))
    [signature] = reader.embedded_regular_signatures
    context = offline(data, roots, moment, embedded=embedded)
    return await async_validate_pdf_signature(
        signature, signer_validation_context=context, ts_validation_context=context
    )


# PAdES B-LT by default


async def test_b_lt_every_signed_file_validates_offline_with_its_embedded_revocation_information_only(
    api, worker, db, clock
):
    files = await signed_files(api, worker)
    roots = await service_roots(db)
    for name, data in files.items():
        status = await certification_status(data, roots, clock.now() + timedelta(hours=1))
        assert status.bottom_line, (name, status.pretty_print_details())
        assert status.coverage == SignatureCoverageLevel.ENTIRE_FILE, name
        assert status.revocation_details is None, name
        # What made it valid is the file's own DSS: the same check with nothing but the root fails.
        bare = await certification_status(data, roots, clock.now() + timedelta(hours=1), embedded=False)
        assert not bare.bottom_line, name


async def test_b_lt_the_dss_carries_the_chain_and_the_crl_the_service_publishes(api, worker, db):
    data = (await signed_files(api, worker))["document"]
    dss = DocumentSecurityStore.read_dss(PdfFileReader(io.BytesIO(data)))
    chain = await api.app[RESULTS].identity.chain()
    assert {c.dump() for c in dss.load_certs()} >= {asn1(chain.cert_pem).dump(), asn1(chain.chain_pems[0]).dump()}
    [crl_ref] = dss.crls
    published = await api.with_key(None).get(crl_path(chain))
    assert crl_ref.get_object().data == published.body


async def test_b_lt_result_documents_record_the_level_they_reached(api, worker, db):
    found = await completed_submission(api, worker, *COMPLETED)
    results = await stored_results.results_of(db, found["id"])
    levels = {r.kind: r.pades_level for r in results}
    assert levels == {"submitter": "B-LT", "final": "B-LT", "audit_log": "B-LT", "combined": "B-LT"}


@PDFSIG
async def test_b_lt_pdfsig_reports_every_signature_valid_over_the_whole_file(api, worker, tmp_path):
    for name, data in (await signed_files(api, worker)).items():
        path = tmp_path / f"{name}.pdf"
        path.write_bytes(data)
        report = subprocess.run(["pdfsig", "-nocert", str(path)], capture_output=True, text=True).stdout
        assert "Signature is Valid." in report and "Total document signed" in report, report


# The service's CRL


def crl_path(chain) -> str:
    return f"/signing/crl/{signing_identity.root_sha256(chain)}.crl"


async def test_crl_the_leaf_names_its_crl_on_the_site_and_it_is_served_publicly_as_pkix_crl_der(api, worker, config):
    await signed_files(api, worker)
    chain = await api.app[RESULTS].identity.chain()
    leaf = x509.load_pem_x509_certificate(chain.cert_pem.encode())
    [point] = leaf.extensions.get_extension_for_class(x509.CRLDistributionPoints).value
    assert point.full_name[0].value == f"{config.site}{crl_path(chain)}"
    reply = await api.with_key(None).get(crl_path(chain))
    assert reply.status == 200 and reply.headers["Content-Type"] == "application/pkix-crl"
    crl = x509.load_der_x509_crl(reply.body)
    root = x509.load_pem_x509_certificate(chain.chain_pems[0].encode())
    assert crl.is_signature_valid(root.public_key()) and crl.issuer == root.subject and len(crl) == 0
    assert crl.next_update_utc - crl.last_update_utc >= signing_identity.CRL_VALIDITY


async def test_crl_the_ca_key_is_kept_encrypted_with_the_secret_key_and_another_secret_key_cannot_renew_the_crl(
    api, worker, db, clock, pdf_pool, caplog
):
    await signed_files(api, worker)
    [kept] = await stored_results.certificates(db)
    assert kept.ca_key_sealed and "PRIVATE KEY" not in kept.ca_key_sealed
    ca_key_pem = CaKeySeal(api.app[FILES].secret_key).open(kept.ca_key_sealed)
    root = x509.load_pem_x509_certificate(kept.chain_pems[-1].encode())
    ca_key = serialization.load_pem_private_key(ca_key_pem.encode(), password=None)
    assert ca_key.public_key().public_numbers() == root.public_key().public_numbers()
    chain = await api.app[RESULTS].identity.chain()
    before = (await api.with_key(None).get(crl_path(chain))).body
    clock.advance(signing_identity.CRL_RENEW_AFTER)
    restored = signing_identity.SigningIdentity(db, clock, pdf_pool, "another secret key")
    with caplog.at_level(logging.ERROR, logger="signsvc.results.signing_identity"):
        await restored.renew_crls({})
    assert any("can't be opened with this SIGNSVC_SECRET_KEY" in r.getMessage() for r in caplog.records)
    assert (await api.with_key(None).get(crl_path(chain))).body == before


async def test_crl_an_expired_crl_is_renewed_when_it_is_asked_for(api, worker, clock):
    await signed_files(api, worker)
    chain = await api.app[RESULTS].identity.chain()
    clock.advance(signing_identity.CRL_VALIDITY)  # the renewal job did not run
    crl = x509.load_der_x509_crl((await api.with_key(None).get(crl_path(chain))).body)
    assert crl.last_update_utc <= clock.now() < crl.next_update_utc


async def test_crl_an_unknown_crl_is_a_404(api):
    reply = await api.with_key(None).get(f"/signing/crl/{'0' * 64}.crl")
    assert (reply.status, reply.json) == (404, {"error": "No CRL is published under this name"})


async def test_crl_is_renewed_by_its_job_once_a_day_old_and_the_next_files_embed_the_new_one(api, worker, db, clock):
    first = (await signed_files(api, worker))["document"]
    chain = await api.app[RESULTS].identity.chain()
    before = (await api.with_key(None).get(crl_path(chain))).body
    clock.advance(signing_identity.CRL_JOB_EVERY)
    await worker.drain()
    assert (await api.with_key(None).get(crl_path(chain))).body == before, "not a day old yet"
    clock.advance(signing_identity.CRL_RENEW_AFTER)
    await worker.drain()
    after = (await api.with_key(None).get(crl_path(chain))).body
    assert x509.load_der_x509_crl(after).last_update_utc > x509.load_der_x509_crl(before).last_update_utc
    second = (await signed_files(api, worker))["document"]
    [embedded] = DocumentSecurityStore.read_dss(PdfFileReader(io.BytesIO(second))).crls
    assert embedded.get_object().data == after
    status = await certification_status(second, await service_roots(db), clock.now())
    assert status.bottom_line
    assert first != second


async def test_crl_a_chain_generated_before_ca_keys_were_kept_keeps_signing_below_b_lt_and_each_start_says_to_rotate(
    aiohttp_client, make_app, db, clock, caplog
):
    old = certificates.generate(now=clock.now())
    async with db.transaction() as tx:
        await stored_results.insert_certificate(
            tx,
            sha256=certificates.fingerprint(old["cert_pem"]),
            cert_pem=old["cert_pem"],
            chain_pems=old["chain_pems"],
            key_pem=old["key_pem"],
            source="generated",
            now=clock.now(),
        )
    with caplog.at_level(logging.WARNING, logger="signsvc.results.signing_identity"):
        api = Api(await aiohttp_client(make_app()))
    [line] = [r.getMessage() for r in caplog.records if "before the service kept its CA key" in r.getMessage()]
    assert certificates.fingerprint(old["cert_pem"]) in line and "python run.py signing rotate" in line
    data = (await signed_files(api, api.app[WORKER]))["document"]
    [signature] = PdfFileReader(io.BytesIO(data)).embedded_regular_signatures
    assert signature.signer_cert.dump() == asn1(old["cert_pem"]).dump(), "the root anyone trusts stays the same"
    assert await signed_levels(db, api.last_submission_id) == {"B-B"}
    [kept] = await stored_results.certificates(db)
    assert kept.retired_at is None
    await api.app[RESULTS].identity.rotate()
    await signed_files(api, api.app[WORKER])
    assert await signed_levels(db, api.last_submission_id) == {"B-LT"}


# PAdES B-LTA with a timestamp server


async def test_b_lta_validates_offline_and_the_document_timestamp_covers_the_dss(
    aiohttp_client, make_app, db, clock, tsa
):
    stamped = Api(await aiohttp_client(make_app(tsa_url=tsa["url"])))
    files = await signed_files(stamped, stamped.app[WORKER])
    roots = [*await service_roots(db), asn1(tsa["cert_pem"])]
    for name, data in files.items():
        status = await certification_status(data, roots, clock.now() + timedelta(hours=1))
        assert status.bottom_line, (name, status.pretty_print_details())
        assert status.timestamp_validity is not None and status.timestamp_validity.valid
        assert status.modification_level == ModificationLevel.LTA_UPDATES
        reader = PdfFileReader(io.BytesIO(data))
        [archive] = reader.embedded_timestamp_signatures
        context = offline(data, roots, clock.now() + timedelta(hours=1))
        archived = await async_validate_pdf_timestamp(archive, validation_context=context)
        assert archived.valid and archived.intact and archived.trusted, name
        assert archive.coverage == SignatureCoverageLevel.ENTIRE_FILE
        covered = reader.get_historical_resolver(archive.signed_revision).root
        assert "/DSS" in covered and covered["/DSS"]["/CRLs"], "the document timestamp covers the DSS"
    assert await signed_levels(db, stamped.last_submission_id) == {"B-LTA"}


@PDFSIG
async def test_b_lta_pdfsig_still_reports_the_certification_signature_valid(aiohttp_client, make_app, tsa, tmp_path):
    stamped = Api(await aiohttp_client(make_app(tsa_url=tsa["url"])))
    data = (await signed_files(stamped, stamped.app[WORKER]))["document"]
    path = tmp_path / "lta.pdf"
    path.write_bytes(data)
    report = subprocess.run(["pdfsig", "-nocert", str(path)], capture_output=True, text=True).stdout
    first, second = report.split("Signature #2:")
    # poppler 22 validates the certification signature; it does not validate document timestamps yet.
    assert "Signature Field Name: signsvc\n" in first and "Signature is Valid." in first
    assert "Signature Field Name: signsvc-archive-1" in second


async def test_b_lta_the_dss_carries_revocation_information_for_a_tsa_whose_certificate_names_a_crl(
    aiohttp_client, make_app, db, clock, crl_server
):
    ca, ca_key, crl_server.crl = certificate_authority("Example TSA CA")
    authority = timestamps.create("Example TSA", now=clock.now(), issuer=(ca, ca_key), crl_url=crl_server.url)
    with timestamps.serving(authority.stamper(clock.now)) as url:
        stamped = Api(await aiohttp_client(make_app(tsa_url=url, allow_private_downloads=True)))
        files = await signed_files(stamped, stamped.app[WORKER])
    assert crl_server.asked == ["/ca.crl"], "fetched once, kept until its nextUpdate"
    roots = [*await service_roots(db), asn1(ca.public_bytes(serialization.Encoding.PEM))]
    for name, data in files.items():
        reader = PdfFileReader(io.BytesIO(data))
        [archive] = reader.embedded_timestamp_signatures
        covered = reader.get_historical_resolver(archive.signed_revision).root["/DSS"]
        assert crl_server.crl in [ref.get_object().data for ref in covered["/CRLs"]], name
        context = offline(data, roots, clock.now() + timedelta(hours=1))
        archived = await async_validate_pdf_timestamp(archive, validation_context=context)
        assert archived.valid and archived.trusted, name
        status = await certification_status(data, roots, clock.now() + timedelta(hours=1))
        assert status.bottom_line, (name, status.pretty_print_details())


@pytest.fixture
def short_lived_tsa(clock):
    """A timestamp authority whose certificate expires 120 days after the clock's start, stamping the clock's time;
    `replace()` gives it a new certificate, valid for two years from the clock's time."""
    authority = timestamps.create("short-lived TSA", now=clock.now(), valid_for=timedelta(days=120))
    stamper = authority.stamper(clock.now)
    found: dict[str, Any] = {"cert_pems": [authority.cert_pem]}

    def replace() -> None:
        new = timestamps.create("renewed TSA", now=clock.now(), valid_for=timedelta(days=730))
        stamper.tsa_cert, stamper.tsa_key = new.stamper().tsa_cert, new.stamper().tsa_key
        found["cert_pems"].append(new.cert_pem)

    with timestamps.serving(stamper) as url:
        yield {**found, "url": url, "replace": replace}


def due_day(clock) -> None:
    """The clock moved a day past when the short-lived TSA's timestamps are due for renewal."""
    clock.advance(timedelta(days=120) - sealing.RENEW_MARGIN + timedelta(days=1))


async def test_archive_timestamps_are_renewed_before_the_tsa_certificate_expires_and_earlier_versions_stay_issued(
    aiohttp_client, make_app, db, clock, short_lived_tsa
):
    stamped = Api(await aiohttp_client(make_app(tsa_url=short_lived_tsa["url"])))
    worker = stamped.app[WORKER]
    found = await completed_submission(stamped, worker, *COMPLETED)
    original = await fetch(stamped, found["documents"][0]["url"])
    expires = clock.now() + timedelta(days=120)
    clock.advance(timedelta(days=120) - sealing.RENEW_MARGIN - timedelta(days=2))
    await worker.drain()
    assert await document(stamped, found["id"]) == original, "not due yet"
    short_lived_tsa["replace"]()
    clock.advance(timedelta(days=3))  # past expiry - margin, on the service clock
    await worker.drain()
    renewed = await document(stamped, found["id"])
    assert renewed.startswith(original), "an incremental update: the earlier bytes stay as they were"
    reader = PdfFileReader(io.BytesIO(renewed))
    assert [s.field_name for s in reader.embedded_timestamp_signatures] == ["signsvc-archive-1", "signsvc-archive-2"]
    roots = [*await service_roots(db), *map(asn1, short_lived_tsa["cert_pems"])]
    for stamp in reader.embedded_timestamp_signatures:
        context = offline(renewed, roots, expires - timedelta(days=1))
        checked = await async_validate_pdf_timestamp(stamp, validation_context=context)
        assert checked.valid and checked.intact and checked.trusted
    for data in (original, renewed):
        assert await stored_results.issued(db, sha256_of(data))
    results = {r.kind: r for r in await stored_results.results_of(db, found["id"])}
    assert results["final"].sha256 == sha256_of(renewed)


async def test_archive_timestamps_a_renewal_that_expires_no_later_than_the_last_is_discarded_and_tried_a_day_later(
    aiohttp_client, make_app, db, clock, short_lived_tsa, caplog
):
    stamped = Api(await aiohttp_client(make_app(tsa_url=short_lived_tsa["url"])))
    worker = stamped.app[WORKER]
    found = await completed_submission(stamped, worker, *COMPLETED)
    original = await fetch(stamped, found["documents"][0]["url"])
    due_day(clock)
    with caplog.at_level(logging.WARNING, logger="signsvc.results.archive_timestamps"):
        await worker.drain()
    assert await document(stamped, found["id"]) == original, "the same expiring certificate proves nothing more"
    assert any("still signs with a certificate that expires" in r.getMessage() for r in caplog.records)
    [due] = {r.timestamp_renew_at for r in await stored_results.results_of(db, found["id"]) if r.timestamp_renew_at}
    assert due == clock.now() + sealing.RENEW_RETRY
    short_lived_tsa["replace"]()
    clock.advance(sealing.RENEW_RETRY)
    await worker.drain()
    renewed = PdfFileReader(io.BytesIO(await document(stamped, found["id"])))
    assert len(renewed.embedded_timestamp_signatures) == 2, "renewed once the authority has a newer certificate"


async def test_archive_timestamps_a_file_that_fails_is_tried_a_day_later_and_does_not_stop_the_others(
    aiohttp_client, make_app, db, clock, short_lived_tsa, caplog
):
    stamped = Api(await aiohttp_client(make_app(tsa_url=short_lived_tsa["url"])))
    worker = stamped.app[WORKER]
    broken = await completed_submission(stamped, worker, *COMPLETED)
    fine = await completed_submission(stamped, worker, *COMPLETED)
    for result in await stored_results.results_of(db, broken["id"]):
        await stamped.app[FILES].contents.delete(result.sha256)
    short_lived_tsa["replace"]()
    due_day(clock)
    with caplog.at_level(logging.ERROR, logger="signsvc.results.archive_timestamps"):
        await worker.drain()
    assert any("archive timestamp not renewed" in r.getMessage() for r in caplog.records)
    renewed = PdfFileReader(io.BytesIO(await document(stamped, fine["id"])))
    assert len(renewed.embedded_timestamp_signatures) == 2, "the other files are renewed all the same"
    dues = {r.timestamp_renew_at for r in await stored_results.results_of(db, broken["id"]) if r.timestamp_renew_at}
    assert dues == {clock.now() + sealing.RENEW_RETRY}


async def document(api: Api, submission_id: int) -> bytes:
    """The submission's first signed document, through a link made now (links expire)."""
    return await fetch(api, (await submission(api, submission_id))["documents"][0]["url"])


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# A configured PKCS#12 chain: revocation information from its own CRL distribution points


def certificate_authority(common_name: str) -> tuple[x509.Certificate, rsa.RSAPrivateKey, bytes]:
    """A root CA, its key and its CRL (DER, revoking nothing), around the tests' NOW."""
    from tests.support.seals import NOW

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    ca = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(NOW - timedelta(days=30))
        .not_valid_after(NOW + timedelta(days=3650))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
        .sign(key, hashes.SHA256())
    )
    crl = (
        x509.CertificateRevocationListBuilder()
        .issuer_name(name)
        .last_update(NOW - timedelta(days=1))
        .next_update(NOW + timedelta(days=30))
        .sign(key, hashes.SHA256())
        .public_bytes(serialization.Encoding.DER)
    )
    return ca, key, crl


def issuing_ca(*crl_urls: str) -> tuple[dict[str, Any], bytes, x509.Certificate]:
    """A CA, a leaf it issued naming `crl_urls`, as a PKCS#12 file (password "pw"; with the CA's key and the leaf),
    the CA's CRL (DER), its root."""
    from tests.support.seals import NOW

    ca, ca_key, crl = certificate_authority("Example Issuing CA")
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    point = x509.DistributionPoint([x509.UniformResourceIdentifier(url) for url in crl_urls], None, None, None)
    leaf = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Example Signer")]))
        .issuer_name(ca.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(NOW - timedelta(days=30))
        .not_valid_after(NOW + timedelta(days=700))
        .add_extension(x509.KeyUsage(True, True, False, False, False, False, False, False, False), critical=True)
        .add_extension(x509.CRLDistributionPoints([point]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    p12 = pkcs12.serialize_key_and_certificates(
        b"signer", key, leaf, [ca], serialization.BestAvailableEncryption(b"pw")
    )
    return {"p12": p12, "ca_key": ca_key, "leaf": leaf}, crl, ca


def crl_of(ca: x509.Certificate, key: rsa.RSAPrivateKey, *, days: tuple[int, int] = (-1, 30), revoking=None) -> bytes:
    """A CRL (DER) with the CA's name signed by `key`, current from NOW + days[0] to NOW + days[1], listing the
    `revoking` certificate if given."""
    from tests.support.seals import NOW

    builder = (
        x509.CertificateRevocationListBuilder()
        .issuer_name(ca.subject)
        .last_update(NOW + timedelta(days=days[0]))
        .next_update(NOW + timedelta(days=days[1]))
    )
    if revoking is not None:
        entry = x509.RevokedCertificateBuilder().serial_number(revoking.serial_number).revocation_date(NOW)
        builder = builder.add_revoked_certificate(entry.build())
    return builder.sign(key, hashes.SHA256()).public_bytes(serialization.Encoding.DER)


class CrlServer:
    """A local plain http server (as most CRLs are published) answering `crl` at /ca.crl, and any other /*.crl (a
    500 while it is None); it lists the paths asked for."""

    def __init__(self) -> None:
        self.crl: bytes | None = None
        self.asked: list[str] = []

    async def answer(self, request: web.Request) -> web.Response:
        self.asked.append(request.path)
        if self.crl is None:
            return web.Response(status=500)
        return web.Response(body=self.crl, content_type="application/pkix-crl")


@pytest.fixture
async def crl_server(aiohttp_server):
    server = CrlServer()
    app = web.Application()
    app.router.add_get("/{name}.crl", server.answer)
    served = await aiohttp_server(app, host="127.0.0.1")
    server.url = f"http://127.0.0.1:{served.port}/ca.crl"
    return server


async def p12_service(aiohttp_client, make_app, tmp_path, made: dict[str, Any], *, private: bool = True) -> Api:
    """The service signing with the PKCS#12 file, fetching CRLs as in production (the test servers are local)."""
    path = tmp_path / "signer.p12"
    path.write_bytes(made["p12"])
    app = make_app(signing_p12=str(path), signing_p12_password="pw", allow_private_downloads=private)
    return Api(await aiohttp_client(app))


async def test_p12_revocation_is_fetched_over_plain_http_from_the_certificates_crl_distribution_point_once_and_embedded(
    aiohttp_client, make_app, db, clock, tmp_path, crl_server
):
    made, crl_server.crl, ca = issuing_ca(crl_server.url)
    api = await p12_service(aiohttp_client, make_app, tmp_path, made)
    files = await signed_files(api, api.app[WORKER])
    assert crl_server.asked == ["/ca.crl"], "fetched once, kept until its nextUpdate"
    root = asn1(ca.public_bytes(serialization.Encoding.PEM))
    for name, data in files.items():
        status = await certification_status(data, [root], clock.now())
        assert status.bottom_line, (name, status.pretty_print_details())
    assert await signed_levels(db, api.last_submission_id) == {"B-LT"}


async def test_p12_without_revocation_information_documents_are_still_signed_at_a_lower_level_and_it_is_logged(
    aiohttp_client, make_app, db, clock, tmp_path, crl_server, caplog
):
    made, _, ca = issuing_ca(crl_server.url)  # the server answers 500
    api = await p12_service(aiohttp_client, make_app, tmp_path, made)
    with caplog.at_level(logging.WARNING):
        files = await signed_files(api, api.app[WORKER])
    assert crl_server.asked == ["/ca.crl"], "after a failure the server is left alone for a while"
    warnings = [r.getMessage() for r in caplog.records if "no revocation information" in r.getMessage()]
    assert len(warnings) == 1 and "HTTP status 500" in warnings[0], warnings
    root = asn1(ca.public_bytes(serialization.Encoding.PEM))
    for data in files.values():
        assert not (await certification_status(data, [root], clock.now())).bottom_line, "no CRL: not B-LT"
        [signature] = PdfFileReader(io.BytesIO(data)).embedded_regular_signatures
        assert signature.field_name == "signsvc", "signed all the same"
    assert await signed_levels(db, api.last_submission_id) == {"B-B"}


@pytest.mark.parametrize(
    ("case", "warning"),
    [
        ("signed by another key", "not signed by the certificate's issuer"),
        ("expired", "not current"),
        ("not yet current", "not current"),
        ("revoking the leaf", "is revoked: its issuer's CRL lists it"),
    ],
)
async def test_p12_a_crl_not_signed_by_the_issuer_not_current_or_revoking_the_leaf_is_not_embedded_and_is_logged(
    aiohttp_client, make_app, db, clock, tmp_path, crl_server, caplog, case, warning
):
    made, _, ca = issuing_ca(crl_server.url)
    crl_server.crl = {
        "signed by another key": lambda: crl_of(ca, rsa.generate_private_key(public_exponent=65537, key_size=2048)),
        "expired": lambda: crl_of(ca, made["ca_key"], days=(-30, -1)),
        "not yet current": lambda: crl_of(ca, made["ca_key"], days=(1, 30)),
        "revoking the leaf": lambda: crl_of(ca, made["ca_key"], revoking=made["leaf"]),
    }[case]()
    api = await p12_service(aiohttp_client, make_app, tmp_path, made)
    with caplog.at_level(logging.WARNING):
        files = await signed_files(api, api.app[WORKER])
    assert any(warning in r.getMessage() for r in caplog.records), [r.getMessage() for r in caplog.records]
    for data in files.values():
        with pytest.raises(NoDSSFoundError):
            DocumentSecurityStore.read_dss(PdfFileReader(io.BytesIO(data)))
    assert await signed_levels(db, api.last_submission_id) == {"B-B"}


async def test_p12_revocation_asks_at_most_two_distribution_points_of_a_certificate(
    aiohttp_client, make_app, db, tmp_path, crl_server
):
    base = crl_server.url.removesuffix("/ca.crl")
    made, _, _ = issuing_ca(f"{base}/a.crl", f"{base}/b.crl", f"{base}/c.crl")  # each answers 500
    api = await p12_service(aiohttp_client, make_app, tmp_path, made)
    await signed_files(api, api.app[WORKER])
    assert crl_server.asked == ["/a.crl", "/b.crl"]


async def test_p12_a_kept_crl_is_fetched_again_after_a_day_even_when_its_next_update_is_later(
    aiohttp_client, make_app, db, clock, tmp_path, crl_server
):
    made, crl_server.crl, _ = issuing_ca(crl_server.url)  # current for 30 days
    api = await p12_service(aiohttp_client, make_app, tmp_path, made)
    await signed_files(api, api.app[WORKER])
    clock.advance(revocation.KEEP_AT_MOST)
    await signed_files(api, api.app[WORKER])
    assert crl_server.asked == ["/ca.crl", "/ca.crl"]


@pytest.mark.parametrize(
    ("private", "answer", "warning"),
    [
        (False, "crl", downloads.PRIVATE),
        (True, "too large", "larger than the limit of 10 MB"),
    ],
)
async def test_p12_revocation_downloads_refuse_private_addresses_unless_allowed_and_keep_the_size_cap(
    aiohttp_client, make_app, db, tmp_path, crl_server, caplog, private, answer, warning
):
    made, crl, _ = issuing_ca(crl_server.url)
    crl_server.crl = crl if answer == "crl" else b"0" * (revocation.MAX_CRL_BYTES + 1)
    api = await p12_service(aiohttp_client, make_app, tmp_path, made, private=private)
    with caplog.at_level(logging.WARNING, logger="signsvc.results.revocation"):
        await signed_files(api, api.app[WORKER])
    assert any(warning in r.getMessage() for r in caplog.records), [r.getMessage() for r in caplog.records]
    assert crl_server.asked == ([] if not private else ["/ca.crl"])
    assert await signed_levels(db, api.last_submission_id) == {"B-B"}


# Consent certificates: sealed like the result documents


async def consent_certificate(api: Api, worker, db):
    """A new consent's certificate (the job made it), and its stored consent."""
    terms = await clickwrap(api)
    await agree(api, terms["slug"])
    await worker.drain()
    [consent] = await consents(api, terms["id"])
    return await fetch(api, consent["certificate_url"]), await stored_clickwraps.get_consent(db, consent["id"])


async def test_consent_certificate_validates_offline_at_b_lt_and_records_its_level(api, worker, db, clock):
    data, consent = await consent_certificate(api, worker, db)
    status = await certification_status(data, await service_roots(db), clock.now() + timedelta(hours=1))
    assert status.bottom_line, status.pretty_print_details()
    assert (await certification_status(data, await service_roots(db), clock.now(), embedded=False)).bottom_line is False
    assert (consent.certificate_pades_level, consent.certificate_timestamp_renew_at) == ("B-LT", None)


async def test_consent_certificate_at_b_lta_has_its_archive_timestamp_renewed(
    aiohttp_client, make_app, db, clock, short_lived_tsa
):
    stamped = Api(await aiohttp_client(make_app(tsa_url=short_lived_tsa["url"])))
    worker = stamped.app[WORKER]
    original, consent = await consent_certificate(stamped, worker, db)
    assert consent.certificate_pades_level == "B-LTA"
    assert consent.certificate_timestamp_renew_at == clock.now() + timedelta(days=120) - sealing.RENEW_MARGIN
    short_lived_tsa["replace"]()
    due_day(clock)
    await worker.drain()
    [listed] = await consents(stamped, (await stored_clickwraps.required_clickwrap(db, consent.clickwrap_id)).id)
    renewed = await fetch(stamped, listed["certificate_url"])
    assert renewed.startswith(original) and len(renewed) > len(original)
    stamps = PdfFileReader(io.BytesIO(renewed)).embedded_timestamp_signatures
    assert [s.field_name for s in stamps] == ["signsvc-archive-1", "signsvc-archive-2"]
    later = await stored_clickwraps.get_consent(db, consent.id)
    assert later.certificate_timestamp_renew_at > clock.now() + timedelta(days=365)


async def test_b_lta_a_self_signed_pkcs12_certificate_needs_no_crl_and_reaches_b_lta(
    aiohttp_client, make_app, db, tmp_path, tsa
):
    from tests.support.seals import NOW

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Self Signer")])
    leaf = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(NOW - timedelta(days=30))
        .not_valid_after(NOW + timedelta(days=700))
        .add_extension(x509.KeyUsage(True, True, False, False, False, False, False, False, False), critical=True)
        .sign(key, hashes.SHA256())
    )
    path = tmp_path / "self.p12"
    path.write_bytes(pkcs12.serialize_key_and_certificates(b"self", key, leaf, None, serialization.NoEncryption()))
    api = Api(await aiohttp_client(make_app(tsa_url=tsa["url"], signing_p12=str(path))))
    await signed_files(api, api.app[WORKER])
    assert await signed_levels(db, api.last_submission_id) == {"B-LTA"}


# The verify tool on the service's own files


async def verified(api: Api, data: bytes) -> list[dict[str, Any]]:
    response = await api.post("/api/tools/verify", json={"file": base64.b64encode(data).decode()})
    assert response.status == 200, response.json
    signatures: list[dict[str, Any]] = response.json["signatures"]
    return signatures


async def test_verify_levels_the_services_own_b_lt_files_are_reported_b_lt_and_issued_by_the_service(api, worker):
    for name, data in (await signed_files(api, worker)).items():
        [seal] = await verified(api, data)
        facts = (seal["pades_level"], seal["missing_for_long_term"], seal["issued_by_service"])
        assert facts == ("B-LT", ["signature_timestamp", "document_timestamp"], True), name
        assert seal["chain_validates_offline"] is True, name


async def test_trusted_timestamp_the_services_own_tsa_dates_its_b_lta_files_with_nothing_missing(
    aiohttp_client, make_app, tsa
):
    stamped = Api(await aiohttp_client(make_app(tsa_url=tsa["url"])))
    for name, data in (await signed_files(stamped, stamped.app[WORKER])).items():
        seal, archive = await verified(stamped, data)
        facts = (seal["pades_level"], seal["missing_for_long_term"], seal["issued_by_service"])
        assert facts == ("B-LTA", [], True), name
        assert (seal["signing_time_source"], seal["chain_validates_offline"]) == ("timestamp", True), name
        assert (archive["type"], archive["chain_validates_offline"]) == ("timestamp", True), name
