-- How each signature or initials file a signer gave was made (drawn on the pad, typed and drawn by the service,
-- or an uploaded picture) and the signing reason chosen for it; the row goes with its file record.
CREATE TABLE signature_origins (
    blob_uuid TEXT PRIMARY KEY REFERENCES blobs (uuid) ON DELETE CASCADE,
    made_as TEXT,
    reason TEXT
);

-- One-time links that let a signer draw one signature or initials field on a phone: the link's SHA-256 only,
-- used once (`used_at`), good until `expires_at`; `value` is the file the phone gave.
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
