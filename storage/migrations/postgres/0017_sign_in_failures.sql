-- Failed console sign-ins per email and client address: each one more makes that pair wait longer before the next
-- attempt, so that a stranger's wrong passwords never lock the owner out from their own address. `failed_at` is
-- the last failure; a pair whose last failure is a day old starts again. Unlogged like the rate-limit windows.
CREATE UNLOGGED TABLE sign_in_failures (
    email TEXT NOT NULL,
    address TEXT NOT NULL,
    failures INTEGER NOT NULL,
    failed_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (email, address)
);
CREATE INDEX sign_in_failures_failed_at ON sign_in_failures (failed_at);
