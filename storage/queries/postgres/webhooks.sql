-- insert_webhook_deliveries --
-- A pending delivery of the event to every endpoint of its account that chose its type.
INSERT INTO webhook_deliveries (endpoint_id, event_id, status, attempts, failures, next_attempt_at, created_at,
                                updated_at)
SELECT id, :event_id, 'pending', 0, 0, :now, :now, :now
FROM webhook_endpoints
WHERE account_id = :account_id AND events @> jsonb_build_array(CAST(:event_type AS TEXT))
ORDER BY id
RETURNING id
