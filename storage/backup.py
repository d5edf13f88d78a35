"""Backing up and restoring a signsvc database and its file contents, beside the serving processes: a consistent
copy of the database in one file (SQLite's online backup API, or a `pg_dump` archive) that names the contents it
holds records of, and those contents copied, each checked against its SHA-256.

Contents are named by their SHA-256 and never change, so copying, after the snapshot, every content the snapshot's
`blobs` table names (read from the copy, or in the snapshot the dump was made from: never from the live database)
gives every file record of the copy its file. The connections here are the backup's own, opened from the URL.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import re
import shutil
import sqlite3
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

from storage.content_moves import Moved, move_contents
from storage.contents import DirectoryStore
from storage.database import StorageError

if TYPE_CHECKING:
    import asyncpg

POSTGRES_CLIENT = "install the PostgreSQL client tools (Debian and Ubuntu: apt install postgresql-client)"

# Run on the backup's own connections: the schema's version and the contents its file records name.
_VERSION = "SELECT MAX(version) FROM schema_migrations"
_CONTENTS = "SELECT DISTINCT sha256 FROM blobs ORDER BY sha256"
# The relations of one schema, or of every schema but the system's.
_RELATIONS = r"""
SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')
   AND CASE WHEN $1::text IS NULL THEN n.nspname <> 'information_schema' AND n.nspname NOT LIKE 'pg\_%'
            ELSE n.nspname = $1 END
