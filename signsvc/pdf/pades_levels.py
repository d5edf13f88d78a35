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
from cryptography import x509
from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from pyhanko.pdf_utils.decode_limits import DecodePurpose
from pyhanko.pdf_utils.misc import PdfError as PyhankoPdfError
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.general import find_unique_cms_attribute
from pyhanko.sign.validation import EmbeddedPdfSignature
from pyhanko_certvalidator import CertificateValidator, ValidationContext
from pyhanko_certvalidator.policy_decl import CertRevTrustPolicy, RevocationCheckingPolicy, RevocationCheckingRule

PADES_SUBFILTER = "/ETSI.CAdES.detached"
LEVELS = ("B-B", "B-T", "B-LT", "B-LTA")
# What a signature lacks for long-term validity, in the order a producer adds them.
MISSING = (
    "pades_signature",
    "signature_timestamp",
    "trusted_timestamp",
    "revocation_information",
    "document_timestamp",
    "trusted_chain",
)
# What a file's validation data may hold before it is not looked at (each path built costs time per certificate
# that could be an issuer): the service's own DSS holds a handful of each.
MAX_ENTRIES = 200  # certificates, CRLs, OCSP responses: each kind
MAX_BYTES = 4 * 1024 * 1024
TOO_LARGE = "validation_data_too_large"


@dataclass(frozen=True)
class Evidence:
    """Validation data a file carries: certificates, CRLs and OCSP responses."""

    certificates: list[asn1_x509.Certificate] = field(default_factory=list)
    crls: list[asn1_crl.CertificateList] = field(default_factory=list)
    ocsps: list[asn1_ocsp.OCSPResponse] = field(default_factory=list)
    too_large: bool = False  # over MAX_ENTRIES or MAX_BYTES: not read, nothing judged from it


@dataclass(frozen=True)
class DocumentTimestamp:
    """A document timestamp that is intact and valid: the revision it covers, its time, the DSS it covers, and
    whether its TSA's chain validates offline to a trusted anchor (only then does its time date anything)."""

    revision: int
    time: datetime
    dss: Evidence
    trusted: bool = False


def document_timestamp(signature: EmbeddedPdfSignature, time: datetime, trusted: bool) -> DocumentTimestamp:
    """A valid document timestamp with the DSS as it stood in the revision it covers."""
    revision = signature.signed_revision
    return DocumentTimestamp(revision, time, dss(signature.reader, revision), trusted)


def dss(reader: PdfFileReader, revision: int | None = None) -> Evidence:
    """The DSS of the file (or of one of its revisions); empty without one; `too_large` past the caps (counted
    before anything in it is parsed)."""
    handler = reader if revision is None else reader.get_historical_resolver(revision)
    try:
        if "/DSS" not in handler.root:
            return Evidence()
        store = handler.root["/DSS"]
        kinds = [_refs(store, key) for key in ("/Certs", "/CRLs", "/OCSPs")]
        if max(len(refs) for refs in kinds) > MAX_ENTRIES:
            return Evidence(too_large=True)
        budget = [MAX_BYTES]
        certs, crls, ocsps = (
            [_data(ref, purpose, budget) for ref in refs] for refs, purpose in zip(kinds, _PURPOSES, strict=True)
        )
        return Evidence(
            [asn1_x509.Certificate.load(data) for data in certs],
            [asn1_crl.CertificateList.load(data) for data in crls],
            [asn1_ocsp.OCSPResponse.load(data) for data in ocsps],
        )
    except _TooLarge:
        return Evidence(too_large=True)
    except (PyhankoPdfError, KeyError, ValueError, TypeError, AttributeError):
        return Evidence()


_PURPOSES = (DecodePurpose.CERTIFICATE, DecodePurpose.CRL, DecodePurpose.OCSP_RESPONSE)


def _refs(store: Any, key: str) -> list[Any]:
    refs = store[key] if key in store else []  # noqa: SIM401 (get() would not resolve an indirect array)
    return list(refs) if isinstance(refs, list) else []


class _TooLarge(Exception):
    pass


