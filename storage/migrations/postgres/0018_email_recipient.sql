-- The recipient of an email as the per-recipient cap counts it (`storage.emails.recipient`: lower case, a `+tag`
-- of the local part and the domain's trailing dot left out), so that variants of one mailbox share its count.
-- Older emails get their address in lower case without the trailing dot; their tags only mattered for an hour.
ALTER TABLE emails ADD COLUMN recipient TEXT NOT NULL DEFAULT '';
UPDATE emails SET recipient = lower(rtrim(to_address, '.'));
DROP INDEX emails_recipient;
CREATE INDEX emails_recipient ON emails (account_id, recipient, created_at);
