-- get_templates --
-- The templates with the given ids, with their folders, authors and combined PDFs.
SELECT * FROM template_records WHERE id = ANY(CAST(:ids AS BIGINT[]))

-- list_documents_of_many --
-- The documents of an account's templates with the given ids (one query for a list page).
SELECT template_documents.*, blobs.uuid AS blob_uuid, blobs.filename
FROM template_documents JOIN blobs ON blobs.id = template_documents.blob_id
WHERE blobs.account_id = :account_id AND template_id = ANY(CAST(:ids AS BIGINT[]))
ORDER BY template_id, position

-- lock_template --
-- Locks a template's row until the transaction ends: whoever writes or deletes its documents takes it first, then the
-- documents, so that they take turns and see each other's writes (`lock_document`).
SELECT id FROM templates WHERE id = :id FOR UPDATE

-- lock_document --
-- One document of a template, locked until the transaction ends (writers of its page images take turns).
SELECT template_documents.*, blobs.uuid AS blob_uuid, blobs.filename
FROM template_documents JOIN blobs ON blobs.id = template_documents.blob_id
WHERE template_documents.id = :id
FOR UPDATE OF template_documents
