"""How long a signature can be shown valid from the file alone: its PAdES level, where its signing time comes
from, whether its chain validates offline with only what the file carries, and what it lacks.

The levels, as signsvc counts them (docs/verification.md):
- B-B: a PAdES signature (SubFilter ETSI.CAdES.detached);
- B-T: plus a signature timestamp, or a document timestamp in a later revision;
- B-LT: plus a DSS holding the signing chain and, for every certificate of it that names a CRL or OCSP
  responder, revocation information from that certificate's issuer;
- B-LTA: B-LT, and a document timestamp whose revision holds such a DSS (so it covers it).
ETSI builds B-LT on B-T; a signsvc B-LT without a timestamp has only the signer's claimed signing time.

The offline check trusts only the service's certificates, fetches nothing, and requires revocation
information for every certificate that names where to find it ("hard-fail"); it validates at the time a
valid timestamp proves, or at `now` when none does, and accepts revocation information issued after that time
as long-term validation does.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from asn1crypto import crl as asn1_crl
from asn1crypto import ocsp as asn1_ocsp
from asn1crypto import x509 as asn1_x509
from pyhanko.pdf_utils.decode_limits import DecodePurpose
from pyhanko.pdf_utils.misc import PdfError as PyhankoPdfError
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.general import find_unique_cms_attribute
from pyhanko.sign.validation import EmbeddedPdfSignature
from pyhanko.sign.validation.dss import DocumentSecurityStore
from pyhanko.sign.validation.errors import NoDSSFoundError
from pyhanko_certvalidator import CertificateValidator, ValidationContext
from pyhanko_certvalidator.policy_decl import CertRevTrustPolicy, RevocationCheckingPolicy, RevocationCheckingRule

PADES_SUBFILTER = "/ETSI.CAdES.detached"
LEVELS = ("B-B", "B-T", "B-LT", "B-LTA")
# What a signature lacks for long-term validity, in the order a producer adds them.
MISSING = ("pades_signature", "signature_timestamp", "revocation_information", "document_timestamp", "trusted_chain")


@dataclass(frozen=True)
class Evidence:
    """Validation data a file carries: certificates, CRLs and OCSP responses."""

    certificates: list[asn1_x509.Certificate] = field(default_factory=list)
    crls: list[asn1_crl.CertificateList] = field(default_factory=list)
    ocsps: list[asn1_ocsp.OCSPResponse] = field(default_factory=list)


@dataclass(frozen=True)
class DocumentTimestamp:
    """A document timestamp that is intact and valid: the revision it covers, its time, the DSS it covers."""

    revision: int
    time: datetime
    dss: Evidence


def document_timestamp(signature: EmbeddedPdfSignature, time: datetime) -> DocumentTimestamp:
    """A valid document timestamp with the DSS as it stood in the revision it covers."""
    revision = signature.signed_revision
    return DocumentTimestamp(revision, time, dss(signature.reader, revision))


def dss(reader: PdfFileReader, revision: int | None = None) -> Evidence:
    """The DSS of the file (or of one of its revisions); empty without one."""
    handler = reader if revision is None else reader.get_historical_resolver(revision)
    try:
        store = DocumentSecurityStore.read_dss(handler)
        return Evidence(
            list(store.load_certs()),
            [asn1_crl.CertificateList.load(_data(ref, DecodePurpose.CRL)) for ref in store.crls],
            [asn1_ocsp.OCSPResponse.load(_data(ref, DecodePurpose.OCSP_RESPONSE)) for ref in store.ocsps],
        )
    except (NoDSSFoundError, PyhankoPdfError, KeyError, ValueError, TypeError):
        return Evidence()


def _data(reference: Any, purpose: DecodePurpose) -> bytes:
    data: bytes = reference.get_object().read_data(purpose)
    return data


def assess(
    signature: EmbeddedPdfSignature,
    report: dict[str, Any],
    signing_cert: asn1_x509.Certificate,
    timestamps: list[DocumentTimestamp],
    roots: list[asn1_x509.Certificate],
    now: datetime,
) -> dict[str, Any]:
    """The long-term fields of a signature's report (not of a document timestamp's)."""
    covering = [t for t in timestamps if t.revision > signature.signed_revision]
    own_time = _time(report["timestamp"])
    pades = signature.sig_object.get("/SubFilter") == PADES_SUBFILTER
    latest = dss(signature.reader)
    chain = _chain(signing_cert, [*_carried(signature), *latest.certificates, *roots])
    timestamped = own_time is not None or bool(covering)
    long_term = _holds(latest, chain)
    archived = long_term and any(_holds(t.dss, chain) for t in covering)
    moment = own_time or min((t.time for t in covering), default=None) or now
    offline = _validates_offline(chain, signature, latest, roots, moment)
    present = {"pades_signature": pades, "signature_timestamp": timestamped, "revocation_information": long_term}
    present |= {"document_timestamp": archived, "trusted_chain": offline}
    return {
        "pades_level": _level(timestamped, long_term, archived) if pades else None,
        "chain_validates_offline": offline,
        "missing_for_long_term": [code for code in MISSING if not present[code]],
    }


def assess_timestamp(
    signature: EmbeddedPdfSignature, tsa_cert: asn1_x509.Certificate, roots: list[asn1_x509.Certificate], time: datetime
) -> dict[str, Any]:
    """The long-term fields of a document timestamp's report: it has no level and lacks nothing of its own;
    its TSA's chain is checked offline at its own time."""
    latest = dss(signature.reader)
    chain = _chain(tsa_cert, [*_carried(signature), *latest.certificates, *roots])
    offline = _validates_offline(chain, signature, latest, roots, time)
    return {"pades_level": None, "chain_validates_offline": offline, "missing_for_long_term": None}


