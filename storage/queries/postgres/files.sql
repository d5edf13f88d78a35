-- get_blobs --
-- The stored files with the given ids.
SELECT * FROM blobs WHERE id = ANY(CAST(:ids AS BIGINT[]))

-- find_account_blobs --
-- The files of an account among the given uuids.
SELECT * FROM blobs WHERE account_id = :account_id AND uuid = ANY(CAST(:uuids AS TEXT[]))