"""
# Connection parameters libpq knows; asyncpg sends any other query parameter as a server setting.
_LIBPQ = frozenset(
    {
        "host",
        "hostaddr",
        "port",
        "dbname",
        "user",
        "password",
        "passfile",
        "channel_binding",
        "connect_timeout",
        "client_encoding",
        "options",
        "application_name",
        "fallback_application_name",
        "keepalives",
        "keepalives_idle",
        "keepalives_interval",
        "keepalives_count",
        "tcp_user_timeout",
        "replication",
        "gssencmode",
        "sslmode",
        "requiressl",
        "sslcompression",
        "sslcert",
        "sslkey",
        "sslpassword",
        "sslrootcert",
        "sslcrl",
        "sslcrldir",
        "sslsni",
        "requirepeer",
        "ssl_min_protocol_version",
        "ssl_max_protocol_version",
        "krbsrvname",
        "gsslib",
        "service",
        "target_session_attrs",
    }
)
_SHA256 = re.compile(r"^[0-9a-f]{64}$")


class BackupError(StorageError):
    """A backup or a restore cannot be made; the message says why in one line."""


@dataclass(frozen=True)
class Snapshot:
    """What a copy of the database holds: its last schema migration and the contents its file records name."""

    migration: int
    hashes: list[str]
    schema: str | None = None  # the Postgres schema dumped; None: the whole database (and always on SQLite)


def backend(database_url: str) -> str:
    if database_url.startswith("sqlite:///"):
        return "sqlite"
    if database_url.startswith(("postgresql://", "postgres://")):
        return "postgres"
    scheme = database_url.partition(":")[0]  # never the whole URL: it may hold a password
    raise BackupError(f"unsupported database URL scheme {scheme!r}: use sqlite:///path or postgresql://...")


def check_tools(database_url: str, *names: str) -> None:
    """The PostgreSQL client tools a backup or restore of this database runs are there (none for SQLite)."""
    if backend(database_url) == "postgres":
        for name in names:
            _tool(name)


async def copy_database(database_url: str, target: Path) -> Snapshot:
    """A consistent copy of the database, made while it serves, into the file `target`."""
    if backend(database_url) == "postgres":
        return await _dump_postgres(database_url, target)
    return await asyncio.to_thread(_copy_sqlite, _sqlite_path(database_url), target)


async def check_restorable(database_url: str, schema: str | None) -> None:
    """The database is new or empty: a new SQLite path, an empty (or absent) Postgres schema."""
    if backend(database_url) == "postgres":
        await _check_empty_postgres(database_url, schema)
    else:
        _check_new_sqlite(_sqlite_path(database_url))


async def restore_database(copy: Path, database_url: str) -> None:
    """Restores a copy `copy_database` made into the database the URL names (`check_restorable` first)."""
    if backend(database_url) == "postgres":
        await _restore_postgres(copy, database_url)
    else:
        await asyncio.to_thread(_restore_sqlite, copy, _sqlite_path(database_url))


# SQLite


def _sqlite_path(database_url: str) -> Path:
    path = database_url.removeprefix("sqlite:///")
    if path == ":memory:":
        raise BackupError("a database in memory lives and ends with its process: there is nothing to back up")
    return Path(path)


def _copy_sqlite(source: Path, target: Path) -> Snapshot:
    if not source.is_file():
        raise BackupError(f"there is no SQLite database at {source}")
    try:
        # mode=rw never creates a file; query_only: this connection is a reader beside the serving ones.
        live = sqlite3.connect(f"{source.absolute().as_uri()}?mode=rw", uri=True, timeout=30)
        try:
            live.execute("PRAGMA query_only = ON")
            copy = sqlite3.connect(target)
            try:
                # All pages in one step, in one read transaction: a consistent snapshot that, in WAL mode, never
                # stops the writers. (Copied a few pages at a time, a copy starts again after each write.)
                live.backup(copy)
                copy.execute("PRAGMA journal_mode = DELETE")  # one file, no -wal to carry
                return _checked_snapshot(copy, target)
            finally:
                copy.close()
        finally:
            live.close()
    except sqlite3.Error as exc:
        raise BackupError(f"cannot copy the SQLite database {source}: {exc}") from None


def _checked_snapshot(copy: sqlite3.Connection, target: Path) -> Snapshot:
    problems = [row[0] for row in copy.execute("PRAGMA integrity_check")]
    if problems != ["ok"]:
        raise BackupError(f"the copy {target} fails SQLite's integrity check: {problems[0]}")
    try:
        migration = copy.execute(_VERSION).fetchone()[0]
        hashes = [row[0] for row in copy.execute(_CONTENTS)]
    except sqlite3.OperationalError:
        raise BackupError("the database has no signsvc tables: start the service or run migrate first") from None
    return Snapshot(migration or 0, hashes)


def _check_new_sqlite(target: Path) -> None:
    if target.exists() or Path(f"{target}-wal").exists():
        raise BackupError(f"there is a database at {target} already: restore into a new path, or move it away first")


def _restore_sqlite(copy: Path, target: Path) -> None:
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        restoring = target.with_name(f"{target.name}.restoring")
        shutil.copyfile(copy, restoring)
        os.replace(restoring, target)  # the database appears whole, or not at all
    except OSError as exc:
        raise BackupError(f"cannot write the database {target}: {exc.strerror}") from None


# Postgres


def url_schema(database_url: str) -> str | None:
    """The schema a Postgres URL selects (the first of its `search_path`), or None for the default."""
    search_path = dict(parse_qsl(urlsplit(database_url).query)).get("search_path", "")
    first = search_path.split(",")[0].strip()
    if first.startswith('"'):
        return first[1:-1].replace('""', '"') or None
    return first.lower() or None  # as Postgres reads a name without quotes


def libpq_connection(database_url: str) -> tuple[str, dict[str, str]]:
    """The URL as the PostgreSQL client tools take it, and their environment: the password goes in `PGPASSWORD`
    (never on a command line), the server settings asyncpg takes from the query in `PGOPTIONS`."""
    parts = urlsplit(database_url)
    userinfo, at, hosts = parts.netloc.rpartition("@")
    user, _, password = userinfo.partition(":")
    env, kept, settings = {}, [], []
    if password:
        env["PGPASSWORD"] = unquote(password)
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        if name == "password":
            env["PGPASSWORD"] = value
        elif name in _LIBPQ or name == "database":
            kept.append(("dbname" if name == "database" else name, value))
        elif name != "search_path":  # the tools name their schema themselves
            escaped = value.replace("\\", "\\\\").replace(" ", "\\ ")  # PGOPTIONS splits at unescaped spaces
            settings.append(f"-c {name}={escaped}")
    if settings:
        env["PGOPTIONS"] = " ".join(settings)
    netloc = f"{user}@{hosts}" if at else hosts
    return urlunsplit((parts.scheme, netloc, parts.path, urlencode(kept), "")), env


async def _connect(database_url: str) -> asyncpg.Connection:
    import asyncpg  # only a backup of Postgres needs its driver

    try:
        return await asyncpg.connect(database_url)
    except (asyncpg.PostgresError, OSError) as exc:
        raise BackupError(f"cannot connect to Postgres: {exc}") from None


async def _dump_postgres(database_url: str, target: Path) -> Snapshot:
    """`pg_dump` of the schema the URL names (else the whole database), made from a snapshot this connection
    exports, in which it reads the contents to copy: the dump and the list are of one moment."""
    import asyncpg  # only a backup of Postgres needs its driver

    schema = url_schema(database_url)
    conn = await _connect(database_url)
    try:
        async with conn.transaction(isolation="repeatable_read", readonly=True):
            snapshot = await conn.fetchval("SELECT pg_export_snapshot()")
            try:
                migration = await conn.fetchval(_VERSION)
                hashes = [row[0] for row in await conn.fetch(_CONTENTS)]
            except asyncpg.UndefinedTableError:
                where = f"the schema {schema}" if schema else "the database"
                raise BackupError(f"{where} has no signsvc tables: start the service or run migrate first") from None
            only = [f"--schema={_pattern(schema)}"] if schema else []
            await _run(
                "pg_dump",
                "--format=custom",
                f"--file={target}",
                f"--snapshot={snapshot}",
                *only,
                database_url=database_url,
            )
    except asyncpg.PostgresError as exc:
        raise BackupError(f"Postgres refused the backup: {exc}") from None
    finally:
        await conn.close()
    return Snapshot(migration or 0, hashes, schema)


def _pattern(schema: str) -> str:
    return '"' + schema.replace('"', '""') + '"'  # taken literally, case and all


async def _check_empty_postgres(database_url: str, schema: str | None) -> None:
    conn = await _connect(database_url)
    try:
        relations = await conn.fetchval(_RELATIONS, schema)
    finally:
        await conn.close()
    if relations:
        where = f"the schema {schema}" if schema else "the database"
        raise BackupError(f"{where} is not empty ({relations} tables, views or sequences): restore into an empty one")


async def _restore_postgres(dump: Path, database_url: str) -> None:
    """`pg_restore` in one transaction, objects owned by the restoring user; a schema that exists already (empty:
    checked) is used as it is, without the dump's CREATE SCHEMA."""
    conn = await _connect(database_url)
    try:
        schemas = {row[0] for row in await conn.fetch("SELECT nspname FROM pg_namespace")}
    finally:
        await conn.close()
    listing = await _run("pg_restore", "--list", str(dump), database_url=None)
    kept = [line for line in listing.splitlines() if not _creates_one_of(line, schemas)]
    with tempfile.TemporaryDirectory() as directory:
        selection = Path(directory) / "restore.list"
        selection.write_text("\n".join(kept) + "\n")
        await _run(
            "pg_restore",
            "--single-transaction",
            "--exit-on-error",
            "--no-owner",
            "--no-acl",
            f"--use-list={selection}",
            str(dump),
            database_url=database_url,
        )


