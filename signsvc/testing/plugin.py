"""The pytest plugin of the kit: `signsvc` gives each test a clean signsvc (one start per session)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from signsvc.testing.service import Service, running


@pytest.fixture(scope="session")
def signsvc_service() -> Iterator[Service]:
    """signsvc running in this process for the whole session (see `signsvc.testing.running`)."""
    with running() as service:
        yield service


@pytest.fixture
def signsvc(signsvc_service: Service) -> Service:
    """The session's signsvc, reset: no templates, submissions, emails or webhooks from earlier tests."""
    signsvc_service.reset()
    return signsvc_service
