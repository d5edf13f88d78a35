"""Frozen records: what storage answers instead of rows (`storage/rows.py` converts them)."""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any

# The records a start reads, kept apart so that it need not make all of these; offered here with the rest.
from storage.account_records import Account as Account
from storage.account_records import ApiKey as ApiKey
from storage.account_records import Blob as Blob
from storage.account_records import KeyMode as KeyMode
from storage.account_records import Principal as Principal
from storage.account_records import User as User
from storage.account_records import UserLink as UserLink
from storage.shapes import (
    Condition,
    Field,
    FieldValues,
    FreeObject,
    PageSize,
    Preferences,
    Preview,
    Role,
    SubmissionDocument,
    TemplatePreferences,
)

# The largest id (and integer column) the databases hold: BIGINT.
MAX_ID = 2**63 - 1


@dataclasses.dataclass(frozen=True, slots=True)
class Folder:
    id: int
    account_id: int
    name: str
    created_at: datetime


@dataclasses.dataclass(frozen=True, slots=True)
class Template:
    id: int
    account_id: int
    author_id: int
    folder_id: int
    folder_name: str
    slug: str
    name: str
    external_id: str | None
    source: str
    roles: list[Role]
    fields: list[Field]
    preferences: TemplatePreferences
    combined_blob_id: int | None
    shared_link: bool
    created_at: datetime
    updated_at: datetime
    archived_at: datetime | None
    variables_schema: dict[str, Any]  # the variables its DOCX documents read, JSON-schema-like
    author_email: str
    author_first_name: str | None
    author_last_name: str | None
    combined_uuid: str | None
    combined_filename: str | None


@dataclasses.dataclass(frozen=True, slots=True)
class TemplateDocument:
    id: int
    template_id: int
    uuid: str
    position: int
    name: str
    blob_id: int
    blob_uuid: str
    filename: str
    pages: list[PageSize]
    previews: list[Preview]
    conditions: list[Condition]  # when the document applies (`schema[].conditions`)
    source_blob_id: int | None  # a dynamic document's DOCX, filled with variables for each submission


@dataclasses.dataclass(frozen=True, slots=True)
class Clickwrap:
    id: int
    account_id: int
    author_id: int
    slug: str
    name: str
    kind: str
    settings: dict[str, Any]
    active_version_number: int | None
    created_at: datetime
    updated_at: datetime
    archived_at: datetime | None


@dataclasses.dataclass(frozen=True, slots=True)
class ClickwrapVersion:
    id: int
    clickwrap_id: int
    number: int
    name: str
    kind: str
    settings: dict[str, Any]
    published_at: datetime


@dataclasses.dataclass(frozen=True, slots=True)
class Consent:
    id: int
    account_id: int
    clickwrap_id: int
    clickwrap_version_number: int
    name: str | None
    email: str | None
    external_id: str | None
    ip: str | None
    user_agent: str | None
    agreed_at: datetime
    uuid: str | None
    source: str
    checkboxes: list[dict[str, Any]]
    submission_id: int | None
    certificate_blob_id: int | None
    certificate_uuid: str | None  # the certificate's file, once made
    certificate_filename: str | None
    certificate_pades_level: str | None = None  # the PAdES level it was sealed at
    certificate_timestamp_renew_at: datetime | None = None  # when its archive timestamp is to be renewed
    language: str | None = None  # the page's, when given on one (a code of pages/i18n)


@dataclasses.dataclass(frozen=True, slots=True)
class Submission:
    id: int
    account_id: int
    template_id: int | None
    created_by_user_id: int
    slug: str
    envelope_id: str
    name: str | None
    template_name: str
    source: str
    submitters_order: str
    send_email: bool
    roles: list[Role]
    fields: list[Field]
    documents: list[SubmissionDocument]
    preferences: Preferences
    variables: FreeObject
    expire_at: datetime | None
    expired_at: datetime | None
    declined_at: datetime | None
    completed_at: datetime | None
    archived_at: datetime | None
    created_at: datetime
    updated_at: datetime


@dataclasses.dataclass(frozen=True, slots=True)
class Submitter:
    id: int
    submission_id: int
    account_id: int
    uuid: str
    slug: str
    role_uuid: str
    role: str
    position: int
    name: str | None
    email: str | None
    phone: str | None
    external_id: str | None
    metadata: FreeObject
    preferences: Preferences
    field_values: FieldValues
    ip: str | None
    ua: str | None
    decline_reason: str | None
    invited_at: datetime | None
    sent_at: datetime | None
    opened_at: datetime | None
    started_at: datetime | None
    completed_at: datetime | None
    declined_at: datetime | None
    created_at: datetime
    updated_at: datetime


@dataclasses.dataclass(frozen=True, slots=True)
class SubmissionEvent:
    id: int
    submission_id: int
    submitter_id: int | None
    event_type: str
    data: dict[str, Any]
    event_timestamp: datetime


@dataclasses.dataclass(frozen=True, slots=True)
class Attachment:
    """A file a submission owns as a value, with what a link needs, who gave it and its size."""

    blob_id: int
    uuid: str
    filename: str
    submitter_id: int | None
    byte_size: int


@dataclasses.dataclass(frozen=True, slots=True)
class ResultDocument:
    """A file completion produced (storage/migrations 0006 names the kinds), with its blob's uuid and name."""

    id: int
    submission_id: int
    submitter_id: int | None
    kind: str
    position: int
    name: str
    blob_id: int
    blob_uuid: str
    filename: str
    sha256: str
    values_sha256: str | None
    created_at: datetime
    pades_level: str | None  # a signed file's PAdES level: B-B, B-T, B-LT or B-LTA
    timestamp_renew_at: datetime | None = None  # when its archive timestamp is to be renewed


@dataclasses.dataclass(frozen=True, slots=True)
class SigningCertificate:
    id: int
    sha256: str
    cert_pem: str
    chain_pems: list[str]
    key_pem: str | None
    source: str
    created_at: datetime
    retired_at: datetime | None
    ca_key_sealed: str | None  # the root CA's key, encrypted (signsvc/results/ca_key.py)


@dataclasses.dataclass(frozen=True, slots=True)
class SigningCrl:
    """The current CRL (DER as base64) of a CA whose key the service holds, by the CA certificate's hash."""

    issuer_sha256: str
    crl: str
    this_update: datetime
    next_update: datetime


@dataclasses.dataclass(frozen=True, slots=True)
class TimestampDue:
    """A stored file whose archive timestamp is due for renewal."""

    blob_id: int
    renew_at: datetime
    account_id: int
