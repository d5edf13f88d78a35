"""Frozen records: what storage answers instead of rows (`storage/rows.py` converts them)."""

from __future__ import annotations

import dataclasses
import enum
from datetime import datetime
from typing import Any

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


class KeyMode(enum.StrEnum):
    LIVE = "live"
    TEST = "test"


@dataclasses.dataclass(frozen=True, slots=True)
class Account:
    id: int
    name: str
    is_test: bool
    linked_account_id: int | None  # set right after the pair is inserted
    api_access_approved: bool
    created_at: datetime

    @property
    def linked_id(self) -> int:
        """The linked test account of a live account, or the live account of a test account."""
        if self.linked_account_id is None:
            raise LookupError(f"account {self.id} has no linked account")
        return self.linked_account_id


@dataclasses.dataclass(frozen=True, slots=True)
class User:
    id: int
    account_id: int
    email: str
    first_name: str | None
    last_name: str | None
    created_at: datetime
    archived_at: datetime | None
    password_hash: str | None
    is_admin: bool
    session_epoch: int


@dataclasses.dataclass(frozen=True, slots=True)
class UserLink:
    """A one-time link that sets a user's password: `setup` (first start, invitations) or `reset`."""

    id: int
    user_id: int
    purpose: str
    token_hash: str
    expires_at: datetime
    used_at: datetime | None
    created_at: datetime


@dataclasses.dataclass(frozen=True, slots=True)
class ApiKey:
    """A key of a user for one mode: found by its hash; `key_sealed` is the key encrypted with a key derived from
    the service's secret key, for the console to show it again (None for keys made before keys were sealed)."""

    id: int
    user_id: int
    account_id: int
    mode: KeyMode
    key_hash: str
    created_at: datetime
    revoked_at: datetime | None
    key_sealed: str | None


@dataclasses.dataclass(frozen=True, slots=True)
class Principal:
    """Who a request acts as: a user through one of their keys, addressing one account."""

    key_id: int
    mode: KeyMode
    user_id: int
    email: str
    first_name: str | None
    last_name: str | None
    account_id: int
    linked_account_id: int | None
    api_access_approved: bool
    # The addressed account's name (accounts are never renamed), where it was read with the principal.
    account_name: str | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class Blob:
    id: int
    uuid: str
    account_id: int
    sha256: str
    filename: str
    content_type: str
    byte_size: int
    created_at: datetime


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
