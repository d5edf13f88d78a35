-- put_email_code --
-- Keeps the code just sent to a submitter, in place of the one sent before.
INSERT INTO email_codes (submitter_id, digest, expires_at) VALUES (:submitter_id, :digest, :expires_at)
ON CONFLICT (submitter_id) DO UPDATE SET digest = excluded.digest, expires_at = excluded.expires_at

-- email_code --
-- The code last sent to a submitter, if it was not used.
SELECT submitter_id, digest, expires_at FROM email_codes WHERE submitter_id = :submitter_id

-- forget_email_code --
-- Forgets a submitter's code (it was used); answers it when there was one.
DELETE FROM email_codes WHERE submitter_id = :submitter_id RETURNING submitter_id
