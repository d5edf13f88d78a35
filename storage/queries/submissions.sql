-- insert_submission --
-- A new submission with its copy of the template's roles, fields and documents.
INSERT INTO submissions (account_id, template_id, created_by_user_id, slug, envelope_id, name, template_name, source,
                         submitters_order, send_email, roles, fields, documents, preferences, variables,
                         expire_at, created_at, updated_at)
VALUES (:account_id, :template_id, :created_by_user_id, :slug, :envelope_id, :name, :template_name, :source,
        :submitters_order, :send_email, :roles, :fields, :documents, :preferences, :variables,
        :expire_at, :now, :now)
RETURNING *

-- get_submission --
-- One submission by id.
SELECT * FROM submissions WHERE id = :id

-- find_submission_by_slug --
-- One submission by the slug of its links.
SELECT * FROM submissions WHERE slug = :slug

-- lock_submission --
-- One submission by id, held until the transaction ends so signer actions on it take turns.
SELECT * FROM submissions WHERE id = :id

-- list_submissions --
-- A page of an account's submissions, newest first; status is computed as the record computes it.
-- (A time bound is compared before its IS NULL test: Postgres takes the parameter's type from its first use.)
SELECT * FROM submissions
WHERE account_id = :account_id
  AND (CAST(:template_id AS BIGINT) IS NULL OR template_id = :template_id)
  AND (CAST(:archived AS BOOLEAN) IS NULL OR CAST(:archived AS BOOLEAN) = (archived_at IS NOT NULL))
  AND (CAST(:status AS TEXT) IS NULL
       OR (:status = 'completed' AND completed_at IS NOT NULL)
       OR (:status = 'declined' AND completed_at IS NULL AND declined_at IS NOT NULL)
       OR (:status = 'expired' AND completed_at IS NULL AND declined_at IS NULL AND expire_at <= :now)
       OR (:status = 'pending' AND completed_at IS NULL AND declined_at IS NULL
           AND (expire_at IS NULL OR expire_at > :now)))
  AND (CAST(:pattern AS TEXT) IS NULL OR EXISTS (
       SELECT 1 FROM submitters
       WHERE submitters.submission_id = submissions.id
         AND (LOWER(submitters.name) LIKE :pattern ESCAPE '\' OR LOWER(submitters.email) LIKE :pattern ESCAPE '\'
              OR submitters.phone LIKE :pattern ESCAPE '\')))
  AND (created_at >= :created_from OR :created_from IS NULL)
  AND (created_at < :created_until OR :created_until IS NULL)
  AND (completed_at >= :completed_from OR :completed_from IS NULL)
  AND (completed_at < :completed_until OR :completed_until IS NULL)
  AND (CAST(:after AS BIGINT) IS NULL OR id < :after)
  AND (CAST(:before AS BIGINT) IS NULL OR id > :before)
ORDER BY id DESC
LIMIT :limit

-- complete_submission --
-- Marks a submission completed unless it already is: only one caller gets the row back.
UPDATE submissions SET completed_at = :now, updated_at = :now
WHERE id = :id AND completed_at IS NULL
RETURNING id

-- decline_submission --
-- Marks a submission declined (the first decline wins).
UPDATE submissions SET declined_at = COALESCE(declined_at, :now), updated_at = :now WHERE id = :id

-- expire_submission --
-- Marks a pending submission expired once its expiry time passed; only one caller gets the row back.
UPDATE submissions SET expired_at = :now, updated_at = :now
WHERE id = :id AND expired_at IS NULL AND completed_at IS NULL AND declined_at IS NULL AND archived_at IS NULL
  AND expire_at = :expire_at AND expire_at <= :now
RETURNING id

-- update_submission --
-- Writes a submission's editable state.
UPDATE submissions
SET name = :name, expire_at = :expire_at, expired_at = :expired_at, archived_at = :archived_at, updated_at = :now
WHERE id = :id

-- delete_submission --
-- Deletes a submission; its signers, events and attachment records go with it.
DELETE FROM submissions WHERE id = :id

-- insert_submitter --
-- A signer of a submission.
INSERT INTO submitters (submission_id, account_id, uuid, slug, role_uuid, role, position, name, email, phone,
                        external_id, metadata, preferences, field_values, created_at, updated_at)
VALUES (:submission_id, :account_id, :uuid, :slug, :role_uuid, :role, :position, :name, :email, :phone,
        :external_id, :metadata, :preferences, :field_values, :now, :now)
RETURNING *

-- get_submitter --
-- One signer by id.
SELECT * FROM submitters WHERE id = :id

-- get_submitter_with_submission --
-- One signer by id with their submission, whose columns come named `submission__<column>` (one statement where
-- an API change of a signer reads both before its transaction).
SELECT submitters.*,
       submissions.id AS submission__id,
       submissions.account_id AS submission__account_id,
       submissions.template_id AS submission__template_id,
       submissions.created_by_user_id AS submission__created_by_user_id,
       submissions.slug AS submission__slug,
       submissions.envelope_id AS submission__envelope_id,
       submissions.name AS submission__name,
       submissions.template_name AS submission__template_name,
       submissions.source AS submission__source,
       submissions.submitters_order AS submission__submitters_order,
       submissions.send_email AS submission__send_email,
       submissions.roles AS submission__roles,
       submissions.fields AS submission__fields,
       submissions.documents AS submission__documents,
       submissions.preferences AS submission__preferences,
       submissions.variables AS submission__variables,
       submissions.expire_at AS submission__expire_at,
       submissions.expired_at AS submission__expired_at,
       submissions.declined_at AS submission__declined_at,
       submissions.completed_at AS submission__completed_at,
       submissions.archived_at AS submission__archived_at,
       submissions.created_at AS submission__created_at,
       submissions.updated_at AS submission__updated_at
FROM submitters
JOIN submissions ON submissions.id = submitters.submission_id
WHERE submitters.id = :id

-- get_submitters --
-- The signers with the given ids (a JSON array; those a batch of webhook deliveries is about).
SELECT * FROM submitters WHERE id IN (SELECT value FROM json_each(:ids))

-- find_submitter_by_slug --
-- The signer a signing link names.
SELECT * FROM submitters WHERE slug = :slug

-- find_signer_by_slug --
-- The signer a signing link names, with the preferences of their submission's template (null once it is gone).
SELECT submitters.*, templates.preferences AS template_preferences
FROM submitters
JOIN submissions ON submissions.id = submitters.submission_id
LEFT JOIN templates ON templates.id = submissions.template_id
WHERE submitters.slug = :slug

-- list_submitters_of --
-- A submission's signers in role order.
SELECT * FROM submitters WHERE submission_id = :submission_id ORDER BY position, id

-- list_submitters_of_many --
-- The signers of an account's submissions with the given ids (a JSON array; one query for a list page).
SELECT * FROM submitters
WHERE account_id = :account_id AND submission_id IN (SELECT value FROM json_each(:ids))
ORDER BY submission_id, position, id

-- list_submitters --
-- A page of an account's signers, newest first.
SELECT * FROM submitters
WHERE account_id = :account_id
  AND (CAST(:submission_id AS BIGINT) IS NULL OR submission_id = :submission_id)
  AND (CAST(:external_id AS TEXT) IS NULL OR external_id = :external_id)
  AND (CAST(:pattern AS TEXT) IS NULL OR LOWER(name) LIKE :pattern ESCAPE '\'
       OR LOWER(email) LIKE :pattern ESCAPE '\' OR phone LIKE :pattern ESCAPE '\')
  AND (completed_at >= :completed_from OR :completed_from IS NULL)
  AND (completed_at < :completed_until OR :completed_until IS NULL)
  AND (CAST(:after AS BIGINT) IS NULL OR id < :after)
  AND (CAST(:before AS BIGINT) IS NULL OR id > :before)
ORDER BY id DESC
LIMIT :limit

-- update_submitter --
-- Writes a signer's state.
UPDATE submitters
SET name = :name, email = :email, phone = :phone, external_id = :external_id, metadata = :metadata,
    preferences = :preferences, field_values = :field_values, ip = :ip, ua = :ua, decline_reason = :decline_reason,
    sent_at = :sent_at, opened_at = :opened_at, started_at = :started_at, completed_at = :completed_at,
    declined_at = :declined_at, invited_at = :invited_at, updated_at = :now
WHERE id = :id
RETURNING *

-- insert_submission_event --
-- A line of a submission's audit trail.
INSERT INTO submission_events (submission_id, submitter_id, event_type, data, event_timestamp)
VALUES (:submission_id, :submitter_id, :event_type, :data, :now)

-- list_submission_events --
-- A submission's audit trail, oldest first.
SELECT * FROM submission_events WHERE submission_id = :submission_id ORDER BY event_timestamp, id

-- insert_attachment --
-- Records a file as belonging to a submission.
INSERT INTO submission_attachments (submission_id, submitter_id, blob_id, created_at)
VALUES (:submission_id, :submitter_id, :blob_id, :now)

-- list_attachments --
-- The files a submission owns as values, with what a link needs.
SELECT submission_attachments.blob_id, blobs.uuid, blobs.filename, submission_attachments.submitter_id,
       blobs.byte_size
FROM submission_attachments JOIN blobs ON blobs.id = submission_attachments.blob_id
WHERE submission_attachments.submission_id = :submission_id

-- delete_attachment --
-- Forgets that a submission owns a file (a value replaced it); the file record goes separately.
DELETE FROM submission_attachments WHERE submission_id = :submission_id AND blob_id = :blob_id

-- list_completed_submitters --
-- A page of the events feed: an account's signers completed before `until` (exclusive) and from `since`
-- (inclusive), latest completion first.
SELECT * FROM submitters
WHERE account_id = :account_id AND completed_at IS NOT NULL
  AND (completed_at < :until OR :until IS NULL)
  AND (completed_at >= :since OR :since IS NULL)
ORDER BY completed_at DESC, id DESC
LIMIT :limit

-- list_submitters_completed_within --
-- An account's signers completed in a time span [start, end), latest completion first.
SELECT * FROM submitters
WHERE account_id = :account_id AND completed_at >= :start AND completed_at < :end
ORDER BY completed_at DESC, id DESC

-- copy_blobs --
-- Other records of the same contents, in one statement: one for each {"id": the file copied, "uuid": the
-- copy's} of a JSON array, inserted in its order (a new submission's copies of its template's files).
INSERT INTO blobs (uuid, account_id, sha256, filename, content_type, byte_size, created_at)
SELECT json_extract(copies.value, '$.uuid'), blobs.account_id, blobs.sha256, blobs.filename, blobs.content_type,
       blobs.byte_size, :now
FROM json_each(:copies) AS copies JOIN blobs ON blobs.id = json_extract(copies.value, '$.id')
ORDER BY copies.key
RETURNING *

-- insert_submitters --
-- The signers of a new submission, in one statement: one for each object of a JSON array (its JSON columns
-- as JSON text), inserted in the order of their positions.
INSERT INTO submitters (submission_id, account_id, uuid, slug, role_uuid, role, position, name, email, phone,
                        external_id, metadata, preferences, field_values, created_at, updated_at)
SELECT :submission_id, :account_id, json_extract(signer.value, '$.uuid'), json_extract(signer.value, '$.slug'),
       json_extract(signer.value, '$.role_uuid'), json_extract(signer.value, '$.role'),
       json_extract(signer.value, '$.position'), json_extract(signer.value, '$.name'),
       json_extract(signer.value, '$.email'), json_extract(signer.value, '$.phone'),
       json_extract(signer.value, '$.external_id'), json_extract(signer.value, '$.metadata'),
       json_extract(signer.value, '$.preferences'), json_extract(signer.value, '$.field_values'), :now, :now
FROM json_each(:signers) AS signer
ORDER BY json_extract(signer.value, '$.position')
RETURNING *

-- get_submissions --
-- The submissions with the given ids (a JSON array; the submissions of a page of submitters).
SELECT * FROM submissions WHERE id IN (SELECT value FROM json_each(:ids))

-- list_submission_events_of_many --
-- The audit trails of the submissions with the given ids (a JSON array), each oldest first.
SELECT * FROM submission_events WHERE submission_id IN (SELECT value FROM json_each(:ids))
ORDER BY submission_id, event_timestamp, id

-- list_attachments_of_many --
-- The files the submissions with the given ids (a JSON array) own as values, with what a link needs.
SELECT submission_attachments.submission_id, submission_attachments.blob_id, blobs.uuid, blobs.filename,
       submission_attachments.submitter_id, blobs.byte_size
FROM submission_attachments JOIN blobs ON blobs.id = submission_attachments.blob_id
WHERE submission_attachments.submission_id IN (SELECT value FROM json_each(:ids))

-- bulk_progress --
-- How far a bulk send has got: an account's submissions of a template made from a file, with ids from :first to
-- :last; their signers whose invitation is queued, and those whose invitation has been sent.
SELECT
  (SELECT COUNT(*) FROM submissions
   WHERE account_id = :account_id AND template_id = :template_id AND source = 'bulk'
     AND id BETWEEN :first AND :last) AS created,
  (SELECT COUNT(*) FROM submitters JOIN submissions ON submissions.id = submitters.submission_id
   WHERE submissions.account_id = :account_id AND submissions.template_id = :template_id
     AND submissions.source = 'bulk' AND submissions.id BETWEEN :first AND :last
     AND submitters.invited_at IS NOT NULL) AS invited,
  (SELECT COUNT(*) FROM submitters JOIN submissions ON submissions.id = submitters.submission_id
   WHERE submissions.account_id = :account_id AND submissions.template_id = :template_id
     AND submissions.source = 'bulk' AND submissions.id BETWEEN :first AND :last
     AND submitters.sent_at IS NOT NULL) AS sent

-- reminder_sent --
-- Whether reminder `number` of this signer was recorded already (one row at most, not the whole audit trail).
SELECT EXISTS (
    SELECT 1 FROM submission_events
    WHERE submission_id = :submission_id AND submitter_id = :submitter_id AND event_type = :event_type
      AND json_extract(data, '$.number') = :number
) AS sent
