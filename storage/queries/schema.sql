-- ping --
-- Answers when the database does.
SELECT 1 AS ok

-- create_migrations_table --
-- The record of applied migrations, created before the first one runs.
CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at TEXT NOT NULL
)

-- migrations_table_exists --
-- Whether the record of applied migrations exists yet (a new database has none).
SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations') AS present

-- applied_migrations --
-- The versions of the migrations that have run.
SELECT version FROM schema_migrations

-- migration_applied --
-- Whether the migration with this version has run.
SELECT version FROM schema_migrations WHERE version = :version

-- record_migration --
-- Marks a migration as applied, in the transaction that ran it.
INSERT INTO schema_migrations (version, name, applied_at) VALUES (:version, :name, :applied_at)

-- get_setting --
-- One service-wide setting.
SELECT value FROM settings WHERE name = :name

-- add_setting --
-- Stores a setting unless another process stored it first.
INSERT INTO settings (name, value) VALUES (:name, :value) ON CONFLICT (name) DO NOTHING
