"""Infrastructure: clock, configuration, jobs, the PDF pool, files, mail, downloads, office conversion."""
