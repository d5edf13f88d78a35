-- claim_job --
-- Takes the oldest due job, or one whose lease ran out, for this worker until lease_until;
-- SKIP LOCKED lets several processes claim side by side without taking the same job.
UPDATE jobs
SET status = 'running', attempts = attempts + 1, locked_by = :worker, locked_until = :lease_until
WHERE id = (
    SELECT id FROM jobs
    WHERE (status = 'pending' AND run_at <= :now) OR (status = 'running' AND locked_until <= :now)
    ORDER BY run_at, id
    LIMIT 1
    FOR UPDATE SKIP LOCKED
)
RETURNING *
