-- insert_account --
-- A new live or test account.
INSERT INTO accounts (name, is_test, linked_account_id, api_access_approved, created_at)
VALUES (:name, :is_test, :linked_account_id, :api_access_approved, :created_at)
RETURNING *

-- link_account --
-- Points a live account at its test account.
UPDATE accounts SET linked_account_id = :linked_account_id WHERE id = :id

-- get_account --
-- One account by id.
SELECT * FROM accounts WHERE id = :id

-- first_live_account --
-- The account created on first start.
SELECT * FROM accounts WHERE NOT is_test ORDER BY id LIMIT 1

-- list_live_accounts --
-- Every live account, oldest first.
SELECT * FROM accounts WHERE NOT is_test ORDER BY id

-- set_api_access --
-- Approves or revokes API access of a live account (its test account follows it).
UPDATE accounts SET api_access_approved = :approved WHERE id = :id AND NOT is_test RETURNING *

-- insert_user --
-- A new user of a live account.
INSERT INTO users (account_id, email, first_name, last_name, created_at)
VALUES (:account_id, :email, :first_name, :last_name, :created_at)
RETURNING *

-- get_user --
-- One user by id.
SELECT * FROM users WHERE id = :id

-- find_user_by_email --
-- One user by email address.
SELECT * FROM users WHERE email = :email

-- first_user --
-- The default user: the oldest user of the oldest live account.
SELECT users.* FROM users JOIN accounts ON accounts.id = users.account_id
WHERE NOT accounts.is_test ORDER BY accounts.id, users.id LIMIT 1

-- list_users --
-- A page of an account's users, newest first.
SELECT * FROM users
WHERE account_id = :account_id
  AND (CAST(:after AS BIGINT) IS NULL OR id < :after)
  AND (CAST(:before AS BIGINT) IS NULL OR id > :before)
ORDER BY id DESC
LIMIT :limit

-- insert_api_key --
-- A new active key of a user for the live or the test account.
INSERT INTO api_keys (user_id, account_id, mode, key_hash, key_sealed, created_at)
VALUES (:user_id, :account_id, :mode, :key_hash, :key_sealed, :created_at)
RETURNING *

-- seal_api_key --
-- Keeps a key sealed (a fixed key set by configuration, sealed with the secret key in use).
UPDATE api_keys SET key_sealed = :key_sealed WHERE id = :id

-- active_api_keys --
-- A user's keys in use, live first.
SELECT * FROM api_keys WHERE user_id = :user_id AND revoked_at IS NULL ORDER BY mode

-- revoke_api_keys --
-- Revokes a user's active key of one mode.
UPDATE api_keys SET revoked_at = :revoked_at
WHERE user_id = :user_id AND mode = :mode AND revoked_at IS NULL

-- find_api_key --
-- A key by hash, revoked or not.
SELECT * FROM api_keys WHERE key_hash = :key_hash

-- restore_api_key --
-- Makes a revoked key the user's active key again (a fixed key set by configuration).
UPDATE api_keys SET revoked_at = NULL WHERE id = :id

-- find_principal --
-- Who an active key acts as: its user, the account it addresses, and that account's link.
SELECT api_keys.id AS key_id, api_keys.mode,
       users.id AS user_id, users.email, users.first_name, users.last_name,
       accounts.id AS account_id, accounts.linked_account_id,
       live.api_access_approved, accounts.name AS account_name
FROM api_keys
JOIN users ON users.id = api_keys.user_id
JOIN accounts ON accounts.id = api_keys.account_id
JOIN accounts AS live ON live.id = users.account_id
WHERE api_keys.key_hash = :key_hash
  AND api_keys.revoked_at IS NULL
  AND users.archived_at IS NULL

-- set_password --
-- A user's new password hash.
UPDATE users SET password_hash = :password_hash WHERE id = :id RETURNING *

-- rehash_password --
-- The same password's hash made again with current parameters, unless the password changed meanwhile.
UPDATE users SET password_hash = :password_hash WHERE id = :id AND password_hash = :previous RETURNING *

-- archive_user --
-- Deactivates a user: their keys and console sessions stop working.
UPDATE users SET archived_at = :archived_at WHERE id = :id AND archived_at IS NULL RETURNING *

-- set_admin --
-- Makes a user the instance administrator, or no longer one.
UPDATE users SET is_admin = :is_admin WHERE id = :id RETURNING *

-- insert_user_link --
-- A one-time link that sets a user's password.
INSERT INTO user_links (user_id, purpose, token_hash, expires_at, created_at)
VALUES (:user_id, :purpose, :token_hash, :expires_at, :created_at)
RETURNING *

-- void_user_links --
-- Ends a user's unused links of one purpose (a newer one replaces them).
UPDATE user_links SET used_at = :now WHERE user_id = :user_id AND purpose = :purpose AND used_at IS NULL

-- find_user_link --
-- A link by the hash of its token.
SELECT * FROM user_links WHERE token_hash = :token_hash

-- use_user_link --
-- Marks a link used, once: no row when it was used already.
UPDATE user_links SET used_at = :now WHERE id = :id AND used_at IS NULL RETURNING *

-- end_sessions --
-- Moves a user to the next session epoch: every console session begun before ends.
UPDATE users SET session_epoch = session_epoch + 1 WHERE id = :id

-- void_all_user_links --
-- Ends every unused link of a user (their password was just set).
UPDATE user_links SET used_at = :now WHERE user_id = :user_id AND used_at IS NULL

-- restore_user --
-- Makes a deactivated user active again.
UPDATE users SET archived_at = NULL WHERE id = :id RETURNING *

-- get_users --
-- The users with the given ids (a JSON array).
SELECT * FROM users WHERE id IN (SELECT value FROM json_each(:ids))
