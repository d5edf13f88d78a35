-- get_users --
-- The users with the given ids.
SELECT * FROM users WHERE id = ANY(CAST(:ids AS BIGINT[]))
