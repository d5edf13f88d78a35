-- lock_submission --
-- One submission by id, locked until the transaction ends so signer actions on it take turns
-- (two last signers completing at once must see each other: exactly one completes the submission).
SELECT * FROM submissions WHERE id = :id FOR UPDATE

-- list_submitters_of_many --
-- The signers of an account's submissions with the given ids (a JSON array; one query for a list page).
SELECT * FROM submitters
WHERE account_id = :account_id AND submission_id IN (SELECT CAST(jsonb_array_elements_text(:ids) AS BIGINT))
ORDER BY submission_id, position, id

-- copy_blobs --
-- Other records of the same contents, in one statement: one for each {"id": the file copied, "uuid": the
-- copy's} of a JSON array, inserted in its order (a new submission's copies of its template's files).
INSERT INTO blobs (uuid, account_id, sha256, filename, content_type, byte_size, created_at)
SELECT copies.copy ->> 'uuid', blobs.account_id, blobs.sha256, blobs.filename, blobs.content_type, blobs.byte_size,
       CAST(:now AS TIMESTAMPTZ)
FROM jsonb_array_elements(:copies) WITH ORDINALITY AS copies(copy, position)
JOIN blobs ON blobs.id = CAST(copies.copy ->> 'id' AS BIGINT)
ORDER BY copies.position
RETURNING *

-- insert_submitters --
-- The signers of a new submission, in one statement: one for each object of a JSON array (its JSON columns
-- as JSON text), inserted in the order of their positions.
INSERT INTO submitters (submission_id, account_id, uuid, slug, role_uuid, role, position, name, email, phone,
                        external_id, metadata, preferences, field_values, created_at, updated_at)
SELECT CAST(:submission_id AS BIGINT), CAST(:account_id AS BIGINT), signer.uuid, signer.slug, signer.role_uuid,
       signer.role, signer.position, signer.name, signer.email, signer.phone, signer.external_id,
       CAST(signer.metadata AS JSONB), CAST(signer.preferences AS JSONB), CAST(signer.field_values AS JSONB),
       CAST(:now AS TIMESTAMPTZ), CAST(:now AS TIMESTAMPTZ)
FROM jsonb_to_recordset(:signers) AS signer(uuid TEXT, slug TEXT, role_uuid TEXT, role TEXT, position INTEGER,
                                            name TEXT, email TEXT, phone TEXT, external_id TEXT, metadata TEXT,
                                            preferences TEXT, field_values TEXT)
ORDER BY signer.position
RETURNING *

-- get_submitters --
-- The signers with the given ids (those a batch of webhook deliveries is about).
SELECT * FROM submitters WHERE id = ANY(CAST(:ids AS BIGINT[]))

-- get_submissions --
-- The submissions with the given ids (the submissions of a page of submitters).
SELECT * FROM submissions WHERE id = ANY(CAST(:ids AS BIGINT[]))

-- list_submission_events_of_many --
-- The audit trails of the submissions with the given ids, each oldest first.
SELECT * FROM submission_events WHERE submission_id = ANY(CAST(:ids AS BIGINT[]))
ORDER BY submission_id, event_timestamp, id

-- list_attachments_of_many --
-- The files the submissions with the given ids own as values, with what a link needs.
SELECT submission_attachments.submission_id, submission_attachments.blob_id, blobs.uuid, blobs.filename,
       submission_attachments.submitter_id, blobs.byte_size
FROM submission_attachments JOIN blobs ON blobs.id = submission_attachments.blob_id
WHERE submission_attachments.submission_id = ANY(CAST(:ids AS BIGINT[]))

-- reminder_sent --
-- Whether reminder `number` of this signer was recorded already (one row at most, not the whole audit trail).
SELECT EXISTS (
    SELECT 1 FROM submission_events
    WHERE submission_id = CAST(:submission_id AS BIGINT) AND submitter_id = CAST(:submitter_id AS BIGINT)
      AND event_type = CAST(:event_type AS TEXT) AND data -> 'number' = to_jsonb(CAST(:number AS BIGINT))
) AS sent
