-- The console: users sign in with a password (kept as a scrypt hash); the instance administrator is the
-- first user of the first account unless the CLI names another; one-time links set a first password
-- (setup, invitations) or a new one (reset), kept as hashes like API keys.
ALTER TABLE users ADD COLUMN password_hash TEXT;
ALTER TABLE users ADD COLUMN is_admin INTEGER NOT NULL DEFAULT 0;
UPDATE users SET is_admin = 1 WHERE id = (SELECT MIN(id) FROM users);

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
