-- hit_rate_limit --
-- Counts one request in a bucket's window and answers the count so far.
INSERT INTO rate_limit_hits (bucket, window_start, hits) VALUES (:bucket, :window_start, 1)
ON CONFLICT (bucket, window_start) DO UPDATE SET hits = rate_limit_hits.hits + 1
RETURNING bucket, hits

-- hit_rate_limits --
-- Counts one request in two buckets' windows at once (an API key and a client address).
INSERT INTO rate_limit_hits (bucket, window_start, hits)
VALUES (:bucket, :window_start, 1), (:other_bucket, :window_start, 1)
ON CONFLICT (bucket, window_start) DO UPDATE SET hits = rate_limit_hits.hits + 1
RETURNING bucket, hits

-- prune_rate_limits --
-- Forgets windows that ended.
DELETE FROM rate_limit_hits WHERE window_start < :before
