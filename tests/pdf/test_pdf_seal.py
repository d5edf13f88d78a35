"""The digital signature on result documents, and the verify tool's reading of signatures.

Every sealed PDF is checked by validators other than our own verify: pyHanko's with the service
certificate as trust root, and poppler's pdfsig.
"""

from __future__ import annotations

import http.server
import io
import logging
import re
import shutil
import subprocess
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from asn1crypto import x509 as asn1_x509
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.serialization import pkcs12
from pyhanko.pdf_utils import generic
from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign import fields, signers
from pyhanko.sign.validation import validate_pdf_signature
from pyhanko.sign.validation.status import SignatureCoverageLevel
from pyhanko_certvalidator import ValidationContext

from signsvc.infra import pdf_calls
from signsvc.pdf import certificates, reading, seal, verify
from signsvc.pdf.errors import PdfError
from tests.support.documents import pdf
from tests.support.samples import encrypted
from tests.support.seals import NOW, SIGNED_AT, pem_of, self_signed, signed_positions
from tests.support.system import PDFSIG

REASON = "Signed with signsvc"
ORIGINAL = pdf(2)


@pytest.fixture(scope="module")
def chain() -> dict[str, Any]:
    return certificates.generate("signsvc test", "Example Org", now=datetime.now(UTC))


@pytest.fixture(scope="module")
def ours(chain: dict[str, Any]) -> list[str]:
    return [chain["cert_pem"], *chain["chain_pems"]]


@pytest.fixture(scope="module")
def sealed(chain: dict[str, Any]) -> bytes:
    return seal.sign(ORIGINAL, chain, reason=REASON, name=None, signing_time=SIGNED_AT)


def cert(pem: str) -> x509.Certificate:
    return x509.load_pem_x509_certificate(pem.encode())


def pyhanko_status(data: bytes, root_pem: str) -> Any:
    (signature,) = PdfFileReader(io.BytesIO(data), strict=False).embedded_signatures
    assert signature.docmdp_level == fields.MDPPerm.NO_CHANGES
    root = asn1_x509.Certificate.load(certificates.der(root_pem))
    return validate_pdf_signature(signature, ValidationContext(trust_roots=[root], allow_fetching=False))


def pdfsig(data: bytes, tmp_path: Any) -> str:
    assert shutil.which("pdfsig"), "poppler's pdfsig must be installed (Debian: poppler-utils)"
    path = tmp_path / "sealed.pdf"
    path.write_bytes(data)
    return subprocess.run(["pdfsig", str(path)], capture_output=True, text=True, timeout=60).stdout


def appended(data: bytes, change: str = "/Lang") -> bytes:
    """The file with one incremental update after it, as an editor saving it would add."""
    writer = IncrementalPdfFileWriter(io.BytesIO(data), strict=False)
    writer.root[change] = generic.TextStringObject("en")
    writer.update_root()
    output = io.BytesIO()
    writer.write(output)
    return output.getvalue()


# The chain


def test_the_generated_chain_is_a_root_ca_and_a_leaf_for_signing_documents(chain):
    leaf, (root,) = cert(chain["cert_pem"]), [cert(pem) for pem in chain["chain_pems"]]
    assert leaf.issuer == root.subject and leaf.subject.rfc4514_string() == "CN=signsvc test,O=Example Org"
    assert root.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    usage = leaf.extensions.get_extension_for_class(x509.KeyUsage).value
    assert usage.digital_signature and usage.content_commitment and not usage.key_cert_sign
    assert leaf.not_valid_after_utc - leaf.not_valid_before_utc > timedelta(days=99 * 365)
    assert isinstance(leaf.public_key(), rsa.RSAPublicKey) and leaf.public_key().key_size == 2048
    assert serialization.load_pem_private_key(chain["key_pem"].encode(), None).public_key() == leaf.public_key()


def test_the_chain_is_valid_from_the_time_given(chain):
    later = certificates.generate(now=NOW)
    assert cert(later["cert_pem"]).not_valid_before_utc <= NOW < cert(later["cert_pem"]).not_valid_after_utc
    assert cert(later["cert_pem"]).subject.rfc4514_string() == "CN=signsvc,O=signsvc"


def test_the_fingerprint_is_the_sha256_of_the_certificate(chain):
    assert certificates.fingerprint(chain["cert_pem"]) == cert(chain["cert_pem"]).fingerprint(hashes.SHA256()).hex()
    with pytest.raises(PdfError, match="not a PEM certificate"):
        certificates.fingerprint("hello")


