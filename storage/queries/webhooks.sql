-- insert_webhook_endpoint --
-- A new endpoint of an account; nothing when the account already has an endpoint with this url.
INSERT INTO webhook_endpoints (account_id, url, events, secret_header, secret, created_at, updated_at)
VALUES (:account_id, :url, :events, :secret_header, :secret, :now, :now)
ON CONFLICT (account_id, url) DO NOTHING
RETURNING *

-- put_configured_webhook_endpoint --
-- The account's endpoint for this url, created or brought to these settings, marked as configured.
INSERT INTO webhook_endpoints (account_id, url, events, secret_header, secret, configured, created_at, updated_at)
VALUES (:account_id, :url, :events, :secret_header, :secret, TRUE, :now, :now)
ON CONFLICT (account_id, url) DO UPDATE
SET events = excluded.events, secret_header = excluded.secret_header, secret = excluded.secret,
    configured = TRUE, updated_at = excluded.updated_at
RETURNING *

-- delete_other_configured_webhook_endpoints --
-- Removes the account's configured endpoints except the one with this url (none when url is null).
DELETE FROM webhook_endpoints
WHERE account_id = :account_id AND configured AND (CAST(:url AS TEXT) IS NULL OR url <> :url)

-- get_webhook_endpoint --
-- One endpoint by id.
SELECT * FROM webhook_endpoints WHERE id = :id

-- find_webhook_endpoint_by_url --
-- The account's endpoint with this url.
SELECT * FROM webhook_endpoints WHERE account_id = :account_id AND url = :url

-- count_webhook_endpoints --
-- How many endpoints an account has.
SELECT COUNT(*) AS count FROM webhook_endpoints WHERE account_id = :account_id

-- list_webhook_endpoints --
-- A page of an account's endpoints, newest first.
SELECT * FROM webhook_endpoints
WHERE account_id = :account_id
  AND (CAST(:after AS BIGINT) IS NULL OR id < :after)
  AND (CAST(:before AS BIGINT) IS NULL OR id > :before)
ORDER BY id DESC
LIMIT :limit

-- update_webhook_endpoint --
-- Writes an endpoint's settings.
UPDATE webhook_endpoints
SET url = :url, events = :events, secret_header = :secret_header, secret = :secret, updated_at = :now
WHERE id = :id
RETURNING *

-- delete_webhook_endpoint --
-- Removes an endpoint with its deliveries and their attempts.
DELETE FROM webhook_endpoints WHERE id = :id

-- insert_webhook_deliveries --
-- A pending delivery of the event to every endpoint of its account that chose its type.
INSERT INTO webhook_deliveries (endpoint_id, event_id, status, attempts, failures, next_attempt_at, created_at,
                                updated_at)
SELECT id, :event_id, 'pending', 0, 0, :now, :now, :now
FROM webhook_endpoints
WHERE account_id = :account_id
  AND EXISTS (SELECT 1 FROM json_each(webhook_endpoints.events) WHERE json_each.value = :event_type)
ORDER BY id
RETURNING id

-- get_webhook_delivery --
-- One delivery with its event.
SELECT * FROM webhook_delivery_records WHERE id = :id

-- list_webhook_deliveries --
-- A page of an endpoint's deliveries with their events, newest first, optionally of one status.
SELECT * FROM webhook_delivery_records
WHERE endpoint_id = :endpoint_id
  AND (CAST(:status AS TEXT) IS NULL OR status = :status)
  AND (CAST(:after AS BIGINT) IS NULL OR id < :after)
  AND (CAST(:before AS BIGINT) IS NULL OR id > :before)
ORDER BY id DESC
LIMIT :limit

-- list_account_webhook_deliveries --
-- An account's deliveries to every endpoint, newest first, optionally of one event type and one status.
SELECT * FROM webhook_delivery_records
WHERE account_id = :account_id
  AND (CAST(:event_type AS TEXT) IS NULL OR event_type = :event_type)
  AND (CAST(:status AS TEXT) IS NULL OR status = :status)
