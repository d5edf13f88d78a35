-- Each process keeps the principals of the API keys it has seen (who a key acts as, and whether its account
-- may use the API). Any change to a key, a user or an account tells every process at commit, by a
-- notification on the channel `principals` of the table's schema (every channel of the service is named
-- after its schema), so that no process answers a request with what was true before. The schema is the
-- table's, not the writing session's: an UPDATE made by hand with another search_path is heard too.
CREATE FUNCTION notify_principals_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify(TG_TABLE_SCHEMA || ':principals', '');
    RETURN NULL;
END;
$$;

CREATE TRIGGER api_keys_changed AFTER UPDATE OR DELETE ON api_keys
    FOR EACH STATEMENT EXECUTE FUNCTION notify_principals_changed();
CREATE TRIGGER users_changed AFTER UPDATE OR DELETE ON users
    FOR EACH STATEMENT EXECUTE FUNCTION notify_principals_changed();
CREATE TRIGGER accounts_changed AFTER UPDATE OR DELETE ON accounts
    FOR EACH STATEMENT EXECUTE FUNCTION notify_principals_changed();