def _creates_one_of(entry: str, schemas: set[str]) -> bool:
    """Whether a line of `pg_restore --list` creates one of these schemas (`6; 2615 16387 SCHEMA - name owner`)."""
    match = re.match(r"^\d+; 2615 \d+ SCHEMA - (.*)$", entry)
    return match is not None and any(match[1] == name or match[1].startswith(f"{name} ") for name in schemas)


def _tool(name: str) -> str:
    program = shutil.which(name)
    if program is None:
        raise BackupError(f"{name} is not installed (or not on PATH): {POSTGRES_CLIENT}")
    return program


async def _run(name: str, *args: str, database_url: str | None) -> str:
    """Runs a PostgreSQL client tool to its end; answers its output. A failure is its first error line."""
    env = dict(os.environ)
    if database_url is not None:
        dsn, settings = libpq_connection(database_url)
        args, env = (*args, f"--dbname={dsn}"), {**env, **settings}
    process = await asyncio.create_subprocess_exec(
        _tool(name),
        *args,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await process.communicate()
    if process.returncode:
        lines = [line.strip() for line in err.decode(errors="replace").splitlines() if line.strip()]
        reason = next((line for line in lines if "error:" in line), lines[-1] if lines else "no message")
        raise BackupError(f"{name} failed (exit {process.returncode}): {reason}")
    return out.decode()


# Files


async def copy_contents(hashes: list[str], source: DirectoryStore, target: DirectoryStore) -> list[str]:
    """Copies each content, checked against its SHA-256; answers those missing from the source, or damaged."""
    moved = Moved()
    await move_contents(hashes, source, target, moved)
    return moved.missing + moved.damaged


async def restore_contents(source: Path, target: DirectoryStore, expected: int) -> None:
    """Copies every content of the backup's files/, each checked against its SHA-256, into the store."""
    paths = await asyncio.to_thread(lambda: sorted(path for path in source.glob("*/*/*") if path.is_file()))
    if len(paths) != expected:
        raise BackupError(f"{source} holds {len(paths)} files and the backup made {expected}: the backup is damaged")
    for path in paths:
        data = await asyncio.to_thread(path.read_bytes)
        sha256 = path.name
        if not _SHA256.match(sha256) or await asyncio.to_thread(_sha256, data) != sha256:
            raise BackupError(f"{path} does not match its SHA-256: the backup is damaged")
        await target.put(sha256, data)


async def file_sha256(path: Path) -> str:
    def digest() -> str:
        with path.open("rb") as file:
            return hashlib.file_digest(file, "sha256").hexdigest()

    try:
        return await asyncio.to_thread(digest)
    except OSError as exc:
        raise BackupError(f"{path} cannot be read: {exc.strerror}") from None


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