def test_a_pkcs12_file_gives_back_its_chain(chain):
    key = serialization.load_pem_private_key(chain["key_pem"].encode(), None)
    roots = [cert(pem) for pem in chain["chain_pems"]]
    for password, encryption in [
        ("s3cret", serialization.BestAvailableEncryption(b"s3cret")),
        (None, serialization.NoEncryption()),
    ]:
        data = pkcs12.serialize_key_and_certificates(b"signsvc", key, cert(chain["cert_pem"]), roots, encryption)
        assert certificates.load_p12(data, password, now=datetime.now(UTC)) == {
            name: chain[name] for name in ("key_pem", "cert_pem", "chain_pems")
        }


@pytest.mark.parametrize("password", ["wrong", None])
def test_a_pkcs12_file_with_the_wrong_password_is_refused_clearly(chain, password):
    key = serialization.load_pem_private_key(chain["key_pem"].encode(), None)
    data = pkcs12.serialize_key_and_certificates(
        b"signsvc", key, cert(chain["cert_pem"]), None, serialization.BestAvailableEncryption(b"s3cret")
    )
    with pytest.raises(PdfError, match=r"^The PKCS#12 file can't be read: the password is wrong"):
        certificates.load_p12(data, password, now=NOW)


def test_a_file_that_is_not_pkcs12_is_refused_clearly():
    with pytest.raises(PdfError, match="it is not a PKCS#12 file"):
        certificates.load_p12(pdf(), None, now=NOW)


def test_a_pkcs12_file_without_a_key_is_refused_clearly(chain):
    data = pkcs12.serialize_key_and_certificates(
        None, None, None, [cert(chain["cert_pem"])], serialization.NoEncryption()
    )
    with pytest.raises(PdfError, match=r"^The PKCS#12 file holds no private key"):
        certificates.load_p12(data, None, now=NOW)


def test_a_pkcs12_certificate_that_may_not_sign_documents_is_refused():
    key = ec.generate_private_key(ec.SECP256R1())
    only_encipher = x509.KeyUsage(
        digital_signature=False,
        content_commitment=False,
        key_encipherment=True,
        data_encipherment=False,
        key_agreement=False,
        key_cert_sign=False,
        crl_sign=False,
        encipher_only=False,
        decipher_only=False,
    )
    data = pkcs12.serialize_key_and_certificates(
        b"x", key, self_signed(key, "x", (only_encipher, True)), None, serialization.NoEncryption()
    )
    with pytest.raises(PdfError, match="key usage does not allow signing documents"):
        certificates.load_p12(data, None, now=NOW)


# Sealing, judged by other validators


def test_a_sealed_pdf_validates_under_pyhanko_with_the_service_root(chain, sealed):
    status = pyhanko_status(sealed, chain["chain_pems"][-1])
    assert (status.intact, status.valid, status.trusted) == (True, True, True)
    assert status.coverage == SignatureCoverageLevel.ENTIRE_FILE
    assert status.signer_reported_dt == SIGNED_AT


@PDFSIG
def test_a_sealed_pdf_validates_under_pdfsig(sealed, tmp_path):
    report = pdfsig(sealed, tmp_path)
    assert "Signature Validation: Signature is Valid." in report
    assert "Total document signed" in report
    assert "Signature Type: ETSI.CAdES.detached" in report


def test_sealing_appends_to_the_original_bytes(sealed):
    assert sealed.startswith(ORIGINAL)


def test_a_hundred_page_document_is_sealed(chain, ours):
    (report,) = verify.verify(
        seal.sign(pdf(100), chain, reason=REASON, name=None, signing_time=SIGNED_AT), ours, datetime.now(UTC)
    )
    assert report["issued_by_service"]


def test_the_signing_key_is_parsed_once_per_process(chain):
    assert seal.signer_for(chain) is seal.signer_for(dict(chain))


def test_a_naive_signing_time_is_utc(chain, ours):
    data = seal.sign(pdf(), chain, reason=REASON, name="Zoë Łukasz", signing_time=SIGNED_AT.replace(tzinfo=None))
    (report,) = verify.verify(data, ours, datetime.now(UTC))
    assert report["signing_time"] == "2026-01-02T09:30:15.000Z"
    assert report["signer_name"] == "Zoë Łukasz"


def test_a_certified_pdf_cannot_be_sealed_again(chain, sealed):
    with pytest.raises(PdfError, match=r"^The PDF can't be signed: "):
        seal.sign(sealed, chain, reason=REASON, name=None, signing_time=SIGNED_AT)


