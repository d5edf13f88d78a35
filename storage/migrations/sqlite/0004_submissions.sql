-- Submissions with their signers, audit trail and attachments, and the email outbox.

-- A submission keeps its own copy of the template's roles, fields and documents: later template
-- edits or a deleted template leave it as it was sent.
CREATE TABLE submissions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    template_id INTEGER REFERENCES templates (id) ON DELETE SET NULL,
    created_by_user_id INTEGER NOT NULL REFERENCES users (id),
    slug TEXT NOT NULL UNIQUE,
    envelope_id TEXT NOT NULL UNIQUE,
    name TEXT,
    template_name TEXT NOT NULL,
    source TEXT NOT NULL,
    submitters_order TEXT NOT NULL,
    send_email INTEGER NOT NULL,
    roles TEXT NOT NULL,
    fields TEXT NOT NULL,
    documents TEXT NOT NULL,
    preferences TEXT NOT NULL,
    variables TEXT NOT NULL,
    expire_at TEXT,
    expired_at TEXT,
    declined_at TEXT,
    completed_at TEXT,
    archived_at TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX submissions_account ON submissions (account_id, id);
CREATE INDEX submissions_template ON submissions (template_id, id);

CREATE TABLE submitters (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    submission_id INTEGER NOT NULL REFERENCES submissions (id) ON DELETE CASCADE,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    uuid TEXT NOT NULL UNIQUE,
    slug TEXT NOT NULL UNIQUE,
    role_uuid TEXT NOT NULL,
    role TEXT NOT NULL,
    position INTEGER NOT NULL,
    name TEXT,
    email TEXT,
    phone TEXT,
    external_id TEXT,
    metadata TEXT NOT NULL,
    preferences TEXT NOT NULL,
    field_values TEXT NOT NULL,
    ip TEXT,
    ua TEXT,
    decline_reason TEXT,
    invited_at TEXT,
    sent_at TEXT,
    opened_at TEXT,
    started_at TEXT,
    completed_at TEXT,
    declined_at TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX submitters_submission ON submitters (submission_id, position);
CREATE INDEX submitters_account ON submitters (account_id, id);
CREATE INDEX submitters_external_id ON submitters (account_id, external_id);
CREATE INDEX submitters_completed ON submitters (account_id, completed_at);

-- The audit trail: what each signer did, shown in the submission and the audit log.
CREATE TABLE submission_events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    submission_id INTEGER NOT NULL REFERENCES submissions (id) ON DELETE CASCADE,
    submitter_id INTEGER REFERENCES submitters (id) ON DELETE CASCADE,
    event_type TEXT NOT NULL,
    data TEXT NOT NULL,
    event_timestamp TEXT NOT NULL
);
CREATE INDEX submission_events_submission ON submission_events (submission_id, id);

-- Files a submission owns besides its documents: signatures, images and uploads given as values.
CREATE TABLE submission_attachments (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    submission_id INTEGER NOT NULL REFERENCES submissions (id) ON DELETE CASCADE,
    submitter_id INTEGER REFERENCES submitters (id) ON DELETE CASCADE,
    blob_id INTEGER NOT NULL REFERENCES blobs (id),
    created_at TEXT NOT NULL
);
CREATE INDEX submission_attachments_submission ON submission_attachments (submission_id);

-- Outgoing email: written in the transaction that decides to send it, sent by a job.
CREATE TABLE emails (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    kind TEXT NOT NULL,
    submitter_id INTEGER REFERENCES submitters (id) ON DELETE SET NULL,
    to_address TEXT NOT NULL,
    reply_to TEXT,
    subject TEXT NOT NULL,
    text_body TEXT NOT NULL,
    html_body TEXT NOT NULL,
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    created_at TEXT NOT NULL,
    sent_at TEXT
);
CREATE INDEX emails_account ON emails (account_id, id);
