-- insert_result_document --
-- A produced file in its slot; a second row for the same slot is refused by the slot index.
INSERT INTO result_documents (submission_id, submitter_id, kind, position, name, blob_id, sha256, values_sha256,
                              created_at, pades_level, timestamp_renew_at)
VALUES (:submission_id, :submitter_id, :kind, :position, :name, :blob_id, :sha256, :values_sha256, :now,
        :pades_level, :timestamp_renew_at)

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
-- An earlier version of a file whose archive timestamp was renewed counts too.
-- Two lookups by the indexed hashes, not one OR that would read every row.
SELECT COUNT(*) AS count FROM (
    SELECT r.id FROM result_documents r
    WHERE r.sha256 = :sha256 AND r.kind IN ('submitter', 'final', 'audit_log', 'combined')
    UNION
    SELECT r.id FROM result_document_versions v JOIN result_documents r ON r.id = v.result_document_id
    WHERE v.sha256 = :sha256 AND r.kind IN ('submitter', 'final', 'audit_log', 'combined')
) issued

-- insert_signing_certificate --
-- A certificate to sign with or to trust; the same certificate again, or a second current generated
-- one, is ignored.
INSERT INTO signing_certificates (sha256, cert_pem, chain_pems, key_pem, source, created_at, ca_key_sealed)
VALUES (:sha256, :cert_pem, :chain_pems, :key_pem, :source, :now, :ca_key_sealed)
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

-- get_signing_crl --
-- The current CRL of the CA with this certificate hash.
SELECT * FROM signing_crls WHERE issuer_sha256 = :issuer_sha256

-- put_signing_crl --
-- A CRL of the CA; an older one than the one kept (another process renewed it meanwhile) is ignored.
INSERT INTO signing_crls (issuer_sha256, crl, this_update, next_update)
VALUES (:issuer_sha256, :crl, :this_update, :next_update)
ON CONFLICT (issuer_sha256) DO UPDATE
SET crl = excluded.crl, this_update = excluded.this_update, next_update = excluded.next_update
WHERE signing_crls.this_update < excluded.this_update

-- list_timestamps_due --
-- Stored files (result documents, consent certificates) whose archive timestamp is due for renewal, a file (blob)
-- once, oldest due first.
SELECT due.blob_id, MIN(due.renew_at) AS renew_at, MIN(b.account_id) AS account_id
FROM (SELECT blob_id, timestamp_renew_at AS renew_at FROM result_documents WHERE timestamp_renew_at <= :now
      UNION ALL
      SELECT certificate_blob_id, certificate_timestamp_renew_at FROM consents
      WHERE certificate_timestamp_renew_at <= :now) due
JOIN blobs b ON b.id = due.blob_id
GROUP BY due.blob_id
ORDER BY renew_at
LIMIT :limit

-- renew_result_file --
-- The result documents of a file now hold its renewed version (the blob keeps its id and uuid, so every link
-- stays valid); answers their ids.
UPDATE result_documents SET sha256 = :sha256, timestamp_renew_at = :renew_at
WHERE blob_id = :blob_id AND sha256 = :old_sha256
RETURNING id

-- postpone_timestamp_renewal --
-- A file's archive timestamp renewal is tried again later.
UPDATE result_documents SET timestamp_renew_at = :renew_at
WHERE blob_id = :blob_id AND timestamp_renew_at IS NOT NULL

-- postpone_consent_certificate_renewal --
UPDATE consents SET certificate_timestamp_renew_at = :renew_at
WHERE certificate_blob_id = :blob_id AND certificate_timestamp_renew_at IS NOT NULL

-- renew_consent_certificate --
-- A consent certificate's renewed archive timestamp is due again at :renew_at.
UPDATE consents SET certificate_timestamp_renew_at = :renew_at
WHERE certificate_blob_id = :blob_id AND certificate_timestamp_renew_at IS NOT NULL

-- insert_result_version --
-- An earlier version of a result document (its archive timestamp was renewed since).
INSERT INTO result_document_versions (sha256, result_document_id) VALUES (:sha256, :id)
ON CONFLICT DO NOTHING