def _data(reference: Any, purpose: DecodePurpose, budget: list[int]) -> bytes:
    data: bytes = reference.get_object().read_data(purpose)
    budget[0] -= len(data)
    if budget[0] < 0:
        raise _TooLarge
    return data


def too_large() -> dict[str, Any]:
    """The long-term fields of a signature whose file carries more validation data than is looked at."""
    return {"pades_level": None, "chain_validates_offline": False, "missing_for_long_term": [TOO_LARGE]}


def assess(
    signature: EmbeddedPdfSignature,
    status: Any,
    timestamps: list[DocumentTimestamp],
    latest: Evidence,
    roots: list[asn1_x509.Certificate],
    now: datetime,
    checked: dict[tuple[Any, ...], bool],
) -> dict[str, Any]:
    """The long-term fields of a signature's report (not of a document timestamp's). `latest` is the file's DSS;
    `checked` remembers the offline validations already made during this call (by certificate and moment)."""
    covering = [t for t in timestamps if t.revision > signature.signed_revision]
    if latest.too_large or any(t.dss.too_large for t in covering):
        return too_large()
    token = status.timestamp_validity
    own = token.timestamp if token is not None and token.intact and token.valid else None
    trusted_own = own if own is not None and token.trusted else None
    pades = signature.sig_object.get("/SubFilter") == PADES_SUBFILTER
    chain = _chain(status.signing_cert, [*_carried(signature), *latest.certificates, *roots])
    timestamped = own is not None or bool(covering)
    # Only a timestamp whose authority is trusted dates the signature: anyone can run a TSA that says 1990.
    dated = trusted_own or min((t.time for t in covering if t.trusted), default=None)
    long_term = _holds(latest, chain, roots)
    archived = long_term and any(_holds(t.dss, chain, roots) for t in covering)
    offline = _validates_offline(chain, signature, latest, roots, dated or now, checked)
    present = {"pades_signature": pades, "signature_timestamp": timestamped, "revocation_information": long_term}
    present |= {"trusted_timestamp": not timestamped or dated is not None}
    present |= {"document_timestamp": archived, "trusted_chain": offline}
    return {
        "pades_level": _level(timestamped, long_term, archived) if pades else None,
        "chain_validates_offline": offline,
        "missing_for_long_term": [code for code in MISSING if not present[code]],
    }


def assess_timestamp(
    signature: EmbeddedPdfSignature,
    tsa_cert: asn1_x509.Certificate,
    latest: Evidence,
    roots: list[asn1_x509.Certificate],
    time: datetime,
    checked: dict[tuple[Any, ...], bool],
) -> dict[str, Any]:
    """The long-term fields of a document timestamp's report: it has no level and lacks nothing of its own;
    its TSA's chain is checked offline at its own time (`roots` then include the trusted timestamp authorities)."""
    if latest.too_large:
        return {**too_large(), "missing_for_long_term": None}
    chain = _chain(tsa_cert, [*_carried(signature), *latest.certificates, *roots])
    offline = _validates_offline(chain, signature, latest, roots, time, checked)
    return {"pades_level": None, "chain_validates_offline": offline, "missing_for_long_term": None}


def _level(timestamped: bool, long_term: bool, archived: bool) -> str:
    if archived:
        return "B-LTA"
    return "B-LT" if long_term else "B-T" if timestamped else "B-B"


def _holds(evidence: Evidence, chain: list[asn1_x509.Certificate], roots: list[asn1_x509.Certificate]) -> bool:
    """Whether a DSS holds the chain (all but a self-signed root, which the validator brings) and, for each
    certificate that names a CRL or an OCSP responder, revocation information its issuer signed or that names
    its issuer's name and key. The chain must be whole: up to a self-signed certificate or a trusted anchor."""
    top = chain[-1]
    if top.self_signed == "no" and top.dump() not in {c.dump() for c in anchors(roots)}:
        return False
    held = {c.dump() for c in evidence.certificates}
    for index, certificate in enumerate(chain):
        if certificate.self_signed == "maybe" and index > 0:
            continue
        if certificate.dump() not in held:
            return False
        issuer = chain[index + 1] if index + 1 < len(chain) else None
        if _names_revocation(certificate) and (issuer is None or not _revocation_for(evidence, certificate, issuer)):
            return False
    return True


