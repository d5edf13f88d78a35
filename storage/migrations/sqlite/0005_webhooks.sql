-- Webhook endpoints of each account, the delivery of every event to each endpoint, and its attempts.

-- `events` is a JSON array of event types; the secret (a header name and its value) is optional and
-- kept in the clear: it is sent with every delivery and keys its signature. A `configured` endpoint
-- is the one SIGNSVC_WEBHOOK_URL or SIGNSVC_TEST_WEBHOOK_URL names, set again at every start.
CREATE TABLE webhook_endpoints (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    url TEXT NOT NULL,
    events TEXT NOT NULL,
    secret_header TEXT,
    secret TEXT,
    configured INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (account_id, url)
);

-- One row per event and endpoint, written with the event (the outbox); a job sends it. `failures`
-- counts failed attempts since the delivery was created or resent and drives the retry schedule.
CREATE TABLE webhook_deliveries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    endpoint_id INTEGER NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    event_id INTEGER NOT NULL REFERENCES events (id),
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    failures INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (endpoint_id, event_id)
);
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, id);

CREATE TABLE webhook_attempts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    delivery_id INTEGER NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    number INTEGER NOT NULL,
    attempted_at TEXT NOT NULL,
    response_status INTEGER,
    error TEXT,
    duration_ms INTEGER NOT NULL
);
CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery_id, number);

-- A delivery with the event it carries and where it goes: what the sender and the delivery log read.
CREATE VIEW webhook_delivery_records AS
SELECT webhook_deliveries.*, events.uuid AS event_uuid, events.event_type, events.record_type, events.record_id,
       events.account_id, events.created_at AS event_created_at, webhook_endpoints.url,
       webhook_endpoints.secret_header, webhook_endpoints.secret
FROM webhook_deliveries
JOIN events ON events.id = webhook_deliveries.event_id
JOIN webhook_endpoints ON webhook_endpoints.id = webhook_deliveries.endpoint_id;

-- Jobs under way, by lease end: finding a lease that ran out walks this small index instead of every
-- job ever claimed (on Postgres, the index entries a busy queue leaves behind until it is vacuumed).
CREATE INDEX jobs_leases ON jobs (locked_until) WHERE status = 'running';
