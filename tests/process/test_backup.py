"""Backups with real processes: `python run.py backup` while the service serves and writes, `restore` into a new
database and data directory, and a service started there serves every record and file that existed before the
backup began; and what each command refuses."""

import asyncio
import hashlib
import json
import re
from pathlib import Path

import aiohttp
import asyncpg

from tests.support import service
from tests.support.documents import b64, pdf
from tests.support.signing import ANN_VALUES, BOB_VALUES, FIELDS

KEY = "backup-test-key-00000000000000000000000000"
# What differs between two servers showing the same record: their address, and the expiry and signature of links.
SIGNED_LINK = re.compile(r"/(file|e)/([0-9A-Za-z]+)\.\d+\.[^/\"]+")


def environment(database_url: str, data_dir: Path, **variables: str) -> dict[str, str]:
    return {
        "SIGNSVC_DATABASE_URL": database_url,
        "SIGNSVC_DATA_DIR": str(data_dir),
        "SIGNSVC_API_KEY": KEY,
        "SIGNSVC_RATE_LIMIT_PER_KEY": "0",
        "SIGNSVC_RATE_LIMIT_PER_IP": "0",
        **variables,
    }


async def create_template(http: aiohttp.ClientSession, api: str, number: int) -> int:
    body = {
        "name": f"NDA {number}",
        "documents": [{"name": "nda", "file": b64(pdf(text=f"Agreement {number}")), "fields": FIELDS}],
    }
    async with http.post(f"{api}/templates", json=body) as reply:
        assert reply.status == 201, await reply.text()
        return (await reply.json())["id"]


async def complete_submission(http: aiohttp.ClientSession, api: str, template_id: int) -> None:
    """A submission both signers complete, once its result documents and audit log exist."""
    body = {
        "template_id": template_id,
        "submitters": [
            {"email": "ann@example.com", "values": ANN_VALUES, "completed": True},
            {"email": "bob@example.com", "values": BOB_VALUES, "completed": True},
        ],
    }
    async with http.post(f"{api}/submissions", json=body) as reply:
        assert reply.status == 200, await reply.text()
        submission_id = (await reply.json())[0]["submission_id"]
    for _ in range(300):
        found = await get(http, f"{api}/submissions/{submission_id}")
        if found["audit_log_url"]:
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"no result documents 30 s after completion: {found}")


async def get(http: aiohttp.ClientSession, url: str) -> dict:
    async with http.get(url) as reply:
        assert reply.status == 200, await reply.text()
        return await reply.json()


async def every(http: aiohttp.ClientSession, api: str, path: str) -> list[dict]:
    found, after = [], None
    while True:
        page = await get(http, f"{api}/{path}?limit=100" + (f"&after={after}" if after else ""))
        found += page["data"]
        if not page["data"] or not (after := page["pagination"]["next"]):
            return found


class Shown:
    """Every template and submission a server shows (each as GET shows it), as JSON text that is the same from
    any server, and the SHA-256 of every file they link to, each downloaded (by the link without its expiry)."""

    def __init__(self) -> None:
        self.records: dict[str, dict[int, str]] = {}
        self.files: dict[str, str] = {}

    @classmethod
    async def by(cls, http: aiohttp.ClientSession, server: service.Service) -> "Shown":
        shown = cls()
        templates = await every(http, server.api, "templates")
        submissions = [
            await get(http, f"{server.api}/submissions/{found['id']}")
            for found in await every(http, server.api, "submissions")
        ]
        for kind, found in (("templates", templates), ("submissions", submissions)):
            texts = {record["id"]: json.dumps(record, sort_keys=True) for record in found}
            shown.records[kind] = {id: same_anywhere(text, server) for id, text in texts.items()}
            for link in {link for text in texts.values() for link in file_links(text, server)}:
                async with http.get(link) as reply:
                    assert reply.status == 200, link
                    shown.files[same_anywhere(link, server)] = hashlib.sha256(await reply.read()).hexdigest()
        return shown


def file_links(text: str, server: service.Service) -> list[str]:
    return re.findall(re.escape(server.site) + r"/file/[^\"]+", text)


def same_anywhere(text: str, server: service.Service) -> str:
    return SIGNED_LINK.sub(r"/\1/\2", text.replace(server.site, "SITE"))


