-- get_templates --
-- The templates with the given ids, with their folders, authors and combined PDFs.
SELECT * FROM template_records WHERE id = ANY(CAST(:ids AS BIGINT[]))
