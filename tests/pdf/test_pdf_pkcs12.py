"""Bring your own certificate: PKCS#12 files, legacy and modern, load; each broken one is refused with the
one sentence that names its problem; the chain inside is kept in order and travels in every signature."""

from __future__ import annotations

import io
import time
from datetime import timedelta

import pytest
from asn1crypto import cms
from asn1crypto import core as asn1_core
from asn1crypto import pkcs12 as asn1_pkcs12
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from pyhanko.pdf_utils.reader import PdfFileReader

from signsvc.pdf import certificates, p12_diagnosis, seal
from signsvc.pdf.errors import PdfError
from tests.support import pkcs12_files as files
from tests.support.documents import pdf
from tests.support.seals import NOW, SIGNED_AT


def pem(issued: files.Issued) -> str:
    return issued.certificate.public_bytes(serialization.Encoding.PEM).decode()


@pytest.fixture(scope="module")
def chain() -> list[files.Issued]:
    return files.acme_chain()


def loads(data: bytes, password: str | None = files.PASSWORD) -> dict:
    return certificates.load_p12(data, password, now=NOW)


def refused(data: bytes, password: str | None = files.PASSWORD) -> str:
    with pytest.raises(PdfError) as refusal:
        loads(data, password)
    return str(refusal.value)


def test_a_modern_aes_pkcs12_loads_with_its_chain_issuer_first(chain):
    loaded = loads(files.modern(chain))
    assert loaded["cert_pem"] == pem(chain[0])
    assert loaded["chain_pems"] == [pem(chain[1]), pem(chain[2])]


def test_a_legacy_3des_pkcs12_as_older_windows_exports_it_loads(chain):
    assert loads(files.triple_des(chain))["chain_pems"] == [pem(chain[1]), pem(chain[2])]


@files.OPENSSL
def test_a_legacy_rc2_pkcs12_as_openssl_1_exports_it_loads(chain, tmp_path):
    data = files.rc2(chain, tmp_path)
    assert p12_diagnosis.ciphers_of(data) == ["RC2-40", "3DES"]
    assert loads(data)["cert_pem"] == pem(chain[0])


def test_the_chain_is_ordered_from_the_issuer_up_whatever_the_order_in_the_file(chain):
    leaf, intermediate, root = chain
    data = files.modern([leaf, root, intermediate])
    assert loads(data)["chain_pems"] == [pem(intermediate), pem(root)]


@pytest.mark.parametrize("password", ["wrong", None])
def test_a_wrong_password_is_named_as_the_problem(chain, password):
    expected = p12_diagnosis.UNREADABLE if password else p12_diagnosis.NO_PASSWORD
    assert refused(files.modern(chain), password) == expected
    assert refused(files.triple_des(chain), password) == expected


def test_a_broken_mac_is_named_as_damage_not_as_a_wrong_password(chain):
    assert refused(files.broken_mac(files.modern(chain))) == p12_diagnosis.BROKEN_MAC
    assert refused(files.broken_mac(files.triple_des(chain))) == p12_diagnosis.BROKEN_MAC
    assert refused(files.broken_mac(files.modern(chain)), "wrong") == p12_diagnosis.UNREADABLE


def damaged_contents(data: bytes) -> bytes:
    """The file with a byte of its encrypted contents changed: its MAC no longer matches either."""
    pfx = asn1_pkcs12.Pfx.load(data)
    content = bytearray(pfx["auth_safe"]["content"].native)
    content[len(content) // 4] ^= 0xFF  # inside the encrypted certificates
    pfx["auth_safe"]["content"] = asn1_core.OctetString(bytes(content))
    return pfx.dump(force=True)


def test_damaged_contents_with_the_right_password_are_not_called_a_wrong_password(chain):
    assert refused(damaged_contents(files.modern(chain))) == p12_diagnosis.UNREADABLE


def test_a_mac_of_more_than_a_million_iterations_is_not_computed(chain):
    pfx = asn1_pkcs12.Pfx.load(files.broken_mac(files.modern(chain)))
    pfx["mac_data"]["iterations"] = p12_diagnosis.MAX_MAC_ITERATIONS + 1
    started = time.perf_counter()
    assert refused(pfx.dump(force=True)) == p12_diagnosis.UNREADABLE
    assert time.perf_counter() - started < 2


def test_a_file_that_is_not_pkcs12_is_named_as_such():
    assert refused(pdf()) == p12_diagnosis.NOT_PKCS12
    assert refused(b"") == p12_diagnosis.NOT_PKCS12


def test_a_file_without_a_private_key_is_named_as_such(chain):
    assert refused(files.certificates_only(chain)) == (
        "The PKCS#12 file holds no private key (export it with its private key)"
    )


def test_a_certificate_whose_key_usage_excludes_signing_is_refused():
    chain = files.acme_chain(files.ENCIPHER_ONLY_USAGE)
    assert refused(files.modern(chain)) == (
        "The PKCS#12 certificate's key usage does not allow signing documents "
        "(it needs digitalSignature or nonRepudiation)"
    )


def test_a_certificate_whose_extended_key_usage_excludes_document_signing_is_refused():
    chain = files.acme_chain(files.SIGNING_USAGE, files.TLS_SERVER_ONLY)
    assert refused(files.modern(chain)) == (
        "The PKCS#12 certificate's extended key usage (serverAuth) does not allow signing documents "
        "(it needs emailProtection, documentSigning or anyExtendedKeyUsage)"
    )


def test_a_certificate_with_the_document_signing_extended_key_usage_loads():
    usage = x509.ExtendedKeyUsage([x509.ObjectIdentifier("1.3.6.1.5.5.7.3.36")])
    assert loads(files.modern(files.acme_chain(files.SIGNING_USAGE, usage)))


def test_an_expired_certificate_is_refused_with_its_end_date():
    chain = files.acme_chain(valid=(NOW - timedelta(days=400), NOW - timedelta(days=1)))
    assert (
        refused(files.modern(chain)) == "The PKCS#12 certificate has expired: its validity ended 2025-12-31 12:00 UTC"
    )


def test_a_certificate_not_valid_yet_is_refused_with_its_start_date():
    chain = files.acme_chain(valid=(NOW + timedelta(days=2), NOW + timedelta(days=400)))
    assert refused(files.modern(chain)) == (
        "The PKCS#12 certificate is not valid yet: its validity starts 2026-01-03 12:00 UTC"
    )


def test_a_seal_with_a_pkcs12_chain_carries_the_intermediate_in_its_signature(chain):
    signed = seal.sign(pdf(), loads(files.triple_des(chain)), reason="r", name=None, signing_time=SIGNED_AT)
    [signature] = PdfFileReader(io.BytesIO(signed)).embedded_signatures
    carried = {c.chosen.dump() for c in signature.signed_data["certificates"]}
    for issued in chain:
        assert issued.certificate.public_bytes(serialization.Encoding.DER) in carried
    assert isinstance(signature.signed_data, cms.SignedData)