class Writer:
    """Creates templates, one after another, until stopped: requests the backup runs beside."""

    def __init__(self, http: aiohttp.ClientSession, api: str) -> None:
        self.http, self.api = http, api
        self.created: list[int] = []
        self.stopping = asyncio.Event()

    async def run(self) -> list[int]:
        while not self.stopping.is_set():
            self.created.append(await create_template(self.http, self.api, 1000 + len(self.created)))
        return self.created


async def emptied(backend: str, database_url: str, tmp_path: Path) -> str:
    """A new database to restore into: a new SQLite file, or the Postgres schema dropped and made again empty
    (pg_restore keeps the schema's name)."""
    if backend == "sqlite":
        return f"sqlite:///{tmp_path / 'restored' / 'signsvc.sqlite3'}"
    schema = re.search(r"search_path=(\w+)", database_url)[1]
    conn = await asyncpg.connect(database_url)
    try:
        await conn.execute(f"DROP SCHEMA {schema} CASCADE; CREATE SCHEMA {schema}")
    finally:
        await conn.close()
    return database_url


async def test_a_backup_taken_while_requests_run_restores_every_record_and_file_there_was_before(
    backend, database_url, tmp_path
):
    live = environment(database_url, tmp_path / "live")
    server = await service.start(**live)
    try:
        async with aiohttp.ClientSession(headers={"X-Auth-Token": KEY}) as http:
            await complete_submission(http, server.api, await create_template(http, server.api, 1))
            await create_template(http, server.api, 2)
            before = await Shown.by(http, server)
            writer = Writer(http, server.api)
            writing = asyncio.create_task(writer.run())
            code, out, err = await service.run("backup", str(tmp_path / "backup"), **live)
            writer.stopping.set()
            created = await writing
    finally:
        await server.stop()
    assert code == 0, err
    assert re.fullmatch(
        rf"backup of the {backend} database \(.*migration \d+\) made in \S+: "
        rf"(signsvc.sqlite3|postgres.dump), \d+ files\n",
        out,
    ), out

    restored = environment(await emptied(backend, database_url, tmp_path), tmp_path / "restored")
    code, out, err = await service.run("restore", str(tmp_path / "backup"), **restored)
    assert code == 0, err
    assert out.startswith("restored the backup of ") and err == ""
    server = await service.start(**restored)
    try:
        async with aiohttp.ClientSession(headers={"X-Auth-Token": KEY}) as http:
            after = await Shown.by(http, server)
    finally:
        await server.stop()

    for kind in ("templates", "submissions"):
        assert {id: after.records[kind].get(id) for id in before.records[kind]} == before.records[kind]
    assert len(after.records["submissions"]) == 1
    # Of the templates created while the backup ran, the first ones (with their files, downloaded above): the
    # database was copied at one moment, while the requests went on.
    later = sorted(set(after.records["templates"]) - set(before.records["templates"]))
    assert later and later == created[: len(later)]
    assert {link: after.files.get(link) for link in before.files} == before.files
    assert len(before.files) >= 6  # the templates' documents and previews, the results and the audit log


async def test_a_backup_goes_into_a_new_or_empty_directory_only(tmp_path):
    env = environment(f"sqlite:///{tmp_path / 'signsvc.sqlite3'}", tmp_path / "data")
    assert (await service.run("migrate", **env))[0] == 0
    used = tmp_path / "used"
    used.mkdir()
    (used / "keep.txt").write_text("mine")
    (tmp_path / "a-file").write_text("mine")

    for path, reason in ((used, "is not empty"), (tmp_path / "a-file", "is a file")):
        code, out, err = await service.run("backup", str(path), **env)
        assert (code, out) == (1, "")
        assert err == f"signsvc: {path} {reason}: a backup goes into a new or empty directory\n"
    assert [entry.name for entry in used.iterdir()] == ["keep.txt"]
    assert (tmp_path / "a-file").read_text() == "mine"

    (tmp_path / "empty").mkdir(mode=0o755)
    code, _, err = await service.run("backup", str(tmp_path / "empty"), **env)
    assert code == 0, err
    assert (tmp_path / "empty" / "backup.json").is_file()


async def test_what_a_backup_writes_is_readable_by_its_owner_only(tmp_path):
    """It holds the secret key, the signing keys and every document, also in an existing directory others read."""
    env = environment(f"sqlite:///{tmp_path / 'signsvc.sqlite3'}", tmp_path / "data")
    server = await service.start(**env)
    try:
        async with aiohttp.ClientSession(headers={"X-Auth-Token": KEY}) as http:
            await create_template(http, server.api, 1)
    finally:
        await server.stop()
    (tmp_path / "shared").mkdir(mode=0o755)
    code, _, err = await service.run("backup", str(tmp_path / "shared"), **env)
    assert code == 0, err
    written = [path for path in (tmp_path / "shared").rglob("*") if path.is_file()]
    assert len(written) >= 4  # the manifest, the database, a document and its preview
    assert {oct(path.stat().st_mode & 0o077) for path in written} == {"0o0"}


