-- Accounts, users, API keys, settings, durable jobs and rate-limit windows.

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
);

CREATE TABLE api_keys (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id INTEGER NOT NULL REFERENCES users (id),
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    mode TEXT NOT NULL,
    key_hash TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    revoked_at TEXT
);
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
