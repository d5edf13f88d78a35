-- Settings of an account (its reminder delays, the wording of its reminder emails): a JSON text by name.
CREATE TABLE account_settings (
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    name TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (account_id, name)
);
