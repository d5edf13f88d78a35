-- insert_email --
-- An email in the outbox, written in the transaction that decided to send it.
INSERT INTO emails (account_id, kind, submitter_id, to_address, recipient, reply_to, subject, text_body, html_body,
                    status, created_at, sent_at, attachments, last_error)
VALUES (:account_id, :kind, :submitter_id, :to_address, :recipient, :reply_to, :subject, :text_body, :html_body,
        :status, :created_at, :sent_at, :attachments, :last_error)
RETURNING *

-- count_emails_to --
-- The account's emails to a recipient (`storage.emails.recipient`) since :since, through the index emails_recipient.
SELECT COUNT(*) AS sent FROM emails
WHERE account_id = :account_id AND recipient = :recipient AND created_at > :since

-- get_email --
-- One email by id.
SELECT * FROM emails WHERE id = :id

-- mark_email_sent --
-- The SMTP server took the email.
UPDATE emails SET status = 'sent', sent_at = :now, attempts = attempts + 1, last_error = NULL
WHERE id = :id
RETURNING *

-- mark_email_kept --
-- The email stays in the outbox only and counts as sent (no SMTP server is configured).
UPDATE emails SET status = 'kept', sent_at = :now WHERE id = :id
RETURNING *

-- record_email_failure --
-- A sending attempt failed; the email stays pending for the next one, or is failed after its last.
UPDATE emails
SET attempts = attempts + 1, last_error = :error,
    status = CASE WHEN attempts + 1 >= :max_attempts THEN 'failed' ELSE status END
WHERE id = :id
RETURNING *

-- list_emails --
-- A page of an account's emails, newest first, optionally of one status.
SELECT * FROM emails
WHERE account_id = :account_id
  AND (CAST(:status AS TEXT) IS NULL OR status = :status)
  AND (CAST(:after AS BIGINT) IS NULL OR id < :after)
  AND (CAST(:before AS BIGINT) IS NULL OR id > :before)
ORDER BY id DESC
LIMIT :limit