def _level(timestamped: bool, long_term: bool, archived: bool) -> str:
    if archived:
        return "B-LTA"
    return "B-LT" if long_term else "B-T" if timestamped else "B-B"


def _holds(evidence: Evidence, chain: list[asn1_x509.Certificate]) -> bool:
    """Whether a DSS holds the chain (all but a self-signed root, which the validator brings) and revocation
    information for each certificate that names a CRL or an OCSP responder."""
    held = {c.dump() for c in evidence.certificates}
    for certificate in chain:
        if certificate.self_signed == "maybe" and certificate is not chain[0]:
            continue
        if certificate.dump() not in held:
            return False
        if _names_revocation(certificate) and not _revocation_for(evidence, certificate):
            return False
    return bool(chain)


def _names_revocation(certificate: asn1_x509.Certificate) -> bool:
    return bool(certificate.crl_distribution_points or certificate.ocsp_urls)


def _revocation_for(evidence: Evidence, certificate: asn1_x509.Certificate) -> bool:
    issuer = certificate.issuer
    if any(crl["tbs_cert_list"]["issuer"] == issuer for crl in evidence.crls):
        return True
    return any(_ocsp_serial(response) == certificate.serial_number for response in evidence.ocsps)


def _ocsp_serial(response: asn1_ocsp.OCSPResponse) -> int | None:
    try:
        [single] = response.basic_ocsp_response["tbs_response_data"]["responses"]
        return int(single["cert_id"]["serial_number"].native)
    except (ValueError, TypeError, KeyError):
        return None


def _chain(leaf: asn1_x509.Certificate, pool: list[asn1_x509.Certificate]) -> list[asn1_x509.Certificate]:
    """The leaf and its issuers, found by name among the certificates at hand, up to a self-signed one."""
    chain = [leaf]
    while chain[-1].self_signed == "no" and len(chain) < 10:
        issuer = next((c for c in pool if c.subject == chain[-1].issuer and c.dump() != chain[-1].dump()), None)
        if issuer is None:
            break
        chain.append(issuer)
    return chain


def _carried(signature: EmbeddedPdfSignature) -> list[asn1_x509.Certificate]:
    return [c.chosen for c in signature.signed_data["certificates"] if c.name == "certificate"]


def _archived_revocation(signature: EmbeddedPdfSignature) -> Evidence:
    """Revocation information inside the signature itself (Adobe's revocation-info-archival attribute)."""
    try:
        archival = find_unique_cms_attribute(signature.signer_info["signed_attrs"], "adobe_revocation_info_archival")
    except Exception:  # pyHanko's NonexistentAttributeError, MultivaluedAttributeError
        return Evidence()
    return Evidence([], list(archival["crl"] or []), list(archival["ocsp"] or []))


def _validates_offline(
    chain: list[asn1_x509.Certificate],
    signature: EmbeddedPdfSignature,
    latest: Evidence,
    roots: list[asn1_x509.Certificate],
    moment: datetime,
) -> bool:
    archived = _archived_revocation(signature)
    context = ValidationContext(
        trust_roots=anchors(roots),
        other_certs=[*_carried(signature), *latest.certificates],
        crls=[*latest.crls, *archived.crls],
        ocsps=[*latest.ocsps, *archived.ocsps],
        allow_fetching=False,
        revinfo_policy=CertRevTrustPolicy(_revocation_rules(chain), retroactive_revinfo=True),
        moment=moment,
    )
    try:
        asyncio.run(CertificateValidator(chain[0], validation_context=context).async_validate_path())
    except Exception:  # pyhanko_certvalidator's PathBuildingError, PathValidationError, RevokedError...
        return False
    return True


def anchors(trusted: list[asn1_x509.Certificate]) -> list[asn1_x509.Certificate]:
    """The tops of the service's chains: its roots, or a certificate whose issuer it doesn't hold. Trusting
    the signing certificates themselves would end each path at the leaf, with no revocation to check."""
    subjects = {c.subject.dump() for c in trusted}
    return [c for c in trusted if c.self_signed != "no" or c.issuer.dump() not in subjects]


def _revocation_rules(chain: list[asn1_x509.Certificate]) -> RevocationCheckingPolicy:
    """Revocation information required for the signing certificate when it names where to find it, and for
    the intermediate CAs when any of them does. (pyHanko's "hard-fail" lets a declared but absent CRL pass
    when fetching is off.)"""
    intermediates = [c for c in chain[1:] if c.self_signed == "no"]
    return RevocationCheckingPolicy(
        _required(_names_revocation(chain[0])), _required(any(_names_revocation(c) for c in intermediates))
    )


def _required(declared: bool) -> RevocationCheckingRule:
    return RevocationCheckingRule.CRL_OR_OCSP_REQUIRED if declared else RevocationCheckingRule.NO_CHECK


def _time(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text.replace("Z", "+00:00")) if text else None
