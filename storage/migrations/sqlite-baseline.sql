-- What migrations 0001 to 0030 make in a new SQLite database, at once (storage/baseline.py).
-- Written by `python -m storage.baseline`: not edited by hand.
-- version 30

CREATE TABLE accounts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    is_test INTEGER NOT NULL DEFAULT 0,
    linked_account_id INTEGER REFERENCES accounts (id),
    api_access_approved INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL
);

CREATE TABLE users (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    email TEXT NOT NULL UNIQUE,
    first_name TEXT,
    last_name TEXT,
    created_at TEXT NOT NULL,
    archived_at TEXT
, password_hash TEXT, is_admin INTEGER NOT NULL DEFAULT 0, session_epoch INTEGER NOT NULL DEFAULT 0);

CREATE TABLE api_keys (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id INTEGER NOT NULL REFERENCES users (id),
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    mode TEXT NOT NULL,
    key_hash TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    revoked_at TEXT
, key_sealed TEXT);

CREATE UNIQUE INDEX api_keys_one_active ON api_keys (user_id, mode) WHERE revoked_at IS NULL;

CREATE TABLE settings (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE jobs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,
    status TEXT NOT NULL,
    run_at TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    locked_by TEXT,
    locked_until TEXT,
    last_error TEXT,
    dedupe_key TEXT UNIQUE,
    created_at TEXT NOT NULL
);

CREATE INDEX jobs_due ON jobs (status, run_at);

CREATE TABLE rate_limit_hits (
    bucket TEXT NOT NULL,
    window_start INTEGER NOT NULL,
    hits INTEGER NOT NULL,
    PRIMARY KEY (bucket, window_start)
);

CREATE TABLE blobs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    uuid TEXT NOT NULL UNIQUE,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    sha256 TEXT NOT NULL,
    filename TEXT NOT NULL,
    content_type TEXT NOT NULL,
    byte_size INTEGER NOT NULL,
    created_at TEXT NOT NULL
);

CREATE INDEX blobs_sha256 ON blobs (sha256);

CREATE TABLE blob_contents (
    sha256 TEXT PRIMARY KEY,
    data BLOB NOT NULL
);

CREATE TABLE template_folders (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    name TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (account_id, name)
);

CREATE TABLE templates (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    author_id INTEGER NOT NULL REFERENCES users (id),
    folder_id INTEGER NOT NULL REFERENCES template_folders (id),
    slug TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    external_id TEXT,
    source TEXT NOT NULL,
    roles TEXT NOT NULL,
    fields TEXT NOT NULL,
    preferences TEXT NOT NULL,
    combined_blob_id INTEGER REFERENCES blobs (id),
    shared_link INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    archived_at TEXT
, variables_schema TEXT NOT NULL DEFAULT '{}');

CREATE INDEX templates_account ON templates (account_id, id);

CREATE INDEX templates_external_id ON templates (account_id, external_id);

CREATE VIEW template_records AS
SELECT templates.*, template_folders.name AS folder_name, users.email AS author_email,
       users.first_name AS author_first_name, users.last_name AS author_last_name,
       combined.uuid AS combined_uuid, combined.filename AS combined_filename
FROM templates
JOIN template_folders ON template_folders.id = templates.folder_id
JOIN users ON users.id = templates.author_id
LEFT JOIN blobs AS combined ON combined.id = templates.combined_blob_id;

CREATE TABLE template_documents (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    template_id INTEGER NOT NULL REFERENCES templates (id) ON DELETE CASCADE,
    uuid TEXT NOT NULL,
    position INTEGER NOT NULL,
    name TEXT NOT NULL,
    blob_id INTEGER NOT NULL REFERENCES blobs (id),
    pages TEXT NOT NULL,
    previews TEXT NOT NULL
, conditions TEXT NOT NULL DEFAULT '[]', source_blob_id INTEGER REFERENCES blobs (id));

CREATE INDEX template_documents_template ON template_documents (template_id, position);

CREATE TABLE events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    uuid TEXT NOT NULL UNIQUE,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    event_type TEXT NOT NULL,
    record_type TEXT NOT NULL,
    record_id INTEGER NOT NULL,
    created_at TEXT NOT NULL
);

CREATE INDEX events_account ON events (account_id, id);

CREATE TABLE clickwraps (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    author_id INTEGER NOT NULL REFERENCES users (id),
    slug TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    settings TEXT NOT NULL,
    active_version_number INTEGER,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
, archived_at TEXT);

CREATE INDEX clickwraps_account ON clickwraps (account_id, id);

CREATE TABLE clickwrap_versions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    clickwrap_id INTEGER NOT NULL REFERENCES clickwraps (id),
    number INTEGER NOT NULL,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    settings TEXT NOT NULL,
    published_at TEXT NOT NULL,
    UNIQUE (clickwrap_id, number)
);

