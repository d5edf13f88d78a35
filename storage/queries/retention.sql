-- prune_webhook_deliveries --
-- Forgets up to :limit deliveries made and settled before :before, oldest first, their attempts with them (ON DELETE
-- CASCADE: the log shows a delivery with all its attempts or not at all); answers their ids. A pending delivery stays, whatever its age: it is still to be sent.
-- The status is checked again on the row being deleted, where a resend that just committed has made it pending.
DELETE FROM webhook_deliveries
WHERE id IN (
    SELECT id FROM webhook_deliveries
    WHERE created_at < :before AND status <> 'pending' AND updated_at < :before
    ORDER BY created_at
    LIMIT :limit
)
  AND status <> 'pending' AND updated_at < :before
RETURNING id

-- prune_events --
-- Forgets up to :limit events recorded before :before that no delivery carries any more, oldest first; answers
-- their ids. Events that record a job's work stay (as the `events_prunable` index, whose condition this repeats
-- word for word: the completion and certificate jobs read them to know they ran, and by `submission.completed`
-- GET /api/submissions/{id}/pdf tells documents that could not be produced from documents on their way).
DELETE FROM events
WHERE id IN (
    SELECT id FROM events
    WHERE created_at < :before
      AND event_type NOT IN ('form.completed', 'submission.completed', 'consent.created')
      AND NOT EXISTS (SELECT 1 FROM webhook_deliveries WHERE webhook_deliveries.event_id = events.id)
    ORDER BY created_at
    LIMIT :limit
)
RETURNING id

-- prune_emails --
-- Forgets up to :limit emails written before :before and sent, kept or failed, oldest first; answers their ids.
-- A pending email stays: its job is still to send it.
DELETE FROM emails
WHERE id IN (
    SELECT id FROM emails
    WHERE created_at < :before AND status <> 'pending'
    ORDER BY created_at
    LIMIT :limit
)
RETURNING id

-- prune_jobs --
-- Forgets up to :limit jobs that failed, their last run due before :before, oldest first; answers their ids.
-- Pending and running jobs are work still to do. The status is checked again on the row being deleted, where a
-- job just brought forward (a resend) is pending again, or running; written as a test SQLite cannot answer with
-- the (status, run_at) index, so that it finds the rows by id rather than walk every failed job.
DELETE FROM jobs
WHERE id IN (
    SELECT id FROM jobs
    WHERE status = 'failed' AND run_at < :before
    ORDER BY run_at
    LIMIT :limit
)
  AND status NOT IN ('pending', 'running')
RETURNING id

-- prune_form_posts --
-- Forgets up to :limit posts of public forms made before :before, oldest first; answers their tokens. A claim
-- guards against a form posted twice in a row (a double click, a reload); one posted again after the age is
-- refused, its nonce (form_nonces) having expired a day after its page was opened.
DELETE FROM form_posts
WHERE token IN (
    SELECT token FROM form_posts
    WHERE created_at < :before
    ORDER BY created_at
    LIMIT :limit
)
RETURNING token
