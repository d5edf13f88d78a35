-- insert_event --
-- Records an event in the transaction of the change it reports (the outbox).
INSERT INTO events (uuid, account_id, event_type, record_type, record_id, created_at)
VALUES (:uuid, :account_id, :event_type, :record_type, :record_id, :created_at)
RETURNING *

-- list_events_of_record --
-- The events recorded for one record, oldest first.
SELECT * FROM events WHERE record_type = :record_type AND record_id = :record_id ORDER BY id
