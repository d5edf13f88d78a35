-- Result documents (what completion produces) and the certificates that sign them.

-- `kind`: `signer` (a signer's documents, with the values of every signer completed so far),
-- `final` (the signed documents of a completed submission), `audit_log`, `combined`, `preview`
-- (unsigned, while signing is in progress) or `merged` (the documents in one file, on request);
-- `values_sha256` names what a file made on demand shows, so it is made again only when that changes.
-- One row per slot: a completion job that runs again finds its rows and produces nothing twice.
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
);
CREATE UNIQUE INDEX result_documents_slot ON result_documents (submission_id, kind, COALESCE(submitter_id, 0), position);
CREATE INDEX result_documents_sha256 ON result_documents (sha256);

-- Every certificate the service has signed with, kept after a rotation so older files still verify.
-- `key_pem` is null for a certificate whose key lives in a configured PKCS#12 file; the newest
-- generated row without `retired_at` signs when no PKCS#12 is configured.
CREATE TABLE signing_certificates (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    sha256 TEXT NOT NULL UNIQUE,
    cert_pem TEXT NOT NULL,
    chain_pems TEXT NOT NULL,
    key_pem TEXT,
    source TEXT NOT NULL,
    created_at TEXT NOT NULL,
    retired_at TEXT
);
-- One generated certificate signs at a time, even when several processes make one on their first start.
CREATE UNIQUE INDEX signing_certificates_current ON signing_certificates (source)
    WHERE source = 'generated' AND retired_at IS NULL;

-- Files an email carries (blob ids): the completed copy attaches the signed documents and audit log.
ALTER TABLE emails ADD COLUMN attachments TEXT NOT NULL DEFAULT '[]';

-- The events of one record: a completion job looks for its `form.completed` to know it ran.
CREATE INDEX events_record ON events (record_type, record_id);
