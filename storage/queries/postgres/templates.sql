-- get_templates --
-- The templates with the given ids, with their folders, authors and combined PDFs.
SELECT * FROM template_records WHERE id = ANY(CAST(:ids AS BIGINT[]))

-- list_documents_of_many --
-- The documents of an account's templates with the given ids (one query for a list page).
SELECT template_documents.*, blobs.uuid AS blob_uuid, blobs.filename
FROM template_documents JOIN blobs ON blobs.id = template_documents.blob_id
WHERE blobs.account_id = :account_id AND template_id = ANY(CAST(:ids AS BIGINT[]))
ORDER BY template_id, position

-- lock_documents --
-- A template's documents in order, locked until the transaction ends: a writer that deletes or replaces them reads
-- what the page images' writer has written, or makes it wait (`lock_document`).
SELECT template_documents.*, blobs.uuid AS blob_uuid, blobs.filename
FROM template_documents JOIN blobs ON blobs.id = template_documents.blob_id
WHERE template_id = :template_id ORDER BY position
FOR UPDATE OF template_documents

-- lock_document --
-- One document of a template, locked until the transaction ends (writers of its page images take turns).
SELECT template_documents.*, blobs.uuid AS blob_uuid, blobs.filename
FROM template_documents JOIN blobs ON blobs.id = template_documents.blob_id
WHERE template_documents.id = :id
FOR UPDATE OF template_documents
