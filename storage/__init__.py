"""Durable state of signsvc: one driver boundary, an SQLite and a Postgres backend, named SQL, migrations."""

from storage.connect import open_database
from storage.database import Connection, Database, StorageError

__all__ = ["Connection", "Database", "StorageError", "open_database"]
