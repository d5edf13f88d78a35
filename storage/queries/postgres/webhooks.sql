-- insert_webhook_deliveries --
-- A pending delivery of the event to every endpoint of its account that chose its type.
INSERT INTO webhook_deliveries (endpoint_id, event_id, status, attempts, failures, next_attempt_at, created_at,
                                updated_at)
SELECT id, :event_id, 'pending', 0, 0, :now, :now, :now
FROM webhook_endpoints
WHERE account_id = :account_id AND events @> jsonb_build_array(CAST(:event_type AS TEXT))
ORDER BY id
RETURNING id

-- get_webhook_deliveries --
-- Deliveries with their events by id (a batch the sender works on).
SELECT * FROM webhook_delivery_records WHERE id = ANY(CAST(:ids AS BIGINT[]))

-- insert_webhook_attempts --
-- Logs one attempt of each of several deliveries; :attempts is a JSON array of attempt objects. A delivery
-- deleted meanwhile (its endpoint was) is skipped, so that it does not fail the others'.
INSERT INTO webhook_attempts (delivery_id, number, attempted_at, response_status, error, duration_ms)
SELECT delivery_id, number, attempted_at, response_status, error, duration_ms
FROM jsonb_to_recordset(CAST(:attempts AS JSONB))
     AS attempt (delivery_id BIGINT, number INTEGER, attempted_at TIMESTAMPTZ, response_status INTEGER, error TEXT,
                 duration_ms INTEGER)
WHERE delivery_id IN (SELECT id FROM webhook_deliveries)

-- update_webhook_deliveries --
-- The state of several deliveries after an attempt each; :attempts as for insert_webhook_attempts.
UPDATE webhook_deliveries
SET status = attempt.status, attempts = attempt.number, failures = attempt.failures,
    next_attempt_at = attempt.next_attempt_at, updated_at = :now
FROM jsonb_to_recordset(CAST(:attempts AS JSONB))
     AS attempt (delivery_id BIGINT, status TEXT, number INTEGER, failures INTEGER, next_attempt_at TIMESTAMPTZ)
WHERE webhook_deliveries.id = attempt.delivery_id

-- list_webhook_attempts_of_deliveries --
-- The attempts of the deliveries with the given ids, in order.
SELECT * FROM webhook_attempts WHERE delivery_id = ANY(CAST(:ids AS BIGINT[]))
ORDER BY delivery_id, number
