-- insert_result_document --
-- A produced file in its slot; a second row for the same slot is refused by the slot index.
INSERT INTO result_documents (submission_id, submitter_id, kind, position, name, blob_id, sha256, values_sha256,
                              created_at)
VALUES (:submission_id, :submitter_id, :kind, :position, :name, :blob_id, :sha256, :values_sha256, :now)

-- list_result_documents --
-- A submission's produced files with what a link needs, slot by slot.
SELECT r.*, b.uuid AS blob_uuid, b.filename AS filename
FROM result_documents r JOIN blobs b ON b.id = r.blob_id
WHERE r.submission_id = :submission_id
ORDER BY r.kind, r.submitter_id, r.position

-- delete_result_documents --
-- Forgets a submission's files of one kind made on demand (previews, a merged copy) to make them again;
-- answers their files.
DELETE FROM result_documents WHERE submission_id = :submission_id AND kind = :kind RETURNING blob_id

-- count_issued_with_sha256 --
-- How many files the service issued (results and audit logs, not previews or merged copies) have this hash.
SELECT COUNT(*) AS count FROM result_documents
WHERE sha256 = :sha256 AND kind IN ('submitter', 'final', 'audit_log', 'combined')

-- insert_signing_certificate --
-- A certificate to sign with or to trust; the same certificate again, or a second current generated
-- one, is ignored.
INSERT INTO signing_certificates (sha256, cert_pem, chain_pems, key_pem, source, created_at)
VALUES (:sha256, :cert_pem, :chain_pems, :key_pem, :source, :now)
ON CONFLICT DO NOTHING

-- current_generated_certificate --
-- The newest generated certificate not retired: the one that signs when no PKCS#12 is configured.
SELECT * FROM signing_certificates
WHERE source = 'generated' AND retired_at IS NULL
ORDER BY id DESC LIMIT 1

-- list_signing_certificates --
-- Every certificate the service ever signed with, oldest first.
SELECT * FROM signing_certificates ORDER BY id

-- retire_generated_certificates --
-- Stops the generated certificates from signing; they stay for verification.
UPDATE signing_certificates SET retired_at = :now WHERE source = 'generated' AND retired_at IS NULL

-- list_completed_results_of_many --
-- The audit logs and combined documents of the submissions with the given ids (a JSON array; a list page).
SELECT r.*, b.uuid AS blob_uuid, b.filename AS filename
FROM result_documents r JOIN blobs b ON b.id = r.blob_id
WHERE r.kind IN ('audit_log', 'combined') AND r.submission_id IN (SELECT value FROM json_each(:ids))

-- list_result_documents_of_many --
-- The produced files of the submissions with the given ids (a JSON array), with what a link needs, slot by slot.
SELECT r.*, b.uuid AS blob_uuid, b.filename AS filename
FROM result_documents r JOIN blobs b ON b.id = r.blob_id
WHERE r.submission_id IN (SELECT value FROM json_each(:ids))
ORDER BY r.submission_id, r.kind, r.submitter_id, r.position