CREATE TABLE consents (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    clickwrap_id INTEGER NOT NULL REFERENCES clickwraps (id),
    clickwrap_version_number INTEGER NOT NULL,
    name TEXT,
    email TEXT,
    external_id TEXT,
    ip TEXT,
    user_agent TEXT,
    agreed_at TEXT NOT NULL
, uuid TEXT, source TEXT NOT NULL DEFAULT 'api', checkboxes TEXT NOT NULL DEFAULT '[]', submission_id INTEGER REFERENCES submissions (id) ON DELETE SET NULL, certificate_blob_id INTEGER REFERENCES blobs (id), certificate_pades_level TEXT, certificate_timestamp_renew_at TEXT, language TEXT);

CREATE INDEX consents_clickwrap ON consents (clickwrap_id, id);

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

CREATE TABLE submission_events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    submission_id INTEGER NOT NULL REFERENCES submissions (id) ON DELETE CASCADE,
    submitter_id INTEGER REFERENCES submitters (id) ON DELETE CASCADE,
    event_type TEXT NOT NULL,
    data TEXT NOT NULL,
    event_timestamp TEXT NOT NULL
);

CREATE INDEX submission_events_submission ON submission_events (submission_id, id);

CREATE TABLE submission_attachments (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    submission_id INTEGER NOT NULL REFERENCES submissions (id) ON DELETE CASCADE,
    submitter_id INTEGER REFERENCES submitters (id) ON DELETE CASCADE,
    blob_id INTEGER NOT NULL REFERENCES blobs (id),
    created_at TEXT NOT NULL
);

CREATE INDEX submission_attachments_submission ON submission_attachments (submission_id);

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
, attachments TEXT NOT NULL DEFAULT '[]', recipient TEXT NOT NULL DEFAULT '');

CREATE INDEX emails_account ON emails (account_id, id);

CREATE TABLE webhook_endpoints (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    url TEXT NOT NULL,
    events TEXT NOT NULL,
    secret_header TEXT,
    secret TEXT,
    configured INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (account_id, url)
);

CREATE TABLE webhook_deliveries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    endpoint_id INTEGER NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    event_id INTEGER NOT NULL REFERENCES events (id),
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    failures INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (endpoint_id, event_id)
);

CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, id);

CREATE TABLE webhook_attempts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    delivery_id INTEGER NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    number INTEGER NOT NULL,
    attempted_at TEXT NOT NULL,
    response_status INTEGER,
    error TEXT,
    duration_ms INTEGER NOT NULL
);

CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery_id, number);

CREATE VIEW webhook_delivery_records AS
SELECT webhook_deliveries.*, events.uuid AS event_uuid, events.event_type, events.record_type, events.record_id,
       events.account_id, events.created_at AS event_created_at, webhook_endpoints.url,
       webhook_endpoints.secret_header, webhook_endpoints.secret
FROM webhook_deliveries
JOIN events ON events.id = webhook_deliveries.event_id
JOIN webhook_endpoints ON webhook_endpoints.id = webhook_deliveries.endpoint_id;

CREATE INDEX jobs_leases ON jobs (locked_until) WHERE status = 'running';

