-- create_migrations_table --
-- The record of applied migrations, created before the first one runs.
CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at TIMESTAMPTZ NOT NULL
)

-- migrations_table_exists --
-- Whether the record of applied migrations exists yet (a new database has none), in the schema the migrations
-- create it in: the first of the search path, not any schema further along it.
SELECT to_regclass(format('%I.schema_migrations', current_schema())) IS NOT NULL AS present
