"""The work of `python run.py backup PATH`, while the service runs, and `python run.py restore PATH`, into a new
database (the commands are `signsvc/cli/backup.py`'s, which imports this module only to run one).

A backup is a directory: the database copy (`signsvc.sqlite3`, or `postgres.dump` in pg_dump's custom format), the
contents of a directory store under `files/` (laid out as the store keeps them), and `backup.json`, written last, so
a directory without it is no finished backup. docs/backups.md tells operators the rest.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from signsvc.cli.database import announce
from signsvc.infra.config import Config
from storage import backup
from storage.backup import BackupError
from storage.contents import DirectoryStore
from storage.migrations import available

MANIFEST = "backup.json"
FILES = "files"
DATABASE_FILES = {"sqlite": "signsvc.sqlite3", "postgres": "postgres.dump"}
FORMAT = 1
OBJECT_STORE = (
    "files: in object storage at {store}, {status}: the bucket is backed up by the object store's own "
    "means (versioning, replication)"
)


@dataclass(frozen=True)
class Manifest:
    """`backup.json`: what the backup holds."""

    created_at: str
    database: str  # sqlite or postgres
    schema: str | None  # the Postgres schema dumped; None: the whole database (and always on SQLite)
    migration: int  # the last schema migration the database had
    database_file: str
    database_sha256: str
    content_store: str  # directory, database, or the s3:// URL of the object store
    contents: int  # file contents the database names
    files_copied: int  # of those, copied into files/ (directory store only)
    missing: list[str] = field(default_factory=list)  # named, but absent from the store or not matching their hash
    format: int = FORMAT


async def run_backup(config: Config, args: argparse.Namespace) -> int:
    os.umask(0o077)  # every file it writes holds secrets (the secret key, signing keys, documents): the owner's only
    announce(config)
    backup.check_tools(config.database_url, "pg_dump")  # before anything is made
    made = _new_directory(args.path)
    try:
        manifest = await _make(args.path, config)
    except OSError as exc:
        _undo(args.path, made)
        raise BackupError(f"cannot write the backup in {args.path}: {exc.strerror or exc}") from None
    except BaseException:
        _undo(args.path, made)
        raise
    print(
        f"backup of the {manifest.database} database ({_described(manifest)}) made in {args.path}: "
        f"{manifest.database_file}, {_files(manifest)}"
    )
    if manifest.content_store.startswith("s3://"):
        print(OBJECT_STORE.format(store=manifest.content_store, status="not copied"))
    _warn_missing(manifest, "are not in the backup")
    return 0


async def _make(path: Path, config: Config) -> Manifest:
    database = backup.backend(config.database_url)
    database_file = path / DATABASE_FILES[database]
    snapshot = await backup.copy_database(config.database_url, database_file)
    missing = []
    if config.content_store == "directory":
        missing = await backup.copy_contents(snapshot.hashes, _files_store(config), DirectoryStore(path / FILES))
    manifest = Manifest(
        created_at=datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        database=database,
        schema=snapshot.schema,
        migration=snapshot.migration,
        database_file=database_file.name,
        database_sha256=await backup.file_sha256(database_file),
        content_store=config.content_store,
        contents=len(snapshot.hashes),
        files_copied=len(snapshot.hashes) - len(missing) if config.content_store == "directory" else 0,
        missing=missing,
    )
    (path / MANIFEST).write_text(json.dumps(asdict(manifest), indent=2) + "\n")
    return manifest


async def run_restore(config: Config, args: argparse.Namespace) -> int:
    os.umask(0o077)
    announce(config)
    manifest = _read_manifest(args.path)
    _check_matches(manifest, config)
    backup.check_tools(config.database_url, "pg_restore")
    database_file = args.path / manifest.database_file
    if await backup.file_sha256(database_file) != manifest.database_sha256:
        raise BackupError(f"{database_file} does not match the SHA-256 in {MANIFEST}: the backup is damaged")
    await backup.check_restorable(config.database_url, manifest.schema)
    if manifest.files_copied:  # first, so that the database appears last, complete
        try:
            await backup.restore_contents(args.path / FILES, _files_store(config), manifest.files_copied)
        except OSError as exc:
            raise BackupError(
                f"cannot copy the backup's files into {_files_store(config).root}: {exc.strerror or exc}"
            ) from None
    await backup.restore_database(database_file, config.database_url)
    files = (
        f"{manifest.files_copied} files into {_files_store(config).root}" if manifest.files_copied else _files(manifest)
    )
    print(
        f"restored the backup of {manifest.created_at} ({_described(manifest)}): the database, {files}; "
        f"start the service with python run.py"
    )
    if manifest.content_store.startswith("s3://"):
        print(OBJECT_STORE.format(store=manifest.content_store, status="not in the backup"))
    _warn_missing(manifest, "were not in the backup: their links answer 410")
    return 0


def _read_manifest(path: Path) -> Manifest:
    try:
        found = json.loads((path / MANIFEST).read_text())
    except FileNotFoundError:
        raise BackupError(f"{path} is not a finished backup: it has no {MANIFEST}") from None
    except (OSError, ValueError) as exc:
        raise BackupError(f"{path / MANIFEST} cannot be read: {exc}") from None
    try:
        if found.get("format") == FORMAT:
            return Manifest(**found)
    except (AttributeError, TypeError):
        pass
    raise BackupError(f"{path / MANIFEST} is not a backup manifest of format {FORMAT}")


def _check_matches(manifest: Manifest, config: Config) -> None:
    """The backup can go where the configuration points: the same database system, a schema migration this signsvc
    knows, the same Postgres schema (pg_restore keeps its name) and the same kind of content store."""
    database = backup.backend(config.database_url)
    if manifest.database != database:
        raise BackupError(
            f"the backup is of a {manifest.database} database and the database URL names {database}: "
            f"restore it into {manifest.database}"
        )
    latest = available(database)[-1].version
    if manifest.migration > latest:
        raise BackupError(
            f"the backup's schema is at migration {manifest.migration} and this signsvc knows "
            f"{latest}: restore it with the signsvc version that made it, or a later one"
        )
    if database == "postgres" and (schema := backup.url_schema(config.database_url)) != manifest.schema:
        raise BackupError(
            f"the backup holds {_schema(manifest.schema)} and the database URL names {_schema(schema)}: "
            f"pg_restore keeps schema names, so name the same one (search_path=)"
        )
    if _store_kind(manifest.content_store) != _store_kind(config.content_store):
        raise BackupError(
            f"the backup's files are in the {_store_kind(manifest.content_store)} store and this "
            f"configuration keeps them in the {_store_kind(config.content_store)} store: restore with "
            f"the store it was made with, then move them with storage migrate --to"
        )


def _new_directory(path: Path) -> bool:
    """Makes the backup's directory; answers whether it was made (an existing one must be empty)."""
    try:
        if path.is_dir():
            if any(path.iterdir()):
                raise BackupError(f"{path} is not empty: a backup goes into a new or empty directory")
            return False
        if path.exists():
            raise BackupError(f"{path} is a file: a backup goes into a new or empty directory")
        path.mkdir(mode=0o700, parents=True)  # it holds the secret key and every signed document
    except OSError as exc:
        raise BackupError(f"cannot make the backup directory {path}: {exc.strerror}") from None
    return True


