-- Each process keeps the principals of the API keys it has seen (who a key acts as, and whether its account
-- may use the API). Any change to a key, a user or an account counts in `change_counters`, which every
-- process reads (after SQLite's cheap `PRAGMA data_version` says another connection committed) before it
-- trusts what it keeps.
CREATE TABLE change_counters (
    channel TEXT PRIMARY KEY,
    counter INTEGER NOT NULL
);
INSERT INTO change_counters (channel, counter) VALUES ('principals', 0);

CREATE TRIGGER api_keys_updated AFTER UPDATE ON api_keys
BEGIN UPDATE change_counters SET counter = counter + 1 WHERE channel = 'principals'; END;
CREATE TRIGGER api_keys_deleted AFTER DELETE ON api_keys
BEGIN UPDATE change_counters SET counter = counter + 1 WHERE channel = 'principals'; END;
CREATE TRIGGER users_updated AFTER UPDATE ON users
BEGIN UPDATE change_counters SET counter = counter + 1 WHERE channel = 'principals'; END;
CREATE TRIGGER users_deleted AFTER DELETE ON users
BEGIN UPDATE change_counters SET counter = counter + 1 WHERE channel = 'principals'; END;
CREATE TRIGGER accounts_updated AFTER UPDATE ON accounts
BEGIN UPDATE change_counters SET counter = counter + 1 WHERE channel = 'principals'; END;
CREATE TRIGGER accounts_deleted AFTER DELETE ON accounts
BEGIN UPDATE change_counters SET counter = counter + 1 WHERE channel = 'principals'; END;