def _names_revocation(certificate: asn1_x509.Certificate) -> bool:
    return bool(certificate.crl_distribution_points or certificate.ocsp_urls)


def _revocation_for(evidence: Evidence, certificate: asn1_x509.Certificate, issuer: asn1_x509.Certificate) -> bool:
    if any(_signed_crl(crl, issuer) for crl in evidence.crls):
        return True
    return any(_ocsp_names(response, certificate, issuer) for response in evidence.ocsps)


def _signed_crl(crl: asn1_crl.CertificateList, issuer: asn1_x509.Certificate) -> bool:
    if crl["tbs_cert_list"]["issuer"] != issuer.subject:
        return False
    try:
        key = x509.load_der_x509_certificate(issuer.dump()).public_key()
        return x509.load_der_x509_crl(crl.dump()).is_signature_valid(key)  # type: ignore[arg-type]
    except (ValueError, TypeError, UnsupportedAlgorithm):
        return False


def _ocsp_names(
    response: asn1_ocsp.OCSPResponse, certificate: asn1_x509.Certificate, issuer: asn1_x509.Certificate
) -> bool:
    """Whether the response is about this certificate of this issuer: its serial, and its issuer's name and key
    hashes (RFC 6960's CertID)."""
    try:
        [single] = response.basic_ocsp_response["tbs_response_data"]["responses"]
        cert_id = single["cert_id"]
        algorithm = cert_id["hash_algorithm"]["algorithm"].native
        if algorithm not in ("sha1", "sha256"):
            return False
        return bool(
            int(cert_id["serial_number"].native) == certificate.serial_number
            and cert_id["issuer_name_hash"].native == getattr(issuer.subject, algorithm)
            and cert_id["issuer_key_hash"].native == getattr(issuer.public_key, algorithm)
        )
    except (ValueError, TypeError, KeyError, AttributeError):
        return False


def _chain(leaf: asn1_x509.Certificate, pool: list[asn1_x509.Certificate]) -> list[asn1_x509.Certificate]:
    """The leaf and its issuers, found among the certificates at hand by name and by the signature each issuer
    made, up to a self-signed one (or as far as issuers are found)."""
    chain = [leaf]
    while chain[-1].self_signed == "no" and len(chain) < 10:
        child = chain[-1]
        issuer = next((c for c in pool if c.subject == child.issuer and _issued_by(child, c)), None)
        if issuer is None or any(issuer.dump() == c.dump() for c in chain):
            break
        chain.append(issuer)
    return chain


def _issued_by(child: asn1_x509.Certificate, issuer: asn1_x509.Certificate) -> bool:
    try:
        x509.load_der_x509_certificate(child.dump()).verify_directly_issued_by(
            x509.load_der_x509_certificate(issuer.dump())
        )
    except (ValueError, TypeError, InvalidSignature, UnsupportedAlgorithm):
        return False
    return True


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
    checked: dict[tuple[Any, ...], bool],
) -> bool:
    key = (chain[0].dump(), moment, frozenset(c.dump() for c in roots))
    if key in checked:
        return checked[key]
    archived = _archived_revocation(signature)
    # Only certificates that could be on this chain: every other one is a path the validator would try.
    names = {c.subject.dump() for c in chain} | {c.issuer.dump() for c in chain}
    others = [c for c in [*_carried(signature), *latest.certificates] if c.subject.dump() in names]
    context = ValidationContext(
        trust_roots=anchors(roots),
        other_certs=others,
        crls=[*latest.crls, *archived.crls],
        ocsps=[*latest.ocsps, *archived.ocsps],
        allow_fetching=False,
        revinfo_policy=CertRevTrustPolicy(_revocation_rules(chain), retroactive_revinfo=True),
        moment=moment,
    )
    try:
        asyncio.run(CertificateValidator(chain[0], validation_context=context).async_validate_path())
        checked[key] = True
    except Exception:  # pyhanko_certvalidator's PathBuildingError, PathValidationError, RevokedError...
        checked[key] = False
    return checked[key]


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
