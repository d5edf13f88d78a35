"""Where things are in the repository, for tests that read files or run the service."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the repository: run.py, docs/, signsvc/
TESTS = ROOT / "tests"
FILES = TESTS / "files"  # sample files that can't be made in a test (a Word 97 document)
NPM_DIR = TESTS / "npm"  # the npm client; `.ci/run` installs it with `npm ci --prefix tests/npm`
