-- insert_event --
-- Records an event in the transaction of the change it reports (the outbox), with the number of its account's
-- endpoints that chose its type (`subscribers`): when none did, the usual case, no deliveries are to be made.
INSERT INTO events (uuid, account_id, event_type, record_type, record_id, created_at)
VALUES (:uuid, :account_id, :event_type, :record_type, :record_id, :created_at)
RETURNING *, (SELECT COUNT(*) FROM webhook_endpoints
              WHERE account_id = :account_id
                AND EXISTS (SELECT 1 FROM json_each(webhook_endpoints.events) WHERE json_each.value = :event_type))
             AS subscribers

-- list_events_of_record --
-- The events recorded for one record, oldest first.
SELECT * FROM events WHERE record_type = :record_type AND record_id = :record_id ORDER BY id