def test_a_chain_whose_key_is_unusable_is_refused(chain):
    other = certificates.generate(now=NOW)
    for pems, message in [
        ({**chain, "key_pem": "nope"}, "^The signing key is not an unencrypted PEM private key$"),
        ({**chain, "key_pem": other["key_pem"]}, "^The signing key does not belong to the signing certificate$"),
    ]:
        with pytest.raises(PdfError, match=message):
            seal.sign(pdf(), pems, reason=REASON, name=None, signing_time=SIGNED_AT)


@pytest.mark.parametrize(
    "data, message",
    [
        (b"not a pdf", reading.NOT_PDF),
        (b"%PDF-1.7\ngarbage", reading.DAMAGED),
        (encrypted(pdf(), user="user"), reading.ENCRYPTED),
    ],
)
def test_an_unusable_pdf_is_not_sealed(chain, data, message):
    with pytest.raises(PdfError, match=f"^{re.escape(message)}$"):
        seal.sign(data, chain, reason=REASON, name=None, signing_time=SIGNED_AT)


# Verify


def test_verify_reports_the_service_seal(chain, ours, sealed):
    assert verify.verify(sealed, ours, datetime.now(UTC)) == [
        {
            "field": "signsvc",
            "signer_name": "signsvc test",
            "reason": REASON,
            "signing_time": "2026-01-02T09:30:15.000Z",
            "signing_time_source": "claimed",
            "timestamp": None,
            "type": "certification",
            "intact": True,
            "valid": True,
            "trusted": True,
            "coverage": "entire_file",
            "certificate_sha256": certificates.fingerprint(chain["cert_pem"]),
            "issued_by_service": True,
            "pades_level": "B-B",
            "chain_validates_offline": True,  # its certificate names no CRL or OCSP responder
            "missing_for_long_term": ["signature_timestamp", "revocation_information", "document_timestamp"],
        }
    ]


def test_flipping_any_signed_byte_makes_the_seal_not_intact_and_not_issued(ours, sealed):
    for position in signed_positions(sealed):
        tampered = bytearray(sealed)
        tampered[position] ^= 0x01
        reports = verify.verify(bytes(tampered), ours, datetime.now(UTC))
        assert reports, position
        assert not any(report["intact"] or report["issued_by_service"] for report in reports), position


def test_a_seal_by_a_foreign_self_signed_certificate_is_not_trusted_and_not_issued(ours, caplog):
    key = ec.generate_private_key(ec.SECP256R1())
    usage = x509.KeyUsage(
        digital_signature=True,
        content_commitment=True,
        key_encipherment=False,
        data_encipherment=False,
        key_agreement=False,
        key_cert_sign=False,
        crl_sign=False,
        encipher_only=False,
        decipher_only=False,
    )
    foreign = pem_of(key, self_signed(key, "signsvc", (usage, True)))  # the same name does not help it
    data = seal.sign(pdf(), foreign, reason=REASON, name=None, signing_time=SIGNED_AT)
    with caplog.at_level(logging.DEBUG):
        (report,) = verify.verify(data, ours, datetime.now(UTC))
    assert (report["intact"], report["valid"], report["trusted"], report["issued_by_service"]) == (
        True,
        True,
        False,
        False,
    )
    assert report["certificate_sha256"] == certificates.fingerprint(foreign["cert_pem"])
    assert not [record for record in caplog.records if record.levelno >= logging.WARNING]


def test_a_signature_without_docmdp_is_an_approval(chain, ours):
    writer = IncrementalPdfFileWriter(io.BytesIO(pdf()), strict=False)
    data = signers.sign_pdf(
        writer, signers.PdfSignatureMetadata(field_name="Approval", reason="Seen"), signer=seal.signer_for(chain)
    ).getvalue()
    (report,) = verify.verify(data, ours, datetime.now(UTC))
    assert (report["field"], report["type"], report["reason"], report["issued_by_service"]) == (
        "Approval",
        "approval",
        "Seen",
        True,
    )


def test_a_later_incremental_update_leaves_the_seal_intact_but_no_longer_issued(ours, sealed):
    (report,) = verify.verify(appended(sealed), ours, datetime.now(UTC))
    assert (report["intact"], report["valid"], report["trusted"]) == (True, True, True)
    assert report["coverage"] == "entire_revision"
    assert not report["issued_by_service"]


def test_garbage_is_not_a_pdf(ours):
    with pytest.raises(PdfError, match=f"^{reading.NOT_PDF}$"):
        verify.verify(b"\x00garbage" * 100, ours, datetime.now(UTC))


def test_a_damaged_pdf_without_signatures_is_refused(ours):
    with pytest.raises(PdfError, match=f"^{re.escape(reading.DAMAGED)}$"):
        verify.verify(b"%PDF-1.7\n" + b"\x00garbage" * 100, ours, datetime.now(UTC))


