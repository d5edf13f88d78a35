-- get_template_by_slug --
-- One template by the slug of its public link, with its folder, author and combined PDF.
SELECT * FROM template_records WHERE slug = :slug
