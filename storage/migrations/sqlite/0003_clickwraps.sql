-- Clickwraps with their editable draft, their immutable published versions, and consents.

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
);
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
);
CREATE INDEX consents_clickwrap ON consents (clickwrap_id, id);
