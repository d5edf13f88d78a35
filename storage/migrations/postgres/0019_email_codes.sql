-- The code last sent to a submitter to prove their email address (`require_email_2fa`): its HMAC, bound to the
-- address it went to, when it stops working, and the wrong codes typed since it was sent. A new code replaces the
-- last one; the right one, once typed, is deleted, and so is one after five wrong tries. The row goes with its
-- submitter.
CREATE TABLE email_codes (
    submitter_id BIGINT PRIMARY KEY REFERENCES submitters (id) ON DELETE CASCADE,
    digest TEXT NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL,
    wrong_tries INTEGER NOT NULL DEFAULT 0
);
