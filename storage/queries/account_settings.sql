-- get_account_setting --
-- One setting of an account, as JSON text.
SELECT value FROM account_settings WHERE account_id = :account_id AND name = :name

-- put_account_setting --
-- Stores an account's setting, replacing the one it had.
INSERT INTO account_settings (account_id, name, value) VALUES (:account_id, :name, :value)
ON CONFLICT (account_id, name) DO UPDATE SET value = excluded.value

-- delete_account_setting --
-- Forgets an account's setting: its default applies again.
DELETE FROM account_settings WHERE account_id = :account_id AND name = :name
