"""`python run.py storage migrate --to PLACE`: every file's content copied into another store, verified by SHA-256,
resumable; the service then serves every file from there."""

import hashlib
import shutil

import aiohttp
import pytest

from tests.support import service
from tests.support.databases import BACKENDS
from tests.support.documents import b64, pdf
from tests.support.samples import text_pdf


async def upload(server: service.Service, *documents: bytes) -> list[str]:
    """Templates of the documents; answers their document links."""
    links = []
    async with aiohttp.ClientSession(headers={"X-Auth-Token": server.keys["live"]}) as session:
        for number, document in enumerate(documents):
            body = {"name": f"T{number}", "documents": [{"name": f"d{number}", "file": b64(document)}]}
            async with session.post(f"{server.api}/templates", json=body) as reply:
                assert reply.status == 201, await reply.text()
                template = await reply.json()
            links.append(template["documents"][0]["url"])
    return links


async def fetch(url: str) -> bytes:
    async with aiohttp.ClientSession() as session, session.get(url) as reply:
        assert reply.status == 200, url
        return await reply.read()


# What the content stores hold does not depend on the database beside them: the first test covers both.
SQLITE_ONLY = pytest.mark.parametrize("backend", ["sqlite"], indirect=True)


@pytest.fixture
def environment(database_url, tmp_path) -> dict[str, str]:
    return {"SIGNSVC_DATABASE_URL": database_url, "SIGNSVC_DATA_DIR": str(tmp_path / "data")}


async def test_every_content_moves_to_object_storage_and_the_service_serves_it_from_there(
    environment, tmp_path, s3_url
):
    await moved_and_served(environment, tmp_path, s3_url)


@pytest.mark.parametrize("backend", [b for b in BACKENDS if b != "sqlite"], indirect=True)
async def test_every_content_moves_into_postgres_and_the_service_serves_it_from_there(environment, tmp_path):
    await moved_and_served(environment, tmp_path, "database")


async def moved_and_served(environment: dict[str, str], tmp_path, place: str) -> None:
    target = "s3" if place.startswith("s3://") else place
    server = await service.start(**environment)
    try:
        links = await upload(server, pdf(), text_pdf("Second document"))
        originals = [await fetch(link) for link in links]
        code, out, err = await service.run("storage", "migrate", "--to", place, **environment)
    finally:
        await server.stop()
    assert (code, err) == (0, "")
    setting = f"SIGNSVC_STORAGE_URL={place}" if target == "s3" else "SIGNSVC_FILE_STORE=database"
    unset = " (and unset SIGNSVC_FILE_STORE)" if target == "s3" else ""
    assert (
        out.splitlines()[-1] == f"to use it, set {setting}{unset} and restart the service (run this again "
        f"first if it served meanwhile)"
    )
    assert "4 copied, 0 there already" in out  # two documents and their page previews
    shutil.rmtree(tmp_path / "data" / "files")
    moved = await service.start(**environment, **dict([setting.split("=", 1)]))
    try:
        assert [await fetch(link.replace(server.site, moved.site)) for link in links] == originals
    finally:
        await moved.stop()


@SQLITE_ONLY
async def test_a_second_run_copies_only_what_is_not_there_yet(environment, s3_emulator, s3_url):
    server = await service.start(**environment)
    try:
        await upload(server, pdf())
    finally:
        await server.stop()
    assert (await service.run("storage", "migrate", "--to", s3_url, **environment))[0] == 0
    bucket = s3_url.removeprefix("s3://").split("/")[0]
    s3_emulator.client().delete_object(Bucket=bucket, Key=s3_emulator.keys(bucket)[0])
    code, out, _ = await service.run("storage", "migrate", "--to", s3_url, **environment)
    assert code == 0 and "1 copied, 1 there already" in out


@SQLITE_ONLY
async def test_a_content_missing_from_the_store_is_named_and_the_run_fails(environment, tmp_path, s3_url):
    server = await service.start(**environment)
    try:
        document = hashlib.sha256(await fetch((await upload(server, pdf()))[0])).hexdigest()
    finally:
        await server.stop()
    (tmp_path / "data" / "files" / document[:2] / document[2:4] / document).unlink()
    code, out, _ = await service.run("storage", "migrate", "--to", s3_url, **environment)
    assert code == 1
    assert f"missing from directory: {document}" in out.splitlines()
    assert "1 contents could not be copied to" in out


@pytest.mark.parametrize(
    "place,message",
    [
        ("ftp://files", "signsvc: --to ftp://files: use directory, database or s3://bucket/prefix\n"),
        ("directory", "signsvc: --to directory: the files are kept there already\n"),
    ],
)
async def test_a_place_that_is_not_a_store_is_refused_in_one_line(environment, place, message):
    assert await service.run("storage", "migrate", "--to", place, **environment) == (1, "", message)
