-- reset_service_data --
-- Forgets what the accounts made (templates, submissions, clickwraps, webhook endpoints, events, emails,
-- files, jobs, rate-limit windows, sign-in failures, account settings); keeps accounts, users, keys, settings, signing certificates, the
-- endpoints configured at start and the periodic jobs. Ids of emptied tables start again from 1.
DELETE FROM webhook_attempts;
DELETE FROM webhook_deliveries;
DELETE FROM events;
DELETE FROM result_document_versions;
DELETE FROM result_documents;
DELETE FROM emails;
DELETE FROM submission_attachments;
DELETE FROM submission_events;
DELETE FROM email_codes;
DELETE FROM phone_handoffs;
DELETE FROM signature_origins;
DELETE FROM account_settings;
DELETE FROM submitters;
DELETE FROM submissions;
DELETE FROM form_posts;
DELETE FROM form_nonces;
DELETE FROM consents;
DELETE FROM clickwrap_versions;
DELETE FROM clickwraps;
DELETE FROM template_documents;
DELETE FROM templates;
DELETE FROM template_folders;
DELETE FROM blobs;
DELETE FROM content_removals;
DELETE FROM rate_limit_hits;
DELETE FROM sign_in_failures;
DELETE FROM webhook_endpoints WHERE configured = 0;
DELETE FROM jobs WHERE dedupe_key IS NULL OR dedupe_key NOT LIKE 'periodic:%';
DELETE FROM sqlite_sequence WHERE name NOT IN ('accounts', 'users', 'api_keys', 'settings', 'signing_certificates',
                                               'webhook_endpoints', 'jobs');
