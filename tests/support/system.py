"""Software outside Python that some tests need: LibreOffice, poppler's pdfsig, fonts, Node.js, Chromium, Pango,
and the S3 emulator of the `test-full` extra.

A test that needs such software carries a `requires` mark, made here:

    @SOFFICE                                             # one of the requirements below
    def test_...

    pytestmark = PDFSIG                                  # every test of a module
    pytest.param("山田 太郎", marks=CJK_FONT)             # one parameter
    requires("qpdf", package="qpdf")                     # a program on PATH not listed below

When the software is missing the test is skipped, with a reason naming the Debian package to install
(`-ra`, in addopts, lists the reasons at the end of the run). With SIGNSVC_TEST_REQUIRE_SYSTEM=1, as CI
sets it, the test fails instead, before its fixtures are set up: a run that should check everything
can't pass by skipping, just as a Postgres named by SIGNSVC_TEST_POSTGRES_URL that can't be reached
fails the run.

Each requirement is looked for once per test process.
Registered for every tier by tests/conftest.py (`pytest_plugins`).
"""

from __future__ import annotations

import ctypes.util
import importlib.util
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest

from signsvc.pdf import font_files
from tests.support.paths import NPM_DIR

REQUIRE_SYSTEM = "SIGNSVC_TEST_REQUIRE_SYSTEM"


@dataclass(frozen=True)
class Requirement:
    """Something a test needs: what it is, the Debian package that installs it, how to tell it is there."""

    what: str
    package: str
    check: Callable[[], bool] = field(compare=False)
    then: str = ""  # a step after installing the package, if there is one
    installer: str = "Debian: apt-get install"

    def present(self) -> bool:
        if self not in _found:
            _found[self] = bool(self.check())
        return _found[self]

    def missing(self) -> str:
        then = f", then {self.then}" if self.then else ""
        return f"{self.what} is not installed ({self.installer} {self.package}{then})"


_found: dict[Requirement, bool] = {}


def required() -> bool:
    """Whether missing software fails the run (SIGNSVC_TEST_REQUIRE_SYSTEM set to 1, true or yes)."""
    return os.environ.get(REQUIRE_SYSTEM, "").strip().lower() in ("1", "true", "yes")


def requirement(
    what: str, *, package: str, present: Callable[[], bool], then: str = "", installer: str = "Debian: apt-get install"
) -> pytest.MarkDecorator:
    """The mark of a test that needs `what`, which `present()` finds and `installer` installs from `package`."""
    return pytest.mark.requires(Requirement(what, package, present, then, installer))


def requires(program: str, *, package: str, then: str = "") -> pytest.MarkDecorator:
    """The mark of a test that runs `program`, found on PATH as the code under test finds it."""
    return requirement(program, package=package, present=lambda: shutil.which(program) is not None, then=then)


SOFFICE = requires("soffice", package="libreoffice-writer-nogui libreoffice-calc-nogui libreoffice-impress-nogui")
PDFSIG = requires("pdfsig", package="poppler-utils")
PDFTOTEXT = requires("pdftotext", package="poppler-utils")
# Found the way the PDF engines find it (signsvc/pdf/font_files.py): a Python dependency, so always there
# once the project is installed; kept as a mark so that a broken install says what is missing.
CJK_FONT = requirement(
    "the CJK font of the Python package noto-cjk-sans-otc (pip install -e .)",
    package="nothing: it is a Python dependency",
    present=lambda: font_files.packaged_cjk_font() is not None,
)
NODE = requires("node", package="nodejs")
NPM_CLIENT = requirement(
    "the npm client @docuseal/api (tests/npm/node_modules)",
    package="npm",
    present=lambda: (NPM_DIR / "node_modules" / "@docuseal" / "api").is_dir(),
    then="run `npm ci --prefix tests/npm`",
)
CHROMIUM = requires("chromium", package="chromium")
# What WeasyPrint loads to render HTML (signsvc/pdf/html_render.py), found as the dynamic loader finds it.
PANGO = requirement(
    "Pango (for WeasyPrint)",
    package="libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0",
    present=lambda: all(ctypes.util.find_library(name) for name in ("pango-1.0", "pangoft2-1.0")),
)
# The object-store tests' S3 emulator and the S3 client: the `test-full` extra, left out of `test` to keep its
# install quick. Marked on every test that uses the emulator (tests/support/s3.py).
S3_EMULATOR = requirement(
    "the S3 emulator (moto, with the S3 client aiobotocore)",
    package="-e '.[test-full]'",
    present=lambda: all(importlib.util.find_spec(name) is not None for name in ("moto", "aiobotocore")),
    installer="pip install",
)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "requires(requirement): the test needs software outside Python; skipped "
        f"when it is missing, failed instead with {REQUIRE_SYSTEM}=1 "
        "(tests/support/system.py)",
    )


def missing(item: pytest.Item) -> str:
    """What the test needs and is not installed, as a sentence; empty when nothing is missing."""
    return "; ".join(mark.args[0].missing() for mark in item.iter_markers("requires") if not mark.args[0].present())


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Without SIGNSVC_TEST_REQUIRE_SYSTEM: a skip mark, so the summary shows each test's own location."""
    if required():
        return
    for item in items:
        if reason := missing(item):
            item.add_marker(pytest.mark.skip(reason=f"{reason}; set {REQUIRE_SYSTEM}=1 to fail instead"))


def pytest_runtest_setup(item: pytest.Item) -> None:
    """With SIGNSVC_TEST_REQUIRE_SYSTEM: the test fails before its fixtures are set up, so the failure names
    what is missing rather than what a fixture needing it did (pytest reports it as an error in setup).
    Not tryfirst: skip marks (a backend that is not configured) are applied first, by pytest's own hook."""
    if required() and (reason := missing(item)):
        pytest.fail(f"{reason}; {REQUIRE_SYSTEM}=1 requires it", pytrace=False)
