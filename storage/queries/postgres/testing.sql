-- reset_service_data --
-- Forgets what the accounts made (templates, submissions, clickwraps, webhook endpoints, events, emails,
-- files, jobs, rate-limit windows, sign-in failures, account settings); keeps accounts, users, keys, settings, signing certificates, the
-- endpoints configured at start and the periodic jobs. Ids of emptied tables start again from 1.
TRUNCATE webhook_attempts, webhook_deliveries, events, result_document_versions, result_documents, emails, submission_attachments,
    submission_events, submitters, submissions, consents, clickwrap_versions, clickwraps, template_documents,
    templates, template_folders, blobs, content_removals, rate_limit_hits, sign_in_failures, form_posts,
    form_nonces, email_codes, signature_origins, phone_handoffs RESTART IDENTITY;
DELETE FROM account_settings;
DELETE FROM webhook_endpoints WHERE NOT configured;
DELETE FROM jobs WHERE dedupe_key IS NULL OR dedupe_key NOT LIKE 'periodic:%';
