"""The content stores' contract: the directory, the database (SQLite and Postgres) and S3-compatible object storage
(a local emulator) keep file contents by SHA-256 alike."""

import asyncio
import hashlib
from collections.abc import AsyncIterator

import pytest

from storage import Database
from storage.contents import ContentStore, DatabaseStore, DirectoryStore
from storage.object_store import ObjectStore, ObjectStoreError
from tests.support.system import S3_EMULATOR

DATA = b"%PDF-1.7 contract of the content stores"
SHA = hashlib.sha256(DATA).hexdigest()


@pytest.fixture(params=["directory", "database", pytest.param("s3", marks=S3_EMULATOR)])
async def store(request, db: Database, tmp_path) -> AsyncIterator[ContentStore]:
    if request.param == "directory":
        opened: ContentStore = DirectoryStore(tmp_path / "files")
    elif request.param == "database":
        opened = DatabaseStore(db)
    else:
        opened = await ObjectStore.open(request.getfixturevalue("s3_url"))
    yield opened
    await opened.close()


async def test_a_content_put_is_got_back_by_its_sha256(store):
    await store.put(SHA, DATA)
    assert await store.get(SHA) == DATA
    assert await store.exists(SHA)


async def test_an_unknown_content_is_none_and_does_not_exist(store):
    assert await store.get("0" * 64) is None
    assert await store.get_range("0" * 64, 0, 3) is None
    assert not await store.exists("0" * 64)


async def test_putting_the_same_content_twice_is_no_error_and_one_delete_removes_it(store):
    await store.put(SHA, DATA)
    await store.put(SHA, DATA)
    await store.delete(SHA)
    assert await store.get(SHA) is None


@pytest.mark.parametrize(
    "start,end,expected", [(0, 3, b"%PDF"), (9, 16, b"contract"), (len(DATA) - 6, len(DATA) - 1, b"stores")]
)
async def test_a_range_answers_those_bytes_both_ends_included(store, start, end, expected):
    await store.put(SHA, DATA)
    assert await store.get_range(SHA, start, end) == expected


async def test_deleting_an_unknown_content_is_no_error(store):
    await store.delete("0" * 64)


async def test_clear_removes_every_content(store):
    other = b"another file"
    await store.put(SHA, DATA)
    await store.put(hashlib.sha256(other).hexdigest(), other)
    await store.clear()
    assert await store.get(SHA) is None and await store.get(hashlib.sha256(other).hexdigest()) is None


async def test_objects_are_named_by_prefix_and_hash_like_the_directory_stores_files(s3_emulator, s3_url):
    store = await ObjectStore.open(s3_url)
    try:
        await store.put(SHA, DATA)
    finally:
        await store.close()
    bucket = s3_url.removeprefix("s3://").split("/")[0]
    assert s3_emulator.keys(bucket) == [f"signsvc/{SHA[:2]}/{SHA[2:4]}/{SHA}"]


async def test_clear_leaves_objects_outside_the_prefix(s3_emulator, s3_url):
    bucket = s3_url.removeprefix("s3://").split("/")[0]
    s3_emulator.client().put_object(Bucket=bucket, Key="elsewhere/keep", Body=b"x")
    store = await ObjectStore.open(s3_url)
    try:
        await store.put(SHA, DATA)
        await store.clear()
    finally:
        await store.close()
    assert s3_emulator.keys(bucket) == ["elsewhere/keep"]


async def test_a_missing_bucket_is_refused_at_open_saying_so(s3_emulator):
    with pytest.raises(ObjectStoreError, match=r"NoSuchBucket.*the bucket does not exist"):
        await ObjectStore.open("s3://no-such-bucket-here/files")


async def test_wrong_credentials_are_refused_at_open_naming_the_variables(s3_emulator, s3_url, monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "wrong")
    monkeypatch.setattr("moto.settings.INITIAL_NO_AUTH_ACTION_COUNT", 0)
    with pytest.raises(ObjectStoreError, match="check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"):
        await ObjectStore.open(s3_url)


async def test_an_endpoint_that_does_not_answer_is_refused_at_open_naming_it(s3_emulator, s3_url, monkeypatch):
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9")
    with pytest.raises(ObjectStoreError, match=r"did not answer.*check AWS_ENDPOINT_URL=http://127.0.0.1:9"):
        await ObjectStore.open(s3_url)


async def test_processes_opening_one_bucket_at_once_all_pass_the_start_check(s3_url):
    """Every worker of --workers, and hosts restarted together, check the store at the same moment."""
    stores = await asyncio.gather(*(ObjectStore.open(s3_url) for _ in range(6)))
    await asyncio.gather(*(store.close() for store in stores))
