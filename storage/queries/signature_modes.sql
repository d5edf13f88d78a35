-- put_signature_origin --
-- Records how a signature file was made and the reason chosen for it; what is not given keeps its stored value.
INSERT INTO signature_origins (blob_uuid, made_as, reason) VALUES (:blob_uuid, :made_as, :reason)
ON CONFLICT (blob_uuid) DO UPDATE SET made_as = COALESCE(excluded.made_as, signature_origins.made_as),
    reason = COALESCE(excluded.reason, signature_origins.reason)

-- signature_origins_of --
-- How the signature files with the given uuids (a JSON array) were made, and their reasons.
SELECT blob_uuid, made_as, reason FROM signature_origins WHERE blob_uuid IN (SELECT value FROM json_each(:uuids))

-- insert_phone_handoff --
-- A one-time link for a signer to draw a field on a phone, kept by its digest.
INSERT INTO phone_handoffs (submitter_id, field_uuid, digest, created_at, expires_at)
VALUES (:submitter_id, :field_uuid, :digest, :now, :expires_at)
RETURNING id, submitter_id, field_uuid, created_at, expires_at, used_at, value

-- phone_handoff_by_digest --
-- The hand-off a link names, by the link's digest.
SELECT id, submitter_id, field_uuid, created_at, expires_at, used_at, value FROM phone_handoffs WHERE digest = :digest

-- phone_handoff --
-- A signer's hand-off by its id.
SELECT id, submitter_id, field_uuid, created_at, expires_at, used_at, value FROM phone_handoffs
WHERE id = :id AND submitter_id = :submitter_id

-- use_phone_handoff --
-- Takes a hand-off that is unused and not expired: the one request that answers it uses it.
UPDATE phone_handoffs SET used_at = :now WHERE digest = :digest AND used_at IS NULL AND expires_at > :now
RETURNING id, submitter_id, field_uuid, created_at, expires_at, used_at, value

-- set_phone_handoff_value --
-- The file a used hand-off gave.
UPDATE phone_handoffs SET value = :value WHERE id = :id

-- delete_old_phone_handoffs --
-- Forgets a few hand-offs that expired before :before (a day ago).
DELETE FROM phone_handoffs WHERE id IN (SELECT id FROM phone_handoffs WHERE expires_at < :before ORDER BY expires_at LIMIT 20)
