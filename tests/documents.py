"""Kept for bench/, which imports `pdf` from here; the tests use tests/support/documents.py."""

from tests.support.documents import b64, pdf, png  # noqa: F401
