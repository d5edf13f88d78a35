-- insert_event --
-- Records an event in the transaction of the change it reports (the outbox), with the number of its account's
-- endpoints that chose its type (`subscribers`): when none did, the usual case, no deliveries are to be made.
INSERT INTO events (uuid, account_id, event_type, record_type, record_id, created_at)
VALUES (:uuid, :account_id, :event_type, :record_type, :record_id, :created_at)
RETURNING *, (SELECT COUNT(*) FROM webhook_endpoints
              WHERE account_id = :account_id AND events @> jsonb_build_array(CAST(:event_type AS TEXT)))
             AS subscribers
