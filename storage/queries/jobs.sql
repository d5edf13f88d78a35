-- insert_job --
-- A job due at run_at; a job with the dedupe_key of an existing one is not added twice.
INSERT INTO jobs (kind, payload, status, run_at, dedupe_key, created_at)
VALUES (:kind, :payload, 'pending', :run_at, :dedupe_key, :created_at)
ON CONFLICT (dedupe_key) DO NOTHING
RETURNING *

-- get_job --
-- One job by id.
SELECT * FROM jobs WHERE id = :id

-- claim_job --
-- Takes a job whose lease ran out (its process died), else the oldest due job, for this worker until
-- lease_until. Two lookups rather than one OR, so that each walks the (status, run_at) index and a
-- queue of many due jobs costs a claim no more than a short one.
UPDATE jobs
SET status = 'running', attempts = attempts + 1, locked_by = :worker, locked_until = :lease_until
WHERE id = COALESCE(
    (SELECT id FROM jobs WHERE status = 'running' AND locked_until <= :now ORDER BY locked_until LIMIT 1),
    (SELECT id FROM jobs WHERE status = 'pending' AND run_at <= :now ORDER BY run_at, id LIMIT 1)
)
RETURNING *

-- delete_job --
-- Removes a job this worker finished.
DELETE FROM jobs WHERE id = :id AND locked_by = :worker

-- release_running_jobs --
-- Puts back every running job; only for a single-process database at start.
UPDATE jobs SET status = 'pending', locked_by = NULL, locked_until = NULL WHERE status = 'running'

-- next_job_at --
-- When the next job falls due: the earliest pending run_at or running job's lease end (each an index lookup).
SELECT MIN(next_at) AS next_at FROM (
    SELECT MIN(run_at) AS next_at FROM jobs WHERE status = 'pending'
    UNION ALL
    SELECT MIN(locked_until) AS next_at FROM jobs WHERE status = 'running'
) AS next_times

-- next_job_of_kind_at --
-- When the next pending job of one kind falls due (the `jobs_kind_due` index holds them in that order).
SELECT MIN(run_at) AS next_at FROM jobs WHERE kind = :kind AND status = 'pending'

-- bring_job_forward --
-- Makes a waiting or failed job with this dedupe_key due at run_at; a running one is left to finish.
UPDATE jobs
SET status = 'pending', run_at = :run_at, attempts = 0, last_error = NULL
WHERE dedupe_key = :dedupe_key AND status <> 'running'

-- claim_jobs_of_kind --
-- Takes up to :limit due jobs of one kind, oldest first, for this worker until lease_until: one statement
-- for a batch (the `jobs_kind_due` index walks them in order). Jobs whose lease ran out are left to
-- claim_job, which takes them first.
UPDATE jobs
SET status = 'running', attempts = attempts + 1, locked_by = :worker, locked_until = :lease_until
WHERE id IN (
    SELECT id FROM jobs WHERE kind = :kind AND status = 'pending' AND run_at <= :now
    ORDER BY run_at, id LIMIT :limit
)
RETURNING *

-- renew_job_leases --
-- The heartbeat of a batch: extends the leases this worker still holds among :ids (a JSON array); answers those.
UPDATE jobs SET locked_until = :lease_until
WHERE id IN (SELECT value FROM json_each(:ids)) AND locked_by = :worker AND status = 'running'
RETURNING id

-- delete_jobs --
-- Removes the jobs among :ids (a JSON array) that this worker finished.
DELETE FROM jobs WHERE id IN (SELECT value FROM json_each(:ids)) AND locked_by = :worker

-- release_jobs --
-- Hands jobs this worker ran back to the queue (a retry, the next run of a periodic job, a time the handler
-- answered) or fails them; :jobs is a JSON array of {id, status, run_at, attempts, last_error}.
UPDATE jobs
SET status = released.status, run_at = released.run_at, attempts = released.attempts,
    last_error = released.last_error, locked_by = NULL, locked_until = NULL
FROM (SELECT value ->> 'id' AS id, value ->> 'status' AS status, value ->> 'run_at' AS run_at,
             value ->> 'attempts' AS attempts, value ->> 'last_error' AS last_error
      FROM json_each(:jobs)) AS released
WHERE jobs.id = released.id AND jobs.locked_by = :worker
