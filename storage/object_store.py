"""File contents in S3-compatible object storage (`s3://bucket/prefix`), through aiobotocore.

Objects are named `prefix/ab/cd/<sha256>` like the directory store's files, written with their SHA-256 as the
object's checksum, so the store itself refuses a body damaged on the way. The endpoint, region and credentials
come from the variables every S3 tool reads (`AWS_ENDPOINT_URL`, `AWS_DEFAULT_REGION`, `AWS_ACCESS_KEY_ID`,
`AWS_SECRET_ACCESS_KEY`, or botocore's other sources). aiobotocore is imported only when a store is opened:
a service that keeps its files elsewhere never pays for it.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import os
import uuid
from collections.abc import AsyncIterator
from typing import Any

import aiohttp

from storage.database import StorageError

# Several objects of one document (its page previews) go up side by side, but never more than this at once.
PARALLEL_REQUESTS = 16
TIMEOUTS = {"connect_timeout": 5, "read_timeout": 30}
CREDENTIALS = "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"


class ObjectStoreError(StorageError):
    """The object store did not answer, or refused a request."""


class ObjectStore:
    """A content store in a bucket; `open` checks at start that the bucket can be read and written."""

    def __init__(self, url: str, client: Any, exits: contextlib.AsyncExitStack) -> None:
        bucket, _, prefix = url.removeprefix("s3://").partition("/")
        self.url, self.bucket, self.prefix = url, bucket, prefix.strip("/")
        self._client, self._exits = client, exits
        self._parallel = asyncio.Semaphore(PARALLEL_REQUESTS)

    @classmethod
    async def open(cls, url: str) -> ObjectStore:
        """The store `url` names, checked; a store that cannot be used raises ObjectStoreError saying why."""
        try:
            from aiobotocore.config import AioConfig
            from aiobotocore.session import get_session
        except ImportError:
            raise ObjectStoreError(
                f"{url} needs aiobotocore, which signsvc's s3 extra installs "
                f"(pip install '.[s3]' in its source directory)"
            ) from None
        # A custom endpoint (MinIO, Ceph, an emulator) is addressed by path: its buckets have no DNS names. Checksums
        # only where S3 asks for them: several S3-compatible stores refuse the ones botocore adds by default (ours,
        # the SHA-256 of each content, is sent explicitly and checked at start).
        style = "path" if os.environ.get("AWS_ENDPOINT_URL") else "auto"
        config = AioConfig(
            s3={"addressing_style": style},
            retries={"max_attempts": 2, "mode": "standard"},
            signature_version="s3v4",
            max_pool_connections=PARALLEL_REQUESTS,
            request_checksum_calculation="when_required",
            response_checksum_validation="when_required",
            **TIMEOUTS,
        )
        from botocore.exceptions import BotoCoreError

        exits = contextlib.AsyncExitStack()
        try:
            client = await exits.enter_async_context(get_session().create_client("s3", config=config))
            store = cls(url, client, exits)
            await store._check()
        except BaseException as error:
            await exits.aclose()
            if isinstance(error, (BotoCoreError, ValueError)):  # settings botocore cannot use (region, endpoint)
                raise ObjectStoreError(str(error)) from error
            raise
        return store

    async def close(self) -> None:
        await self._exits.aclose()

    async def put(self, sha256: str, data: bytes) -> None:
        checksum = base64.b64encode(bytes.fromhex(sha256)).decode()
        async with self._request("write", sha256):
            await self._client.put_object(Bucket=self.bucket, Key=self.key(sha256), Body=data, ChecksumSHA256=checksum)

    async def get(self, sha256: str) -> bytes | None:
        return await self._read(sha256)

    async def get_range(self, sha256: str, start: int, end: int) -> bytes | None:
        return await self._read(sha256, Range=f"bytes={start}-{end}")

    async def exists(self, sha256: str) -> bool:
        async with self._request("look up", sha256):
            try:
                await self._client.head_object(Bucket=self.bucket, Key=self.key(sha256))
            except self._client.exceptions.ClientError as error:
                if _code(error) in ("404", "NoSuchKey", "NotFound"):
                    return False
                raise
        return True

    async def delete(self, sha256: str) -> None:
        async with self._request("delete", sha256):
            await self._client.delete_object(Bucket=self.bucket, Key=self.key(sha256))

    async def clear(self) -> None:
        async for keys in self._pages():
            async with self._request("delete", "objects"):
                await self._client.delete_objects(
                    Bucket=self.bucket, Delete={"Objects": [{"Key": key} for key in keys], "Quiet": True}
                )

    async def presigned_link(self, sha256: str, filename_header: str, content_type: str, seconds: int) -> str:
        """A URL of the object that the store answers for `seconds`, with the headers a file link answers."""
        link: str = await self._client.generate_presigned_url(
            "get_object",
            ExpiresIn=seconds,
            Params={
                "Bucket": self.bucket,
                "Key": self.key(sha256),
                "ResponseContentType": content_type,
                "ResponseContentDisposition": filename_header,
                "ResponseCacheControl": "private, no-store",
            },
        )
        return link

    def key(self, sha256: str) -> str:
        name = f"{sha256[:2]}/{sha256[2:4]}/{sha256}"
        return f"{self.prefix}/{name}" if self.prefix else name

    async def _read(self, sha256: str, **options: str) -> bytes | None:
        async with self._request("read", sha256):
            try:
                answer = await self._client.get_object(Bucket=self.bucket, Key=self.key(sha256), **options)
            except self._client.exceptions.NoSuchKey:
                return None
            async with answer["Body"] as body:
                return bytes(await body.read())

    async def _pages(self) -> AsyncIterator[list[str]]:
        prefix = f"{self.prefix}/" if self.prefix else ""
        async with self._request("list", "objects"):
            pages = self._client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=prefix)
            async for page in pages:
                if keys := [item["Key"] for item in page.get("Contents", [])]:
                    yield keys

    async def _check(self) -> None:
        """Writes, reads and deletes a small object: wrong credentials, a missing bucket or an endpoint that does
        not answer stop the start with a message naming the setting, not the first upload."""
        probe = b"signsvc start check " + uuid.uuid4().bytes  # one of its own: processes start side by side
        sha256 = hashlib.sha256(probe).hexdigest()
        try:
            await self.put(sha256, probe)
            if await self.get(sha256) != probe:
                raise ObjectStoreError("a test object written was not read back")
            await self.delete(sha256)
        except ObjectStoreError as error:
            raise ObjectStoreError(str(error).replace(sha256, "a test object")) from error.__cause__

    @contextlib.asynccontextmanager
    async def _request(self, action: str, what: str) -> AsyncIterator[None]:
        from botocore.exceptions import BotoCoreError, ClientError, NoCredentialsError

        async with self._parallel:
            try:
                yield
            except ClientError as error:
                raise ObjectStoreError(f"the object store refused to {action} {what}: {_reason(error)}") from error
            except NoCredentialsError as error:
                raise ObjectStoreError(f"no credentials to {action} {what} with: set {CREDENTIALS}") from error
            except (BotoCoreError, aiohttp.ClientError, OSError) as error:
                endpoint = os.environ.get("AWS_ENDPOINT_URL")
                where = f" (check AWS_ENDPOINT_URL={endpoint})" if endpoint else ""
                reason = " ".join(str(error).split())  # one line, whatever botocore wrote
                raise ObjectStoreError(f"the object store did not answer ({action} {what}): {reason}{where}") from error


def _code(error: Any) -> str:
    return str(error.response.get("Error", {}).get("Code", ""))


def _reason(error: Any) -> str:
    """What the store said, and for a refusal of who is asking, which settings to check."""
    code, message = _code(error), error.response.get("Error", {}).get("Message", "")
    reason = " ".join(f"{code} {message}".split())
    if code in ("AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch", "403"):
        return f"{reason} (check {CREDENTIALS})"
    if code in ("NoSuchBucket",):
        return f"{reason} (the bucket does not exist)"
    return reason
