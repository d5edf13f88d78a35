"""Verification that says what it found: each signature's PAdES level, where its signing time comes from,
whether its chain validates offline from what the file carries, and what it lacks for long-term validity;
and the service's seal followed only by DSS and document-timestamp updates still counts as issued.

The PDFs are made here with pyHanko (tests/support/pades_levels.py): a test CA whose signing certificate
names a CRL distribution point, its CRL, and the `tsa` fixture's timestamps."""

from __future__ import annotations

import io
import time
from datetime import timedelta

import pytest
from asn1crypto import x509 as asn1_x509
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from pyhanko.pdf_utils import generic
from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
from pyhanko.sign import fields, signers
from pyhanko.sign.validation.dss import DocumentSecurityStore
from pyhanko_certvalidator import ValidationContext

from signsvc.pdf import pades_levels, seal, verify
from signsvc.testing import timestamps
from tests.support import pades_levels as levels
from tests.support.documents import pdf
from tests.support.seals import NOW, SIGNED_AT

TIMESTAMPED_AT = "2026-01-02T09:30:17.000Z"  # the tsa fixture's time


@pytest.fixture(scope="module")
def ca() -> levels.TestCa:
    return levels.test_ca()


@pytest.fixture(scope="module")
def made(ca, tsa) -> dict[str, bytes]:
    """A PDF at each level, and the service's seal archived."""
    stamper = tsa["stamper"]
    timestamped = levels.signed(ca, stamper)
    long_term = levels.with_dss(timestamped, ca)
    sealed = seal.sign(pdf(), ca.chain(), reason="r", name=None, signing_time=SIGNED_AT)
    return {
        "B-B": levels.signed(ca),
        "B-T": timestamped,
        "B-LT": long_term,
        "B-LTA": levels.with_document_timestamp(long_term, stamper),
        "B-LT claimed": levels.with_dss(levels.signed(ca), ca),
        "DSS without CRL": levels.with_dss(timestamped, ca, crls=False),
        "B-T by document timestamp": levels.with_document_timestamp(levels.signed(ca), stamper),
        "not PAdES": levels.signed(ca, stamper, pades=False),
        "sealed": sealed,
        "sealed archived": levels.with_document_timestamp(levels.with_dss(sealed, ca), stamper),
    }


def first(data: bytes, ca: levels.TestCa, stamps: tuple[str, ...] = ()) -> dict:
    """The first report, the `tsa` fixture's certificate (`stamps`) trusted for timestamps when given."""
    return verify.verify(data, ca.pems(), NOW, stamps)[0]


def long_term(report: dict) -> tuple:
    return (
        report["pades_level"],
        report["signing_time_source"],
        report["chain_validates_offline"],
        report["missing_for_long_term"],
    )


def test_a_pades_signature_alone_is_b_b_with_a_claimed_time_and_no_offline_chain_without_its_crl(made, ca):
    assert long_term(first(made["B-B"], ca)) == (
        "B-B",
        "claimed",
        False,
        ["signature_timestamp", "revocation_information", "document_timestamp", "trusted_chain"],
    )


def test_a_signature_timestamp_makes_b_t_and_the_signing_time_comes_from_it(made, ca, tsa):
    report = first(made["B-T"], ca, (tsa["cert_pem"],))
    assert long_term(report) == (
        "B-T",
        "timestamp",
        False,
        ["revocation_information", "document_timestamp", "trusted_chain"],
    )
    assert report["signing_time"] == report["timestamp"] == TIMESTAMPED_AT


def test_a_dss_with_the_chain_and_its_crl_makes_b_lt_and_the_chain_validates_offline(made, ca, tsa):
    assert long_term(first(made["B-LT"], ca, (tsa["cert_pem"],))) == ("B-LT", "timestamp", True, ["document_timestamp"])


def test_a_document_timestamp_over_the_dss_makes_b_lta_with_nothing_missing(made, ca, tsa):
    signature, timestamp = verify.verify(made["B-LTA"], ca.pems(), NOW, [tsa["cert_pem"]])
    assert long_term(signature) == ("B-LTA", "timestamp", True, [])
    assert (timestamp["type"], timestamp["pades_level"], timestamp["missing_for_long_term"]) == (
        "timestamp",
        None,
        None,
    )
    assert (timestamp["signing_time"], timestamp["signing_time_source"]) == (TIMESTAMPED_AT, "timestamp")


def test_b_lt_without_a_timestamp_keeps_its_claimed_time_and_lacks_the_timestamp(made, ca):
    assert long_term(first(made["B-LT claimed"], ca)) == (
        "B-LT",
        "claimed",
        True,
        ["signature_timestamp", "document_timestamp"],
    )


