"""A local S3 emulator (moto's server, a real HTTP server on a free port) for the object store's tests.

One server per test process; each test gets a bucket of its own. The AWS_* variables that every S3 client reads
point at it for as long as the test process runs, so `python run.py` processes a test starts reach it too.
"""

from __future__ import annotations

import logging
import os
import uuid
from collections.abc import Iterator

import pytest

from tests.support.system import S3_EMULATOR

CREDENTIALS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1"}


class Emulator:
    """The emulator's server; `stop` and `start` again (on the same port) play an outage. Emulators of one test
    process share their buckets."""

    def __init__(self) -> None:
        self.port = 0
        self.start()
        self.endpoint = f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        from moto.server import ThreadedMotoServer

        logging.getLogger("werkzeug").setLevel(logging.WARNING)  # not a line per request
        self.server = ThreadedMotoServer(ip_address="127.0.0.1", port=self.port, verbose=False)
        self.server.start()
        self.port = self.server.get_host_and_port()[1]

    def client(self):
        import boto3

        return boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            region_name=CREDENTIALS["AWS_DEFAULT_REGION"],
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
        )

    def new_bucket(self) -> str:
        name = f"signsvc-{uuid.uuid4().hex[:16]}"
        self.client().create_bucket(Bucket=name)
        return name

    def keys(self, bucket: str) -> list[str]:
        pages = self.client().get_paginator("list_objects_v2").paginate(Bucket=bucket)
        return sorted(item["Key"] for page in pages for item in page.get("Contents", []))

    def stop(self) -> None:
        self.server.stop()


@pytest.hookimpl(tryfirst=True)  # before tests/support/system.py reads the marks
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test that uses the emulator needs it installed (the `test-full` extra)."""
    for item in items:
        if "s3_emulator" in getattr(item, "fixturenames", ()):
            item.add_marker(S3_EMULATOR)


@pytest.fixture(scope="session")
def s3_emulator() -> Iterator[Emulator]:
    emulator = Emulator()
    saved = {name: os.environ.get(name) for name in [*CREDENTIALS, "AWS_ENDPOINT_URL"]}
    os.environ.update(CREDENTIALS, AWS_ENDPOINT_URL=emulator.endpoint)
    yield emulator
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    emulator.stop()


@pytest.fixture
def s3_url(s3_emulator: Emulator) -> str:
    """`s3://bucket/prefix` of an empty bucket of this test's own."""
    return f"s3://{s3_emulator.new_bucket()}/signsvc"