ORDER BY id DESC
LIMIT :limit

-- latest_webhook_delivery_of_each_endpoint --
-- The newest delivery of each endpoint of an account (the endpoints list shows how the last one went).
SELECT * FROM webhook_delivery_records
WHERE id IN (SELECT MAX(webhook_deliveries.id) FROM webhook_deliveries
             JOIN webhook_endpoints ON webhook_endpoints.id = webhook_deliveries.endpoint_id
             WHERE webhook_endpoints.account_id = :account_id
             GROUP BY webhook_deliveries.endpoint_id)

-- list_webhook_attempts_in_range --
-- The attempts of an endpoint's deliveries with ids in a range (one page of the log), in order.
SELECT webhook_attempts.* FROM webhook_attempts
JOIN webhook_deliveries ON webhook_deliveries.id = webhook_attempts.delivery_id
WHERE webhook_deliveries.endpoint_id = :endpoint_id AND webhook_attempts.delivery_id BETWEEN :min_id AND :max_id
ORDER BY webhook_attempts.delivery_id, webhook_attempts.number

-- insert_webhook_attempt --
-- Logs one attempt of a delivery.
INSERT INTO webhook_attempts (delivery_id, number, attempted_at, response_status, error, duration_ms)
VALUES (:delivery_id, :number, :attempted_at, :response_status, :error, :duration_ms)

-- update_webhook_delivery --
-- A delivery's state after an attempt.
UPDATE webhook_deliveries
SET status = :status, attempts = :attempts, failures = :failures, next_attempt_at = :next_attempt_at,
    updated_at = :now
WHERE id = :id

-- resend_webhook_delivery --
-- Sends a delivery again now, with the whole retry schedule ahead of it.
UPDATE webhook_deliveries
SET status = 'pending', failures = 0, next_attempt_at = :now, updated_at = :now
WHERE id = :id

-- latest_completed_submitter --
-- The account's most recent signer who completed (the test webhook's sample).
SELECT id FROM submitters
WHERE account_id = :account_id AND completed_at IS NOT NULL
ORDER BY id DESC
LIMIT 1

-- get_webhook_deliveries --
-- Deliveries with their events by id, :ids a JSON array (a batch the sender works on).
SELECT * FROM webhook_delivery_records WHERE id IN (SELECT value FROM json_each(:ids))

-- insert_webhook_attempts --
-- Logs one attempt of each of several deliveries; :attempts is a JSON array of attempt objects. A delivery
-- deleted meanwhile (its endpoint was) is skipped, so that it does not fail the others'.
INSERT INTO webhook_attempts (delivery_id, number, attempted_at, response_status, error, duration_ms)
SELECT value ->> 'delivery_id', value ->> 'number', value ->> 'attempted_at', value ->> 'response_status',
       value ->> 'error', value ->> 'duration_ms'
FROM json_each(:attempts)
WHERE value ->> 'delivery_id' IN (SELECT id FROM webhook_deliveries)

-- update_webhook_deliveries --
-- The state of several deliveries after an attempt each; :attempts as for insert_webhook_attempts.
UPDATE webhook_deliveries
SET status = attempt.status, attempts = attempt.number, failures = attempt.failures,
    next_attempt_at = attempt.next_attempt_at, updated_at = :now
FROM (SELECT value ->> 'delivery_id' AS delivery_id, value ->> 'status' AS status, value ->> 'number' AS number,
             value ->> 'failures' AS failures, value ->> 'next_attempt_at' AS next_attempt_at
      FROM json_each(:attempts)) AS attempt
WHERE webhook_deliveries.id = attempt.delivery_id

-- list_webhook_attempts_of_deliveries --
-- The attempts of the deliveries with the given ids (a JSON array), in order.
SELECT * FROM webhook_attempts WHERE delivery_id IN (SELECT value FROM json_each(:ids))
ORDER BY delivery_id, number
