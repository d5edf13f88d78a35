-- A template document's conditions (`schema[].conditions`): the document applies only while they hold.
ALTER TABLE template_documents ADD COLUMN conditions TEXT NOT NULL DEFAULT '[]';
