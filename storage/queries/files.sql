-- insert_blob --
-- Records a stored file of an account.
INSERT INTO blobs (uuid, account_id, sha256, filename, content_type, byte_size, created_at)
VALUES (:uuid, :account_id, :sha256, :filename, :content_type, :byte_size, :created_at)
RETURNING *

-- get_blob --
-- One stored file by id.
SELECT * FROM blobs WHERE id = :id

-- get_blobs --
-- The stored files with the given ids (a JSON array).
SELECT * FROM blobs WHERE id IN (SELECT value FROM json_each(:ids))

-- find_blob --
-- One stored file by uuid (the id signed links carry).
SELECT * FROM blobs WHERE uuid = :uuid

-- delete_blob --
-- Forgets a stored file; its content goes once no file refers to it.
DELETE FROM blobs WHERE id = :id RETURNING sha256

-- count_blobs_with_content --
-- How many stored files share this content.
SELECT COUNT(*) AS count FROM blobs WHERE sha256 = :sha256

-- put_content --
-- Keeps file content in the database (the database content store).
INSERT INTO blob_contents (sha256, data) VALUES (:sha256, :data) ON CONFLICT (sha256) DO NOTHING

-- get_content --
-- File content kept in the database.
SELECT data FROM blob_contents WHERE sha256 = :sha256

-- has_content --
-- Whether file content is kept in the database.
SELECT 1 AS found FROM blob_contents WHERE sha256 = :sha256

-- stored_contents --
-- The content of every stored file, once each, in order (the contents to move to another store).
SELECT DISTINCT sha256 FROM blobs WHERE sha256 > :after ORDER BY sha256 LIMIT :limit

-- delete_content --
-- Removes file content kept in the database.
DELETE FROM blob_contents WHERE sha256 = :sha256

-- clear_contents --
-- Forgets every stored file content (a reset of the service's data).
DELETE FROM blob_contents

-- schedule_content_removal --
-- Removes a content from its store at :due_at unless a file names it again by then (a later schedule wins).
INSERT INTO content_removals (sha256, due_at) VALUES (:sha256, :due_at)
ON CONFLICT (sha256) DO UPDATE SET due_at = excluded.due_at

-- due_content_removals --
-- Contents due for removal, the longest due first.
SELECT sha256 FROM content_removals WHERE due_at <= :now ORDER BY due_at LIMIT :limit

-- forget_content_removal --
-- A removal done, or no longer wanted (a file names the content again).
DELETE FROM content_removals WHERE sha256 = :sha256

-- find_account_blobs --
-- The files of an account among the given uuids (a JSON array).
SELECT * FROM blobs WHERE account_id = :account_id AND uuid IN (SELECT value FROM json_each(:uuids))

-- replace_blob_content --
-- A stored file's content replaced by a new version (a result whose archive timestamp was renewed); answers the
-- file, or nothing when the file is gone or no longer holds `old_sha256`.
UPDATE blobs SET sha256 = :sha256, byte_size = :byte_size
WHERE id = :id AND sha256 = :old_sha256
RETURNING id
