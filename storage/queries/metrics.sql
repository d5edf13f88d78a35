-- count_jobs_by_kind --
-- Per job kind, for the metrics: jobs due (pending, their time reached), scheduled for later, running and failed,
-- and when the longest-waiting due job fell due. Jobs leave the table when they finish, so it stays short.
SELECT kind,
       SUM(CASE WHEN status = 'pending' AND run_at <= :now THEN 1 ELSE 0 END) AS due,
       SUM(CASE WHEN status = 'pending' AND run_at > :now THEN 1 ELSE 0 END) AS scheduled,
       SUM(CASE WHEN status = 'running' THEN 1 ELSE 0 END) AS running,
       SUM(CASE WHEN status = 'failed' THEN 1 ELSE 0 END) AS failed,
       MIN(CASE WHEN status = 'pending' AND run_at <= :now THEN run_at END) AS oldest_due_at
FROM jobs
GROUP BY kind
ORDER BY kind

-- count_webhook_deliveries_by_status --
-- Per webhook delivery status (pending, delivered, failed), for the metrics: how many, and the oldest one's creation.
SELECT status, COUNT(*) AS count, MIN(created_at) AS oldest_at
FROM webhook_deliveries
GROUP BY status
ORDER BY status

-- count_emails_by_status --
-- Per email status (pending, sent, kept, failed), for the metrics: how many.
SELECT status, COUNT(*) AS count, MIN(created_at) AS oldest_at
FROM emails
GROUP BY status
ORDER BY status
