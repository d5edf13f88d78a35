-- insert_clickwrap --
-- A new clickwrap with its draft settings.
INSERT INTO clickwraps (account_id, author_id, slug, name, kind, settings, created_at, updated_at)
VALUES (:account_id, :author_id, :slug, :name, :kind, :settings, :now, :now)
RETURNING *

-- get_clickwrap --
-- One clickwrap by id.
SELECT * FROM clickwraps WHERE id = :id

-- list_clickwraps --
-- A page of an account's active (or archived) clickwraps, newest first.
SELECT * FROM clickwraps
WHERE account_id = :account_id AND CAST(:archived AS BOOLEAN) = (archived_at IS NOT NULL)
  AND (CAST(:after AS BIGINT) IS NULL OR id < :after)
  AND (CAST(:before AS BIGINT) IS NULL OR id > :before)
ORDER BY id DESC
LIMIT :limit

-- update_clickwrap_draft --
-- Writes the draft; published versions stay as they are.
UPDATE clickwraps SET name = :name, kind = :kind, settings = :settings, archived_at = :archived_at, updated_at = :now
WHERE id = :id

-- next_clickwrap_version --
-- Takes the next version number (the row lock orders concurrent publishes).
UPDATE clickwraps
SET active_version_number = COALESCE(active_version_number, 0) + 1, updated_at = :now
WHERE id = :id
RETURNING active_version_number

-- insert_clickwrap_version --
-- Freezes the draft as a published version.
INSERT INTO clickwrap_versions (clickwrap_id, number, name, kind, settings, published_at)
VALUES (:clickwrap_id, :number, :name, :kind, :settings, :now)

-- get_clickwrap_version --
-- One published version of a clickwrap.
SELECT * FROM clickwrap_versions WHERE clickwrap_id = :clickwrap_id AND number = :number

-- insert_consent --
-- Records an acceptance of the active version.
INSERT INTO consents (account_id, clickwrap_id, clickwrap_version_number, uuid, source, name, email, external_id,
                      ip, user_agent, checkboxes, agreed_at, language)
VALUES (:account_id, :clickwrap_id, :clickwrap_version_number, :uuid, :source, :name, :email, :external_id,
        :ip, :user_agent, :checkboxes, :agreed_at, :language)
RETURNING id

-- set_consent_submission --
-- The submission a consent's person went on to sign.
UPDATE consents SET submission_id = :submission_id WHERE id = :id

-- set_consent_certificate --
-- The certificate made for a consent, unless one was recorded already.
UPDATE consents SET certificate_blob_id = :blob_id, certificate_pades_level = :pades_level,
    certificate_timestamp_renew_at = :renew_at
WHERE id = :id AND certificate_blob_id IS NULL
RETURNING id

-- get_clickwrap_by_slug --
-- The clickwrap a public page's slug names.
SELECT * FROM clickwraps WHERE slug = :slug

-- get_consent --
-- One consent by id, with its certificate's file.
SELECT consents.*, blobs.uuid AS certificate_uuid, blobs.filename AS certificate_filename
FROM consents LEFT JOIN blobs ON blobs.id = consents.certificate_blob_id
WHERE consents.id = :id

-- get_consents --
-- The consents with the given ids (a JSON array), with their certificates' files.
SELECT consents.*, blobs.uuid AS certificate_uuid, blobs.filename AS certificate_filename
FROM consents LEFT JOIN blobs ON blobs.id = consents.certificate_blob_id
WHERE consents.id IN (SELECT value FROM json_each(:ids))

-- list_consents --
-- A page of a clickwrap's consents, newest first, with their certificates' files.
SELECT consents.*, blobs.uuid AS certificate_uuid, blobs.filename AS certificate_filename
FROM consents LEFT JOIN blobs ON blobs.id = consents.certificate_blob_id
WHERE consents.clickwrap_id = :clickwrap_id
  AND (CAST(:after AS BIGINT) IS NULL OR consents.id < :after)
  AND (CAST(:before AS BIGINT) IS NULL OR consents.id > :before)
ORDER BY consents.id DESC
LIMIT :limit
