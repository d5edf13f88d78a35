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
-- Takes the oldest due job, or one whose lease ran out, for this worker until lease_until.
UPDATE jobs
SET status = 'running', attempts = attempts + 1, locked_by = :worker, locked_until = :lease_until
WHERE id = (
    SELECT id FROM jobs
    WHERE (status = 'pending' AND run_at <= :now) OR (status = 'running' AND locked_until <= :now)
    ORDER BY run_at, id
    LIMIT 1
)
RETURNING *

-- delete_job --
-- Removes a job this worker finished.
DELETE FROM jobs WHERE id = :id AND locked_by = :worker

-- release_job --
-- Hands a job this worker ran back to the queue (a retry, the next run of a periodic job) or fails it.
UPDATE jobs
SET status = :status, run_at = :run_at, attempts = :attempts, last_error = :last_error,
    locked_by = NULL, locked_until = NULL
WHERE id = :id AND locked_by = :worker

-- release_running_jobs --
-- Puts back every running job; only for a single-process database at start.
UPDATE jobs SET status = 'pending', locked_by = NULL, locked_until = NULL WHERE status = 'running'

-- next_job_at --
-- When the next job falls due: a pending run_at or a running job's lease end.
SELECT MIN(CASE WHEN status = 'pending' THEN run_at ELSE locked_until END) AS next_at
FROM jobs WHERE status IN ('pending', 'running')

-- bring_job_forward --
-- Makes a waiting or failed job with this dedupe_key due at run_at; a running one is left to finish.
UPDATE jobs
SET status = 'pending', run_at = :run_at, attempts = 0, last_error = NULL
WHERE dedupe_key = :dedupe_key AND status <> 'running'
