-- issue_form_nonce --
-- A nonce for the form of a public page's view, good until :expires_at.
INSERT INTO form_nonces (nonce, page, expires_at) VALUES (:nonce, :page, :expires_at)

-- form_nonce_valid --
-- The nonce when it was issued for :page and has not expired.
SELECT nonce FROM form_nonces WHERE nonce = :nonce AND page = :page AND expires_at > :now

-- prune_form_nonces --
-- Forgets up to :limit nonces expired before :now, oldest first.
DELETE FROM form_nonces
WHERE nonce IN (
    SELECT nonce FROM form_nonces
    WHERE expires_at <= :now
    ORDER BY expires_at
    LIMIT :limit
)
