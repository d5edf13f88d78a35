"""Whether a certificate may sign documents now: its validity period, its key usage, its extended key usage.

The extended key usages accepted are those PDF validators accept for document signatures (Adobe Acrobat's
list, and RFC 9336's documentSigning): a certificate whose EKU names only others (a TLS server's
certificate, say) makes signatures that Acrobat and pyHanko reject, so the service refuses it at start.
"""

from __future__ import annotations

from datetime import datetime

from cryptography import x509
from cryptography.x509.oid import ExtendedKeyUsageOID, ObjectIdentifier

DOCUMENT_SIGNING_USAGES = {
    ExtendedKeyUsageOID.ANY_EXTENDED_KEY_USAGE,
    ExtendedKeyUsageOID.EMAIL_PROTECTION,
    ExtendedKeyUsageOID.CODE_SIGNING,
    ObjectIdentifier("1.3.6.1.5.5.7.3.36"),  # documentSigning (RFC 9336)
    ObjectIdentifier("1.3.6.1.4.1.311.10.3.12"),  # Microsoft document signing
    ObjectIdentifier("1.2.840.113583.1.1.5"),  # Adobe Authentic Documents Trust
}


def problem(certificate: x509.Certificate, now: datetime) -> str | None:
    """Why `certificate` may not sign a document at `now` (aware), or None when it may."""
    return _period(certificate, now) or _key_usage(certificate) or _extended_key_usage(certificate)


def _period(certificate: x509.Certificate, now: datetime) -> str | None:
    if now < certificate.not_valid_before_utc:
        return f"The PKCS#12 certificate is not valid yet: its validity starts {_day(certificate.not_valid_before_utc)}"
    if now > certificate.not_valid_after_utc:
        return f"The PKCS#12 certificate has expired: its validity ended {_day(certificate.not_valid_after_utc)}"
    return None


def _key_usage(certificate: x509.Certificate) -> str | None:
    try:
        usage = certificate.extensions.get_extension_for_class(x509.KeyUsage).value
    except x509.ExtensionNotFound:
        return None
    if usage.digital_signature or usage.content_commitment:
        return None
    return (
        "The PKCS#12 certificate's key usage does not allow signing documents "
        "(it needs digitalSignature or nonRepudiation)"
    )


def _extended_key_usage(certificate: x509.Certificate) -> str | None:
    try:
        usages = set(certificate.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value)
    except x509.ExtensionNotFound:
        return None
    if usages & DOCUMENT_SIGNING_USAGES:
        return None
    named = ", ".join(sorted(usage._name for usage in usages))
    return (
        f"The PKCS#12 certificate's extended key usage ({named}) does not allow signing documents "
        "(it needs emailProtection, documentSigning or anyExtendedKeyUsage)"
    )


def _day(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC")
