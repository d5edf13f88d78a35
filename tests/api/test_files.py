"""Stored files and signed links."""

from datetime import timedelta

import pytest
from yarl import URL

from signsvc.http.appkeys import FILES
from signsvc.infra.files import REMOVAL_GRACE, NewFile
from tests.support.app import Api
from tests.support.system import S3_EMULATOR


@pytest.fixture(params=["directory", "database", pytest.param("s3", marks=S3_EMULATOR)])
async def files(request, aiohttp_client, make_app):
    """The file service of a running app, on each content store (S3: a local emulator)."""
    place = (
        {"storage_url": request.getfixturevalue("s3_url")} if request.param == "s3" else {"file_store": request.param}
    )
    api = Api(await aiohttp_client(make_app(**place)))
    return api, api.app[FILES]


async def store(files, data=b"%PDF-1.7 hello", filename="Zoë contract.pdf", content_type="application/pdf"):
    new = NewFile(data, filename, content_type)
    await files.write([new])
    async with files.db.transaction() as tx:
        return await files.record(tx, 1, new)


def link_of(service, blob) -> str:
    return service.links.link(blob.uuid, blob.filename)


def path_of(link: str) -> str:
    return URL(link).raw_path


async def test_a_signed_link_serves_the_file_with_its_type_and_name(files):
    api, service = files
    blob = await store(service)
    link = link_of(service, blob)
    assert link.startswith("http://signsvc.test/file/") and link.endswith("/Zo%C3%AB%20contract.pdf")
    reply = await api.with_key(None).get(path_of(link))
    assert (reply.status, reply.body) == (200, b"%PDF-1.7 hello")
    assert reply.headers["Content-Type"] == "application/pdf"
    assert reply.headers["Content-Disposition"] == (
        "inline; filename=\"Zo_ contract.pdf\"; filename*=UTF-8''Zo%C3%AB%20contract.pdf"
    )


async def test_head_answers_the_headers_without_the_body(files):
    api, service = files
    reply = await api.with_key(None).request("HEAD", path_of(link_of(service, await store(service))))
    assert (reply.status, reply.body, reply.headers["Content-Length"]) == (200, b"", "14")


async def test_head_answers_from_the_files_record_without_reading_its_contents(aiohttp_client, make_app):
    api = Api(await aiohttp_client(make_app(file_store="directory")))
    service = api.app[FILES]
    blob = await store(service)
    (service.contents.root / blob.sha256[:2] / blob.sha256[2:4] / blob.sha256).unlink()  # nothing left to read
    path = path_of(link_of(service, blob))
    reply = await api.with_key(None).request("HEAD", path)
    assert (reply.status, reply.body, reply.headers["Content-Length"]) == (200, b"", "14")
    reply = await api.with_key(None).request("HEAD", path, headers={"Range": "bytes=9-"})
    assert (reply.status, reply.headers["Content-Length"], reply.headers["Content-Range"]) == (
        206,
        "5",
        "bytes 9-13/14",
    )


@pytest.mark.parametrize(
    "header,status,body,content_range",
    [
        ("bytes=0-3", 206, b"%PDF", "bytes 0-3/14"),
        ("bytes=9-", 206, b"hello", "bytes 9-13/14"),
        ("bytes=-5", 206, b"hello", "bytes 9-13/14"),
        ("bytes=9-999", 206, b"hello", "bytes 9-13/14"),
        ("bytes=20-30", 416, b"", "bytes */14"),
        ("bytes=0-1,4-5", 200, b"%PDF-1.7 hello", None),
    ],
)
async def test_byte_ranges(files, header, status, body, content_range):
    api, service = files
    reply = await api.with_key(None).get(path_of(link_of(service, await store(service))), headers={"Range": header})
    assert (reply.status, reply.body, reply.headers.get("Content-Range")) == (status, body, content_range)


async def test_a_link_expires_40_minutes_after_it_was_issued(files, clock):
    api, service = files
    path = path_of(link_of(service, await store(service)))
    clock.advance(timedelta(minutes=39, seconds=59))
    assert (await api.with_key(None).get(path)).status == 200
    clock.advance(timedelta(seconds=1))
    reply = await api.with_key(None).get(path)
    assert (reply.status, reply.json) == (403, {"error": "Not authorized"})


async def test_a_fresh_link_works_after_the_old_one_expired(files, clock):
    api, service = files
    blob = await store(service)
    clock.advance(timedelta(hours=2))
    assert (await api.with_key(None).get(path_of(link_of(service, blob)))).status == 200


@pytest.mark.parametrize(
    "tamper",
    [
        lambda token: token[:-2] + ("AA" if not token.endswith("AA") else "BB"),
        lambda token: token.replace(".", ".9", 1),
        lambda token: "not-a-token",
    ],
)
async def test_a_tampered_link_is_404(files, tamper):
    api, service = files
    link = URL(link_of(service, await store(service)))
    token = link.raw_parts[2]
    reply = await api.with_key(None).get(f"/file/{tamper(token)}/{link.raw_parts[3]}")
    assert (reply.status, reply.json) == (404, {"error": "Not found"})


async def sweep(service, clock) -> None:
    """The periodic job that removes contents, once their grace period has passed."""
    clock.advance(REMOVAL_GRACE + timedelta(seconds=1))
    [kind] = service.kinds()
    await kind.handler({})


async def test_discarded_contents_are_removed_after_the_grace_period_unless_a_file_refers_to_them(files, clock):
    _, service = files
    kept = await store(service, data=b"kept")
    orphan = NewFile(b"orphan", "o.pdf", "application/pdf")
    await service.write([orphan, NewFile(b"kept", "k.pdf", "application/pdf")])
    await service.discard([orphan, NewFile(b"kept", "k.pdf", "application/pdf")])
    assert await service.contents.get(orphan.sha256) == b"orphan", "kept through the grace period"
    await sweep(service, clock)
    assert await service.contents.get(orphan.sha256) is None
    assert await service.read(kept) == b"kept"


async def test_deleting_a_file_removes_its_content_only_when_no_other_file_shares_it(files, clock):
    _, service = files
    first, second = await store(service), await store(service)
    async with service.db.transaction() as tx:
        await service.delete(tx, [first.id])
    await sweep(service, clock)
    assert await service.read(second) == b"%PDF-1.7 hello"
    async with service.db.transaction() as tx:
        await service.delete(tx, [second.id])
    await sweep(service, clock)
    assert await service.contents.get(second.sha256) is None


async def test_a_content_recorded_again_within_the_grace_period_stays(files, clock):
    """Another request (or host) wrote the same content before the last file of it went, and records it after:
    contents are written before the transaction that records them."""
    _, service = files
    first = await store(service)
    again = NewFile(b"%PDF-1.7 hello", "again.pdf", "application/pdf")
    await service.write([again])
    async with service.db.transaction() as tx:
        await service.delete(tx, [first.id])
    async with service.db.transaction() as tx:
        recorded = await service.record(tx, 1, again)
    await sweep(service, clock)
    assert await service.read(recorded) == b"%PDF-1.7 hello"
