-- Each process keeps the list pages it answered for the rest of their second (signsvc/http/list_pages.py) while
-- the records they show stay unchanged. Any change to such a record tells every process at commit, by a
-- notification on the channel `records` of the table's schema (one per transaction: Postgres folds the
-- same notification of one transaction into one). The tables of the service's machinery (jobs, outbox,
-- deliveries, nonces, rate limits...) change all the time and show in no such page: they notify nothing.
CREATE FUNCTION notify_records_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify(TG_TABLE_SCHEMA || ':records', '');
    RETURN NULL;
END;
$$;

DO $$
DECLARE
    shown TEXT;
BEGIN
    FOREACH shown IN ARRAY ARRAY[
        'accounts', 'users', 'templates', 'template_folders', 'template_documents', 'submissions', 'submitters',
        'submission_events', 'submission_attachments', 'signature_origins', 'blobs', 'result_documents',
        'result_document_versions', 'events', 'clickwraps', 'clickwrap_versions', 'consents', 'webhook_endpoints'
    ] LOOP
        EXECUTE format(
            'CREATE TRIGGER %I AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON %I '
            'FOR EACH STATEMENT EXECUTE FUNCTION notify_records_changed()',
            shown || '_records_changed', shown
        );
    END LOOP;
END;
$$;
