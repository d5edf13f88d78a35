-- Contents whose last file record went: removed from the content store once `due_at` has passed and no record
-- names them again. The grace period covers a request or a host that wrote the same content (an upload of the
-- same document) and is about to record it: contents are written before the transaction that records them.
CREATE TABLE content_removals (
    sha256 TEXT PRIMARY KEY,
    due_at TEXT NOT NULL
);
CREATE INDEX content_removals_due ON content_removals (due_at);
