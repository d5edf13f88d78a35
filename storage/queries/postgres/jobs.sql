-- insert_job --
-- A job due at run_at, notified on :channel (`Connection.fetch_notifying`); a job with the dedupe_key of an
-- existing one is not added twice, nor notified.
WITH inserted AS (
    INSERT INTO jobs (kind, payload, status, run_at, dedupe_key, created_at)
    VALUES (:kind, :payload, 'pending', :run_at, :dedupe_key, :created_at)
    ON CONFLICT (dedupe_key) DO NOTHING
    RETURNING *
)
SELECT inserted.*, pg_notify(:channel, '') AS notified FROM inserted

-- claim_job --
-- Takes a job whose lease ran out (its process died), else the oldest due job, for this worker until
-- lease_until; SKIP LOCKED lets several processes claim side by side without taking the same job.
UPDATE jobs
SET status = 'running', attempts = attempts + 1, locked_by = :worker, locked_until = :lease_until
WHERE id = COALESCE(
    (SELECT id FROM jobs WHERE status = 'running' AND locked_until <= :now
     ORDER BY locked_until LIMIT 1 FOR UPDATE SKIP LOCKED),
    (SELECT id FROM jobs WHERE status = 'pending' AND run_at <= :now
     ORDER BY run_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
)
RETURNING *

-- claim_jobs_of_kind --
-- Takes up to :limit due jobs of one kind, oldest first, for this worker until lease_until; SKIP LOCKED lets
-- several processes claim batches side by side without taking the same job. Jobs whose lease ran out are
-- left to claim_job, which takes them first.
UPDATE jobs
SET status = 'running', attempts = attempts + 1, locked_by = :worker, locked_until = :lease_until
WHERE id IN (
    SELECT id FROM jobs WHERE kind = :kind AND status = 'pending' AND run_at <= :now
    ORDER BY run_at, id LIMIT :limit FOR UPDATE SKIP LOCKED
)
RETURNING *

-- renew_job_leases --
-- The heartbeat of a batch: extends the leases this worker still holds among :ids; answers those.
UPDATE jobs SET locked_until = :lease_until
WHERE id = ANY(CAST(:ids AS BIGINT[])) AND locked_by = :worker AND status = 'running'
RETURNING id

-- delete_jobs --
-- Removes the jobs among :ids that this worker finished.
DELETE FROM jobs WHERE id = ANY(CAST(:ids AS BIGINT[])) AND locked_by = :worker

-- release_jobs --
-- Hands jobs this worker ran back to the queue (a retry, the next run of a periodic job, a time the handler
-- answered) or fails them; :jobs is a JSON array of {id, status, run_at, attempts, last_error}.
UPDATE jobs
SET status = released.status, run_at = released.run_at, attempts = released.attempts,
    last_error = released.last_error, locked_by = NULL, locked_until = NULL
FROM jsonb_to_recordset(CAST(:jobs AS JSONB))
     AS released (id BIGINT, status TEXT, run_at TIMESTAMPTZ, attempts INTEGER, last_error TEXT)
WHERE jobs.id = released.id AND jobs.locked_by = :worker
