-- hit_rate_limit --
-- Counts requests in a bucket's window and answers the count so far.
INSERT INTO rate_limit_hits (bucket, window_start, hits) VALUES (:bucket, :window_start, :hits)
ON CONFLICT (bucket, window_start) DO UPDATE SET hits = rate_limit_hits.hits + excluded.hits
RETURNING bucket, hits

-- hit_rate_limits --
-- Counts requests in two buckets' windows at once (an API key and a client address).
INSERT INTO rate_limit_hits (bucket, window_start, hits)
VALUES (:bucket, :window_start, :hits), (:other_bucket, :window_start, :other_hits)
ON CONFLICT (bucket, window_start) DO UPDATE SET hits = rate_limit_hits.hits + excluded.hits
RETURNING bucket, hits

-- prune_rate_limits --
-- Forgets windows that ended.
DELETE FROM rate_limit_hits WHERE window_start < :before

-- sign_in_failures --
-- The failed sign-ins of an email from a client address, and when the last one was.
SELECT failures, failed_at FROM sign_in_failures WHERE email = :email AND address = :address

-- sign_in_failed --
-- Counts a failed sign-in of an email from a client address; a pair whose last failure is older than
-- :forget_before starts again from one.
INSERT INTO sign_in_failures (email, address, failures, failed_at) VALUES (:email, :address, 1, :now)
ON CONFLICT (email, address) DO UPDATE SET
    failures = CASE WHEN sign_in_failures.failed_at < :forget_before THEN 1 ELSE sign_in_failures.failures + 1 END,
    failed_at = excluded.failed_at

-- forget_sign_in_failures --
-- An email signed in from a client address: its failures from there are forgotten.
DELETE FROM sign_in_failures WHERE email = :email AND address = :address

-- prune_sign_in_failures --
-- Forgets the pairs whose last failure is older than :before.
DELETE FROM sign_in_failures WHERE failed_at < :before