def _undo(path: Path, made: bool) -> None:
    """Removes a backup that did not finish: its directory, or what it wrote into an empty one."""
    if made:
        shutil.rmtree(path, ignore_errors=True)
        return
    for entry in path.iterdir():
        if entry.is_dir():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)


def _files_store(config: Config) -> DirectoryStore:
    return DirectoryStore.in_data_dir(config.data_dir)


def _schema(schema: str | None) -> str:
    return f"the schema {schema}" if schema else "the whole database (no search_path)"


def _store_kind(content_store: str) -> str:
    return "object" if content_store.startswith("s3://") else content_store


def _described(manifest: Manifest) -> str:
    schema = f"schema {manifest.schema}, " if manifest.schema else ""
    return f"{schema}migration {manifest.migration}"


def _files(manifest: Manifest) -> str:
    if manifest.content_store == "directory":
        return f"{manifest.files_copied} files"
    if manifest.content_store == "database":
        return f"{manifest.contents} files within the database"
    return f"{manifest.contents} files in object storage"


def _warn_missing(manifest: Manifest, consequence: str) -> None:
    if manifest.missing:
        print(
            f"signsvc: warning: {len(manifest.missing)} files the database names were missing from the store or "
            f"did not match their SHA-256 when the backup was made, and {consequence} (listed in {MANIFEST})",
            file=sys.stderr,
        )
