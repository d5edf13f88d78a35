-- put_email_code --
-- Keeps the code just sent to a submitter, in place of the one sent before (and its wrong tries).
INSERT INTO email_codes (submitter_id, digest, expires_at, wrong_tries) VALUES (:submitter_id, :digest, :expires_at, 0)
ON CONFLICT (submitter_id) DO UPDATE SET digest = excluded.digest, expires_at = excluded.expires_at, wrong_tries = 0

-- email_code --
-- The code last sent to a submitter, if it was not used.
SELECT submitter_id, digest, expires_at, wrong_tries FROM email_codes WHERE submitter_id = :submitter_id

-- use_email_code --
-- Uses a submitter's code when it is the one typed and still works: deleted by the one request that answers it.
DELETE FROM email_codes WHERE submitter_id = :submitter_id AND digest = :digest AND expires_at > :now
RETURNING submitter_id

-- miss_email_code --
-- Counts a wrong try on a submitter's code; answers the code with the tries so far.
UPDATE email_codes SET wrong_tries = wrong_tries + 1 WHERE submitter_id = :submitter_id
RETURNING submitter_id, digest, expires_at, wrong_tries

-- drop_email_code --
-- Deletes a submitter's code that was tried too often, unless another was sent since.
DELETE FROM email_codes WHERE submitter_id = :submitter_id AND digest = :digest

-- email_codes_sent_since --
-- How many codes were sent to a submitter since a time (the submission's `send_2fa_email` events).
SELECT COUNT(*) AS sent FROM submission_events
WHERE submission_id = :submission_id AND submitter_id = :submitter_id AND event_type = 'send_2fa_email'
  AND event_timestamp > :since
