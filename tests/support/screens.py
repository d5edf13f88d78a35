"""Where the browser tests keep the screenshots of the pages they drive, for people to look at: build/screens/
(SIGNSVC_TEST_SCREENS names another directory)."""

import os
from pathlib import Path

from tests.support.paths import ROOT

SCREENS = Path(os.environ.get("SIGNSVC_TEST_SCREENS") or ROOT / "build" / "screens")


def screen(name: str) -> Path:
    """The path of a screenshot named `name`, its directory made."""
    SCREENS.mkdir(parents=True, exist_ok=True)
    return SCREENS / name
