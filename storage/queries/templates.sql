-- find_folder --
-- An account's template folder by name.
SELECT * FROM template_folders WHERE account_id = :account_id AND name = :name

-- add_folder --
-- Creates a folder unless it exists; answers it either way.
INSERT INTO template_folders (account_id, name, created_at) VALUES (:account_id, :name, :created_at)
ON CONFLICT (account_id, name) DO UPDATE SET name = template_folders.name
RETURNING *

-- insert_template --
-- A new template of an account.
INSERT INTO templates (account_id, author_id, folder_id, slug, name, external_id, source, roles, fields,
                       preferences, combined_blob_id, shared_link, variables_schema, created_at, updated_at)
VALUES (:account_id, :author_id, :folder_id, :slug, :name, :external_id, :source, :roles, :fields,
        :preferences, :combined_blob_id, :shared_link, :variables_schema, :created_at, :created_at)
RETURNING *

-- get_template --
-- One template by id, with its folder, author and combined PDF.
SELECT * FROM template_records WHERE id = :id

-- list_templates --
-- A page of an account's templates, newest first, filtered by name, external id, folder, archived state.
SELECT * FROM template_records AS templates
WHERE templates.account_id = :account_id
  AND (CAST(:archived AS BOOLEAN) = (templates.archived_at IS NOT NULL))
  AND (CAST(:name_pattern AS TEXT) IS NULL OR LOWER(templates.name) LIKE :name_pattern ESCAPE '\')
  AND (CAST(:external_id AS TEXT) IS NULL OR templates.external_id = :external_id)
  AND (CAST(:folder AS TEXT) IS NULL OR templates.folder_name = :folder)
  AND (CAST(:after AS BIGINT) IS NULL OR templates.id < :after)
  AND (CAST(:before AS BIGINT) IS NULL OR templates.id > :before)
ORDER BY templates.id DESC
LIMIT :limit

-- list_folder_names --
-- The names of an account's folders that hold a template (put in order by the caller: the databases
-- order text differently).
SELECT template_folders.name FROM template_folders
WHERE template_folders.account_id = :account_id
  AND EXISTS (SELECT 1 FROM templates WHERE templates.folder_id = template_folders.id)

-- update_template --
-- Writes a template's editable state.
UPDATE templates
SET name = :name, external_id = :external_id, folder_id = :folder_id, roles = :roles, fields = :fields,
    preferences = :preferences, shared_link = :shared_link, archived_at = :archived_at,
    variables_schema = :variables_schema, updated_at = :updated_at
WHERE id = :id
RETURNING *

-- delete_template --
-- Deletes a template; its documents go with it.
DELETE FROM templates WHERE id = :id

-- insert_document --
-- A document of a template: its PDF, page sizes and page images, and a dynamic document's DOCX.
INSERT INTO template_documents (template_id, uuid, position, name, blob_id, pages, previews, conditions, source_blob_id)
VALUES (:template_id, :uuid, :position, :name, :blob_id, :pages, :previews, :conditions, :source_blob_id)

-- set_document_conditions --
-- Writes the conditions of a template's document.
UPDATE template_documents SET conditions = :conditions WHERE template_id = :template_id AND uuid = :uuid

-- lock_document --
-- One document of a template, locked until the transaction ends (writers of its page images take turns).
SELECT template_documents.*, blobs.uuid AS blob_uuid, blobs.filename
FROM template_documents JOIN blobs ON blobs.id = template_documents.blob_id
WHERE template_documents.id = :id

-- set_document_images --
-- Writes the page images of a template's document, and its pages with their texts.
UPDATE template_documents SET pages = :pages, previews = :previews WHERE id = :id

-- list_documents --
-- A template's documents in order.
SELECT template_documents.*, blobs.uuid AS blob_uuid, blobs.filename
FROM template_documents JOIN blobs ON blobs.id = template_documents.blob_id
WHERE template_id = :template_id ORDER BY position

-- lock_template --
-- Locks a template's row until the transaction ends (on SQLite every writing transaction holds the database): whoever
-- writes or deletes its documents takes it first, then the documents, so that they take turns and see each other's
-- writes (`lock_document`).
SELECT id FROM templates WHERE id = :id

-- list_documents_of_many --
-- The documents of an account's templates with the given ids (a JSON array; one query for a list page).
SELECT template_documents.*, blobs.uuid AS blob_uuid, blobs.filename
FROM template_documents JOIN blobs ON blobs.id = template_documents.blob_id
WHERE blobs.account_id = :account_id AND template_id IN (SELECT value FROM json_each(:ids))
ORDER BY template_id, position

-- get_templates --
-- The templates with the given ids (a JSON array), with their folders, authors and combined PDFs.
SELECT * FROM template_records WHERE id IN (SELECT value FROM json_each(:ids))

-- delete_documents --
-- Deletes a template's documents (their files are the caller's to forget).
DELETE FROM template_documents WHERE template_id = :template_id

-- delete_document --
-- Removes one document of a template (its files are forgotten by the caller).
DELETE FROM template_documents WHERE id = :id

-- set_document_position --
-- Moves a template's document to its place among the others.
UPDATE template_documents SET position = :position WHERE id = :id

-- set_combined_blob --
-- The PDF of all a template's documents, or none.
UPDATE templates SET combined_blob_id = :combined_blob_id WHERE id = :id
