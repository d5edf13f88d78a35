-- The variables a template's DOCX documents read (`variables_schema`), and the DOCX source of a dynamic document
-- (`documents[].dynamic`), kept to be filled with variables; template_records shows the new column by itself.
ALTER TABLE templates ADD COLUMN variables_schema TEXT NOT NULL DEFAULT '{}';
ALTER TABLE template_documents ADD COLUMN source_blob_id INTEGER REFERENCES blobs (id);
