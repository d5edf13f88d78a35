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
