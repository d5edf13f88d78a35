"""Kept for bench/, which imports the PDF builders from here; the tests use tests/support/samples.py.

Not a test module: tests/conftest.py leaves it out of collection (`collect_ignore`)."""

from tests.support.samples import *  # noqa: F401,F403