def test_a_user_password_pdf_is_refused_clearly(ours):
    with pytest.raises(PdfError, match=r"^The PDF is protected by a password; upload it without the password$"):
        verify.verify(encrypted(pdf(), user="user"), ours, datetime.now(UTC))


def test_a_pdf_without_signatures_has_none(ours):
    assert verify.verify(pdf(), ours, datetime.now(UTC)) == []
    assert (
        verify.verify(encrypted(pdf(), user=""), ours, datetime.now(UTC)) == []
    )  # owner password only: opens as in viewers


def test_a_document_timestamp_is_reported_as_a_timestamp(chain, ours, sealed, tsa):
    writer = IncrementalPdfFileWriter(io.BytesIO(sealed), strict=False)
    stamped = signers.PdfTimeStamper(tsa["stamper"]).timestamp_pdf(writer, md_algorithm="sha256").getvalue()
    certification, timestamp = verify.verify(stamped, ours, datetime.now(UTC))
    assert (certification["type"], certification["coverage"], certification["issued_by_service"]) == (
        "certification",
        "entire_revision",
        True,  # a document timestamp after the seal is an archival update (tests/pdf/test_pdf_long_term.py)
    )
    assert (timestamp["type"], timestamp["intact"], timestamp["valid"], timestamp["trusted"]) == (
        "timestamp",
        True,
        True,
        False,
    )
    assert (timestamp["signer_name"], timestamp["coverage"], timestamp["issued_by_service"]) == (
        "signsvc test TSA",
        "entire_file",
        False,
    )
    assert timestamp["signing_time"] == timestamp["timestamp"] == "2026-01-02T09:30:17.000Z"


# A timestamp server (RFC 3161) for PAdES B-T: the `tsa` fixture (tests/support/tsa.py)


@PDFSIG
def test_a_seal_with_a_timestamp_server_carries_its_timestamp(chain, ours, tsa, tmp_path):
    data = seal.sign(pdf(), chain, reason=REASON, name=None, signing_time=SIGNED_AT, tsa_url=tsa["url"])
    (report,) = verify.verify(data, ours, datetime.now(UTC), [tsa["cert_pem"]])
    assert report["timestamp"] == "2026-01-02T09:30:17.000Z"
    assert (report["signing_time"], report["signing_time_source"]) == ("2026-01-02T09:30:17.000Z", "timestamp")
    assert report["issued_by_service"]
    assert pyhanko_status(data, chain["chain_pems"][-1]).timestamp_validity.intact
    assert "Signature is Valid." in pdfsig(data, tmp_path)


def test_a_timestamp_server_that_does_not_answer_is_a_connection_error(chain):
    server = http.server.HTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    server.server_close()  # the port is now one nobody listens on
    with pytest.raises(ConnectionError, match=r"^The timestamp server http://127\.0\.0\.1:"):
        seal.sign(
            pdf(),
            chain,
            reason=REASON,
            name=None,
            signing_time=SIGNED_AT,
            tsa_url=f"http://127.0.0.1:{server.server_address[1]}/",
        )


# The calls the process pool runs


def test_the_pool_calls_answer_hashes_and_engine_errors(ours):
    generated, _ = pdf_calls.generate_signing_chain("signsvc", "signsvc", NOW)
    assert generated.sha256 == certificates.fingerprint(generated.cert_pem)
    pdf_calls.warm(generated)
    signed = pdf_calls.seal_pdf(pdf(), generated, REASON, None, SIGNED_AT)
    verified = pdf_calls.verify_pdf(signed.data, [generated.cert_pem, *generated.chain_pems], NOW)
    assert verified.sha256 == signed.sha256 and verified.signatures[0].issued_by_service
    with pytest.raises(pdf_calls.EngineError, match=f"^{reading.NOT_PDF}$"):
        pdf_calls.verify_pdf(b"nope", ours, NOW)
    with pytest.raises(pdf_calls.EngineError, match="not a PKCS#12 file"):
        pdf_calls.load_signing_p12(b"nope", "x", NOW)


def test_verify_looks_at_fifty_signatures_at_most(ours, tsa):
    data = pdf()
    for _ in range(verify.MAX_SIGNATURES + 1):
        data = (
            signers.PdfTimeStamper(tsa["stamper"])
            .timestamp_pdf(IncrementalPdfFileWriter(io.BytesIO(data), strict=False), md_algorithm="sha256")
            .getvalue()
        )
    with pytest.raises(PdfError, match=f"^{re.escape(verify.TOO_MANY_SIGNATURES)}$"):
        verify.verify(data, ours, datetime.now(UTC))
