-- insert_clickwrap --
-- A new clickwrap with its draft settings.
INSERT INTO clickwraps (account_id, author_id, slug, name, kind, settings, created_at, updated_at)
VALUES (:account_id, :author_id, :slug, :name, :kind, :settings, :now, :now)
RETURNING *

-- get_clickwrap --
-- One clickwrap by id.
SELECT * FROM clickwraps WHERE id = :id

-- list_clickwraps --
-- A page of an account's clickwraps, newest first.
SELECT * FROM clickwraps
WHERE account_id = :account_id
  AND (CAST(:after AS BIGINT) IS NULL OR id < :after)
  AND (CAST(:before AS BIGINT) IS NULL OR id > :before)
ORDER BY id DESC
LIMIT :limit

-- update_clickwrap_draft --
-- Writes the draft; published versions stay as they are.
UPDATE clickwraps SET name = :name, kind = :kind, settings = :settings, updated_at = :now WHERE id = :id

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
INSERT INTO consents (account_id, clickwrap_id, clickwrap_version_number, name, email, external_id, ip,
                      user_agent, agreed_at)
VALUES (:account_id, :clickwrap_id, :clickwrap_version_number, :name, :email, :external_id, :ip,
        :user_agent, :agreed_at)
RETURNING *

-- get_consent --
-- One consent by id.
SELECT * FROM consents WHERE id = :id

-- list_consents --
-- A page of a clickwrap's consents, newest first.
SELECT * FROM consents
WHERE clickwrap_id = :clickwrap_id
  AND (CAST(:after AS BIGINT) IS NULL OR id < :after)
  AND (CAST(:before AS BIGINT) IS NULL OR id > :before)
ORDER BY id DESC
LIMIT :limit
