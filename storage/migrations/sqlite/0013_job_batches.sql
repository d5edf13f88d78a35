-- Due jobs of one kind in claim order: a worker claims a batch of one kind (webhook deliveries) with one
-- index walk, however many jobs of other kinds wait.
CREATE INDEX jobs_kind_due ON jobs (kind, run_at, id) WHERE status = 'pending';
