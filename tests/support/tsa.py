"""Fixture: a timestamp server (RFC 3161) for PAdES B-T and B-LTA: the package's local timestamp authority
(`signsvc.testing.timestamps`, pyHanko's DummyTimeStamper behind aiohttp) on a real local port.

Registered for every tier by tests/conftest.py (`pytest_plugins`).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest

from signsvc.testing import timestamps
from tests.support.seals import NOW, SIGNED_AT


@pytest.fixture(scope="module")
def tsa() -> Iterator[dict[str, Any]]:
    """The server's `url`, the pyHanko `stamper` behind it and its certificate (`cert_pem`); every
    timestamp it gives is SIGNED_AT plus two seconds."""
    authority = timestamps.create("signsvc test TSA", now=NOW - timedelta(days=399), valid_for=timedelta(days=4049))
    stamper = authority.stamper(lambda: SIGNED_AT + timedelta(seconds=2))
    with timestamps.serving(stamper) as url:
        yield {"url": url, "stamper": stamper, "cert_pem": authority.cert_pem}
