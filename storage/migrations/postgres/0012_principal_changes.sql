-- Each process keeps the principals of the API keys it has seen (who a key acts as, and whether its account
-- may use the API). Any change to a key, a user or an account tells every process at commit, by a
-- notification on the channel `principals` (named after the schema, as every channel of the
-- service is), so that no process answers a request with what was true before. The changes are counted too,
-- as on SQLite (where processes read the count instead).
CREATE TABLE change_counters (
    channel TEXT PRIMARY KEY,
    counter BIGINT NOT NULL
);
INSERT INTO change_counters (channel, counter) VALUES ('principals', 0);

CREATE FUNCTION notify_principals_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE change_counters SET counter = counter + 1 WHERE channel = 'principals';
    PERFORM pg_notify(current_schema() || ':principals', '');
    RETURN NULL;
END;
$$;

CREATE TRIGGER api_keys_changed AFTER UPDATE OR DELETE ON api_keys
    FOR EACH STATEMENT EXECUTE FUNCTION notify_principals_changed();
CREATE TRIGGER users_changed AFTER UPDATE OR DELETE ON users
    FOR EACH STATEMENT EXECUTE FUNCTION notify_principals_changed();
CREATE TRIGGER accounts_changed AFTER UPDATE OR DELETE ON accounts
    FOR EACH STATEMENT EXECUTE FUNCTION notify_principals_changed();