def test_a_dss_without_revocation_information_for_a_certificate_that_names_a_crl_is_not_b_lt(made, ca, tsa):
    assert long_term(first(made["DSS without CRL"], ca, (tsa["cert_pem"],))) == (
        "B-T",
        "timestamp",
        False,
        ["revocation_information", "document_timestamp", "trusted_chain"],
    )


def test_a_later_document_timestamp_alone_makes_a_signature_b_t_with_its_time_still_claimed(made, ca):
    report = first(made["B-T by document timestamp"], ca)
    assert (report["pades_level"], report["signing_time_source"]) == ("B-T", "claimed")
    assert "signature_timestamp" not in report["missing_for_long_term"]


def test_a_signature_that_is_not_pades_has_no_level_and_lacks_a_pades_signature(made, ca):
    report = first(made["not PAdES"], ca)
    assert (report["pades_level"], report["missing_for_long_term"][0]) == (None, "pades_signature")


def test_a_foreign_signature_lacks_a_trusted_chain_whatever_else_it_carries(made, tsa):
    other = levels.test_ca(root_key=6, leaf_key=7)
    report = verify.verify(made["B-LTA"], other.pems(), NOW, [tsa["cert_pem"]])[0]
    assert (report["pades_level"], report["chain_validates_offline"], report["trusted"]) == ("B-LTA", False, False)
    assert report["missing_for_long_term"] == ["trusted_chain"]


def test_a_certificate_without_revocation_pointers_validates_offline_without_revocation_information(tsa):
    plain = levels.test_ca(root_key=6, leaf_key=7, crl_url=None)
    report = first(levels.signed(plain, tsa["stamper"]), plain, (tsa["cert_pem"],))
    assert (report["chain_validates_offline"], report["missing_for_long_term"]) == (
        True,
        ["revocation_information", "document_timestamp"],
    )


# Issued by the service, after DSS and document-timestamp updates


def add_page_text(writer: IncrementalPdfFileWriter) -> None:
    page = writer.root["/Pages"]["/Kids"][0].get_object()
    page[generic.NameObject("/Rotate")] = generic.NumberObject(90)
    writer.update_container(page)


def test_the_service_seal_followed_by_dss_and_document_timestamp_updates_is_still_issued_by_the_service(made, ca):
    seal_report, timestamp = verify.verify(made["sealed archived"], ca.pems(), NOW)
    assert (seal_report["type"], seal_report["coverage"], seal_report["issued_by_service"]) == (
        "certification",
        "entire_revision",
        True,
    )
    assert seal_report["pades_level"] == "B-LTA" and timestamp["issued_by_service"] is False


def set_acroform(**entries: generic.PdfObject):
    def change(writer: IncrementalPdfFileWriter) -> None:
        form = writer.root["/AcroForm"]
        for key, value in entries.items():
            form[generic.NameObject(f"/{key}")] = value
        if isinstance(writer.root.raw_get("/AcroForm"), generic.IndirectObject):
            writer.update_container(form)
        else:
            writer.update_root()

    return change


def set_catalog(key: str, value: generic.PdfObject):
    def change(writer: IncrementalPdfFileWriter) -> None:
        writer.root[generic.NameObject(key)] = value
        writer.update_root()

    return change


OTHER_CHANGES = {
    "document information": levels.retitle,
    "page": add_page_text,
    "form /NeedAppearances": set_acroform(NeedAppearances=generic.BooleanObject(True)),
    "form /DA and /DR": set_acroform(
        DA=generic.TextStringObject("1 g /Helv 0 Tf 3 Tr"),
        DR=generic.DictionaryObject({generic.NameObject("/Font"): generic.DictionaryObject()}),
    ),
    "catalog /Version": set_catalog("/Version", generic.NameObject("/2.0")),
    "catalog /MarkInfo": set_catalog(
        "/MarkInfo", generic.DictionaryObject({generic.NameObject("/Marked"): generic.BooleanObject(True)})
    ),
    "catalog /Extensions": set_catalog(
        "/Extensions",
        generic.DictionaryObject(
            {
                generic.NameObject("/ADBE"): generic.DictionaryObject(
                    {
                        generic.NameObject("/BaseVersion"): generic.NameObject("/1.7"),
                        generic.NameObject("/ExtensionLevel"): generic.NumberObject(8),
                    }
                )
            }
        ),
    ),
}


@pytest.mark.parametrize("change", OTHER_CHANGES.values(), ids=OTHER_CHANGES.keys())
def test_any_other_change_after_the_service_seal_makes_it_not_issued(made, ca, change):
    for name in ("sealed", "sealed archived"):
        report = first(levels.edited(made[name], change), ca)
        assert (report["intact"], report["issued_by_service"]) == (True, False), name


def test_an_approval_signature_by_a_service_certificate_followed_by_a_dss_is_not_issued(made, ca):
    report = first(made["B-LT"], ca)
    assert (report["type"], report["coverage"], report["issued_by_service"]) == ("approval", "entire_revision", False)


