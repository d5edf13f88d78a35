-- get_consents --
-- The consents with the given ids, with their certificates' files.
SELECT consents.*, blobs.uuid AS certificate_uuid, blobs.filename AS certificate_filename
FROM consents LEFT JOIN blobs ON blobs.id = consents.certificate_blob_id
WHERE consents.id = ANY(CAST(:ids AS BIGINT[]))
