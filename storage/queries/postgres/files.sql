-- find_account_blobs --
-- The files of an account among the given uuids.
SELECT * FROM blobs WHERE account_id = :account_id AND uuid = ANY(CAST(:uuids AS TEXT[]))
