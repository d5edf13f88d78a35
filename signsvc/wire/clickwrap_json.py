"""Clickwraps and consents as the API shows them."""

from __future__ import annotations

from typing import Any

from signsvc.infra.links import Links
from signsvc.infra.urls import Urls
from storage.records import Clickwrap, Consent


def clickwrap_json(urls: Urls, clickwrap: Clickwrap) -> dict[str, Any]:
    return {
        "id": clickwrap.id,
        "name": clickwrap.name,
        "kind": clickwrap.kind,
        "slug": clickwrap.slug,
        "published": clickwrap.active_version_number is not None,
        "active_version_number": clickwrap.active_version_number,
        "url": urls.clickwrap(clickwrap.slug),
        **clickwrap.settings,
        "created_at": clickwrap.created_at,
        "updated_at": clickwrap.updated_at,
        "archived_at": clickwrap.archived_at,
    }


def consent_json(links: Links, consent: Consent) -> dict[str, Any]:
    """The spec's consent, and as extensions how it was given, the checkbox answers and the submission
    signed after it."""
    certificate = (
        links.link(consent.certificate_uuid, consent.certificate_filename)
        if consent.certificate_uuid and consent.certificate_filename
        else None
    )
    return {
        "id": consent.id,
        "clickwrap_id": consent.clickwrap_id,
        "clickwrap_version_number": consent.clickwrap_version_number,
        "name": consent.name,
        "email": consent.email,
        "external_id": consent.external_id,
        "ip": consent.ip,
        "user_agent": consent.user_agent,
        "agreed_at": consent.agreed_at,
        "certificate_url": certificate,
        "source": consent.source,
        "checkboxes": consent.checkboxes,
        "submission_id": consent.submission_id,
    }
