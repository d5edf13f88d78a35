-- claim_form_post --
-- The first post of a public form's token claims it; a later one gets nothing back.
INSERT INTO form_posts (token, record_type, created_at) VALUES (:token, :record_type, :now)
ON CONFLICT (token) DO NOTHING
RETURNING token

-- get_form_post --
-- What an earlier post of a form's token made.
SELECT record_type, record_id FROM form_posts WHERE token = :token

-- settle_form_post --
-- Records what the post of a form's token made.
UPDATE form_posts SET record_id = :record_id WHERE token = :token

-- release_form_post --
-- Gives a form's token back when its post made nothing, so that the form can be posted again.
DELETE FROM form_posts WHERE token = :token AND record_id IS NULL