def test_a_seal_made_b_lta_in_one_go_by_pyhanko_stays_issued_by_the_service(ca, tsa):
    """pyHanko's signer embedding the validation data and adding the document timestamp itself (as a service
    producing B-LTA would) appends a DSS revision and a timestamp revision after the certification."""
    context = ValidationContext(
        trust_roots=[levels.certificate(ca.root), tsa["stamper"].tsa_cert],
        crls=[ca.crl],
        allow_fetching=False,
        moment=SIGNED_AT,
    )
    meta = signers.PdfSignatureMetadata(
        field_name="signsvc",
        certify=True,
        docmdp_permissions=fields.MDPPerm.NO_CHANGES,
        subfilter=fields.SigSeedSubFilter.PADES,
        md_algorithm="sha256",
        embed_validation_info=True,
        validation_context=context,
        use_pades_lta=True,
    )
    writer = IncrementalPdfFileWriter(io.BytesIO(pdf()))
    signed = signers.PdfSigner(meta, levels.signer(ca), timestamper=tsa["stamper"]).sign_pdf(writer).getvalue()
    seal_report, timestamp = verify.verify(signed, ca.pems(), NOW, [tsa["cert_pem"]])
    assert (seal_report["coverage"], seal_report["issued_by_service"], seal_report["pades_level"]) == (
        "entire_revision",
        True,
        "B-LTA",
    )
    assert (seal_report["chain_validates_offline"], seal_report["missing_for_long_term"]) == (True, [])
    assert timestamp["type"] == "timestamp"


# Only a trusted timestamp dates a signature; validation data past the caps is not looked at


def test_trusted_timestamp_an_untrusted_tsa_dates_nothing_and_the_signature_lacks_a_trusted_timestamp(made, ca):
    signature, timestamp = verify.verify(made["B-LTA"], ca.pems(), NOW)  # the TSA is not trusted
    assert long_term(signature) == ("B-LTA", "claimed", True, ["trusted_timestamp"])
    assert timestamp["chain_validates_offline"] is False


def test_trusted_timestamp_a_self_made_tsa_claiming_an_old_time_does_not_move_the_validation_moment(ca):
    evil = timestamps.create("evil", now=NOW - timedelta(days=4000), valid_for=timedelta(days=8000))
    data = levels.with_document_timestamp(levels.signed(ca), evil.stamper(lambda: NOW - timedelta(days=3000)))
    report = first(data, ca)
    assert (report["pades_level"], report["signing_time_source"]) == ("B-T", "claimed")
    assert "trusted_timestamp" in report["missing_for_long_term"]


def test_validation_data_too_large_a_dss_past_the_caps_is_not_looked_at_and_verify_stays_fast(made, ca):
    key = ec.generate_private_key(ec.SECP256R1())
    issuer = x509.load_der_x509_certificate(levels.certificate(ca.root).dump()).subject
    lookalikes = [
        asn1_x509.Certificate.load(
            x509.CertificateBuilder()
            .subject_name(issuer)
            .issuer_name(issuer)
            .public_key(key.public_key())
            .serial_number(number + 1)
            .not_valid_before(NOW - timedelta(days=1))
            .not_valid_after(NOW + timedelta(days=9))
            .sign(key, hashes.SHA256())
            .public_bytes(serialization.Encoding.DER)
        )
        for number in range(pades_levels.MAX_ENTRIES + 1)
    ]
    out = io.BytesIO(made["B-LT"])
    DocumentSecurityStore.add_dss(out, None, certs=lookalikes, force_write=True)
    data = out.getvalue()
    stamper = timestamps.create("t", now=NOW - timedelta(days=10), valid_for=timedelta(days=100)).stamper(lambda: NOW)
    for _ in range(6):
        data = levels.with_document_timestamp(data, stamper)
    started = time.perf_counter()
    reports = verify.verify(data, ca.pems(), NOW)
    assert time.perf_counter() - started < 10
    assert (reports[0]["pades_level"], reports[0]["chain_validates_offline"], reports[0]["missing_for_long_term"]) == (
        None,
        False,
        ["validation_data_too_large"],
    )


# Revocation information counts for B-LT only when it is the issuer's


def test_revocation_information_a_crl_under_the_issuers_name_but_not_signed_by_it_does_not_make_b_lt(made, ca, tsa):
    impostor = levels.test_ca(root_key=6, leaf_key=7)  # a root of the same name, another key
    out = io.BytesIO(made["B-T"])
    certs = [levels.certificate(ca.leaf), levels.certificate(ca.root)]
    DocumentSecurityStore.add_dss(out, None, certs=certs, crls=[impostor.crl], force_write=True)
    report = first(out.getvalue(), ca, (tsa["cert_pem"],))
    assert (report["pades_level"], report["chain_validates_offline"]) == ("B-T", False)
    assert "revocation_information" in report["missing_for_long_term"]
