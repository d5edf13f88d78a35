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
