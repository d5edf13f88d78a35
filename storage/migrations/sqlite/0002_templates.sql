-- Stored files, template folders, templates with their documents, and the events outbox.

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
);
CREATE INDEX templates_account ON templates (account_id, id);
CREATE INDEX templates_external_id ON templates (account_id, external_id);

-- A template with its folder name, its author and its combined PDF: what every read of a template needs.
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
);
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
