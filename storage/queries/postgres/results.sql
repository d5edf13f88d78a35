-- list_completed_results_of_many --
-- The audit logs and combined documents of the submissions with the given ids (a JSON array; a list page).
SELECT r.*, b.uuid AS blob_uuid, b.filename AS filename
FROM result_documents r JOIN blobs b ON b.id = r.blob_id
WHERE r.kind IN ('audit_log', 'combined')
  AND r.submission_id IN (SELECT CAST(jsonb_array_elements_text(:ids) AS BIGINT))

-- list_result_documents_of_many --
-- The produced files of the submissions with the given ids, with what a link needs, slot by slot.
SELECT r.*, b.uuid AS blob_uuid, b.filename AS filename
FROM result_documents r JOIN blobs b ON b.id = r.blob_id
WHERE r.submission_id = ANY(CAST(:ids AS BIGINT[]))
ORDER BY r.submission_id, r.kind, r.submitter_id, r.position
