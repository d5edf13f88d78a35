-- The language of the page a consent was given on (a code of pages/i18n): its certificate and emails speak it.
ALTER TABLE consents ADD COLUMN language TEXT;