async def test_a_restore_refuses_a_database_that_is_not_empty(backend, database_url, tmp_path):
    env = environment(database_url, tmp_path / "data")
    assert (await service.run("migrate", **env))[0] == 0
    code, _, err = await service.run("backup", str(tmp_path / "backup"), **env)
    assert code == 0, err

    code, out, err = await service.run("restore", str(tmp_path / "backup"), **env)
    assert (code, out) == (1, "")
    refusal = {
        "sqlite": r"there is a database at \S+ already: restore into a new path, or move it away first",
        "postgres": r"the schema \w+ is not empty \(\d+ tables, views or sequences\): restore into an empty one",
    }
    assert re.fullmatch(f"signsvc: {refusal[backend]}\n", err), err


async def test_a_restore_refuses_a_directory_that_is_not_a_finished_backup(tmp_path):
    env = environment(f"sqlite:///{tmp_path / 'signsvc.sqlite3'}", tmp_path / "data")
    (tmp_path / "unfinished").mkdir()
    code, out, err = await service.run("restore", str(tmp_path / "unfinished"), **env)
    assert (code, out, err) == (
        1,
        "",
        f"signsvc: {tmp_path / 'unfinished'} is not a finished backup: it has no backup.json\n",
    )
    assert not (tmp_path / "signsvc.sqlite3").exists()


async def test_a_postgres_backup_without_pg_dump_says_which_package_to_install(tmp_path):
    env = environment("postgresql://signsvc@127.0.0.1:9/signsvc", tmp_path / "data", PATH=str(tmp_path))
    code, out, err = await service.run("backup", str(tmp_path / "backup"), **env)
    assert (code, out) == (1, "")
    assert err == (
        "signsvc: pg_dump is not installed (or not on PATH): install the PostgreSQL client tools "
        "(Debian and Ubuntu: apt install postgresql-client)\n"
    )
    assert not (tmp_path / "backup").exists()


async def test_files_kept_in_the_database_are_restored_with_it(tmp_path):
    live = environment(f"sqlite:///{tmp_path / 'live.sqlite3'}", tmp_path / "live", SIGNSVC_FILE_STORE="database")
    server = await service.start(**live)
    try:
        async with aiohttp.ClientSession(headers={"X-Auth-Token": KEY}) as http:
            await create_template(http, server.api, 1)
            before = await Shown.by(http, server)
        code, out, err = await service.run("backup", str(tmp_path / "backup"), **live)
    finally:
        await server.stop()
    assert code == 0, err
    assert out.endswith(": signsvc.sqlite3, 2 files within the database\n")
    assert sorted(path.name for path in (tmp_path / "backup").iterdir()) == ["backup.json", "signsvc.sqlite3"]

    restored = environment(
        f"sqlite:///{tmp_path / 'restored.sqlite3'}", tmp_path / "restored", SIGNSVC_FILE_STORE="database"
    )
    assert (await service.run("restore", str(tmp_path / "backup"), **restored))[0] == 0
    server = await service.start(**restored)
    try:
        async with aiohttp.ClientSession(headers={"X-Auth-Token": KEY}) as http:
            after = await Shown.by(http, server)
    finally:
        await server.stop()
    assert (after.records, after.files) == (before.records, before.files)


async def test_a_backup_with_files_in_object_storage_says_the_bucket_is_backed_up_by_its_own_means(tmp_path):
    env = environment(f"sqlite:///{tmp_path / 'signsvc.sqlite3'}", tmp_path / "data")
    assert (await service.run("migrate", **env))[0] == 0
    env["SIGNSVC_STORAGE_URL"] = "s3://signsvc-files/live"  # never reached: the backup reads the database only
    code, out, err = await service.run("backup", str(tmp_path / "backup"), **env)
    assert code == 0, err
    assert out.splitlines()[1] == (
        "files: in object storage at s3://signsvc-files/live, not copied: the bucket is "
        "backed up by the object store's own means (versioning, replication)"
    )
    assert sorted(path.name for path in (tmp_path / "backup").iterdir()) == ["backup.json", "signsvc.sqlite3"]
