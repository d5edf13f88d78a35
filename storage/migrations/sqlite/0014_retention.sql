-- Retention: the periodic job forgets operational history older than SIGNSVC_RETENTION_DAYS, a batch at a
-- time, each batch walking one of these indexes from the oldest row (storage/queries/retention.sql).
-- Each is on a column written once, so the updates a delivery or an email goes through leave it alone.
CREATE INDEX webhook_deliveries_created ON webhook_deliveries (created_at);
CREATE INDEX emails_created ON emails (created_at);
CREATE INDEX form_posts_created ON form_posts (created_at);

-- The deliveries of an event: an event is forgotten only once none is left, and deleting one checks its
-- foreign key here.
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id);

-- Events that may be forgotten: not those that record a job's work (the completion and certificate jobs look
-- for them to know they ran, and a completed submission without documents says so by its
-- `submission.completed`), which stay as long as their record. Kept out of the index, they are never walked
-- over again. The prune query repeats this condition word for word, so that both databases use the index.
CREATE INDEX events_prunable ON events (created_at)
    WHERE event_type NOT IN ('form.completed', 'submission.completed', 'consent.created');
