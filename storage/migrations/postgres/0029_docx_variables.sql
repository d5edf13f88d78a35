-- The variables a template's DOCX documents read (`variables_schema`), and the DOCX source of a dynamic document
-- (`documents[].dynamic`), kept to be filled with variables. template_records is made again: Postgres fixed the
-- columns of `templates.*` when the view was made.
ALTER TABLE templates ADD COLUMN variables_schema JSONB NOT NULL DEFAULT '{}';
ALTER TABLE template_documents ADD COLUMN source_blob_id BIGINT REFERENCES blobs (id);
DROP VIEW template_records;
CREATE VIEW template_records AS
SELECT templates.*, template_folders.name AS folder_name, users.email AS author_email,
       users.first_name AS author_first_name, users.last_name AS author_last_name,
       combined.uuid AS combined_uuid, combined.filename AS combined_filename
FROM templates
JOIN template_folders ON template_folders.id = templates.folder_id
JOIN users ON users.id = templates.author_id
LEFT JOIN blobs AS combined ON combined.id = templates.combined_blob_id;
