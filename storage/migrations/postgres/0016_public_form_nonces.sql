-- The nonces of the public pages' forms: each page view (`/d/{slug}`, `/c/{slug}`) stores one for the form it
-- renders, bound to the page's path and good until `expires_at`; a post must carry one. Expired ones are
-- deleted as new ones are issued, walking `form_nonces_expiry`.
CREATE TABLE form_nonces (
    nonce TEXT PRIMARY KEY,
    page TEXT NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX form_nonces_expiry ON form_nonces (expires_at);

-- An account's emails to an address in the last hour, counted for the cap on emails per recipient (lower-cased,
-- as addresses are compared).
CREATE INDEX emails_recipient ON emails (account_id, lower(to_address), created_at);