CREATE TABLE result_documents (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    submission_id INTEGER NOT NULL REFERENCES submissions (id) ON DELETE CASCADE,
    submitter_id INTEGER REFERENCES submitters (id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    position INTEGER NOT NULL,
    name TEXT NOT NULL,
    blob_id INTEGER NOT NULL REFERENCES blobs (id),
    sha256 TEXT NOT NULL,
    values_sha256 TEXT,
    created_at TEXT NOT NULL
, pades_level TEXT, timestamp_renew_at TEXT);

CREATE UNIQUE INDEX result_documents_slot ON result_documents (submission_id, kind, COALESCE(submitter_id, 0), position);

CREATE INDEX result_documents_sha256 ON result_documents (sha256);

CREATE TABLE signing_certificates (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    sha256 TEXT NOT NULL UNIQUE,
    cert_pem TEXT NOT NULL,
    chain_pems TEXT NOT NULL,
    key_pem TEXT,
    source TEXT NOT NULL,
    created_at TEXT NOT NULL,
    retired_at TEXT
, ca_key_sealed TEXT);

CREATE UNIQUE INDEX signing_certificates_current ON signing_certificates (source)
    WHERE source = 'generated' AND retired_at IS NULL;

CREATE INDEX events_record ON events (record_type, record_id);

CREATE TABLE form_posts (
    token TEXT PRIMARY KEY,
    record_type TEXT NOT NULL,
    record_id INTEGER,
    created_at TEXT NOT NULL
);

CREATE TABLE user_links (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id INTEGER NOT NULL REFERENCES users (id),
    purpose TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    expires_at TEXT NOT NULL,
    used_at TEXT,
    created_at TEXT NOT NULL
);

CREATE INDEX user_links_user ON user_links (user_id);

CREATE TABLE change_counters (
    channel TEXT PRIMARY KEY,
    counter INTEGER NOT NULL
);

CREATE TRIGGER api_keys_updated AFTER UPDATE ON api_keys
BEGIN UPDATE change_counters SET counter = counter + 1 WHERE channel = 'principals'; END;

CREATE TRIGGER api_keys_deleted AFTER DELETE ON api_keys
BEGIN UPDATE change_counters SET counter = counter + 1 WHERE channel = 'principals'; END;

CREATE TRIGGER users_updated AFTER UPDATE ON users
BEGIN UPDATE change_counters SET counter = counter + 1 WHERE channel = 'principals'; END;

CREATE TRIGGER users_deleted AFTER DELETE ON users
BEGIN UPDATE change_counters SET counter = counter + 1 WHERE channel = 'principals'; END;

CREATE TRIGGER accounts_updated AFTER UPDATE ON accounts
BEGIN UPDATE change_counters SET counter = counter + 1 WHERE channel = 'principals'; END;

CREATE TRIGGER accounts_deleted AFTER DELETE ON accounts
BEGIN UPDATE change_counters SET counter = counter + 1 WHERE channel = 'principals'; END;

CREATE INDEX jobs_kind_due ON jobs (kind, run_at, id) WHERE status = 'pending';

CREATE INDEX webhook_deliveries_created ON webhook_deliveries (created_at);

CREATE INDEX emails_created ON emails (created_at);

CREATE INDEX form_posts_created ON form_posts (created_at);

CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id);

CREATE INDEX events_prunable ON events (created_at)
    WHERE event_type NOT IN ('form.completed', 'submission.completed', 'consent.created');

CREATE TABLE content_removals (
    sha256 TEXT PRIMARY KEY,
    due_at TEXT NOT NULL
);

CREATE INDEX content_removals_due ON content_removals (due_at);

CREATE TABLE form_nonces (
    nonce TEXT PRIMARY KEY,
    page TEXT NOT NULL,
    expires_at TEXT NOT NULL
);

CREATE INDEX form_nonces_expiry ON form_nonces (expires_at);

CREATE TABLE sign_in_failures (
    email TEXT NOT NULL,
    address TEXT NOT NULL,
    failures INTEGER NOT NULL,
    failed_at TEXT NOT NULL,
    PRIMARY KEY (email, address)
);

CREATE INDEX sign_in_failures_failed_at ON sign_in_failures (failed_at);

CREATE INDEX emails_recipient ON emails (account_id, recipient, created_at);

CREATE TABLE email_codes (
    submitter_id INTEGER PRIMARY KEY REFERENCES submitters (id) ON DELETE CASCADE,
    digest TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    wrong_tries INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE account_settings (
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    name TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (account_id, name)
);

CREATE TABLE signing_crls (
    issuer_sha256 TEXT PRIMARY KEY,
    crl TEXT NOT NULL,
    this_update TEXT NOT NULL,
    next_update TEXT NOT NULL
);

CREATE INDEX result_documents_timestamp_renew_at ON result_documents (timestamp_renew_at)
    WHERE timestamp_renew_at IS NOT NULL;

CREATE TABLE result_document_versions (
    sha256 TEXT NOT NULL,
    result_document_id INTEGER NOT NULL REFERENCES result_documents (id) ON DELETE CASCADE,
    PRIMARY KEY (sha256, result_document_id)
);

CREATE INDEX consents_certificate_timestamp_renew_at ON consents (certificate_timestamp_renew_at)
    WHERE certificate_timestamp_renew_at IS NOT NULL;

CREATE TABLE signature_origins (
    blob_uuid TEXT PRIMARY KEY REFERENCES blobs (uuid) ON DELETE CASCADE,
    made_as TEXT,
    reason TEXT
);

CREATE TABLE phone_handoffs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    submitter_id INTEGER NOT NULL REFERENCES submitters (id) ON DELETE CASCADE,
    field_uuid TEXT NOT NULL,
    digest TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    used_at TEXT,
    value TEXT
);

CREATE INDEX phone_handoffs_expiry ON phone_handoffs (expires_at);

CREATE TABLE timestamp_authorities (
    sha256 TEXT PRIMARY KEY,
    cert_pem TEXT NOT NULL,
    first_seen_at TEXT NOT NULL
);

INSERT INTO change_counters VALUES ('principals', 0);
