-- A clickwrap may be archived: its page then says it is no longer available.
ALTER TABLE clickwraps ADD COLUMN archived_at TIMESTAMPTZ;

-- Consents given on a clickwrap's page carry what the person answered, their certificate and the
-- submission they went on to sign; each public form's post is recorded once by its token, so a
-- second post of the same form (a double click) finds what the first one made.
ALTER TABLE consents ADD COLUMN uuid TEXT;
ALTER TABLE consents ADD COLUMN source TEXT NOT NULL DEFAULT 'api';
ALTER TABLE consents ADD COLUMN checkboxes JSONB NOT NULL DEFAULT '[]';
ALTER TABLE consents ADD COLUMN submission_id BIGINT REFERENCES submissions (id) ON DELETE SET NULL;
ALTER TABLE consents ADD COLUMN certificate_blob_id BIGINT REFERENCES blobs (id);

CREATE TABLE form_posts (
    token TEXT PRIMARY KEY,
    record_type TEXT NOT NULL,
    record_id BIGINT,
    created_at TIMESTAMPTZ NOT NULL
);
