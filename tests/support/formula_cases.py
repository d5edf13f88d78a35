"""The formula cases both the service and the signing form are tested on: the shared table
(tests/files/formula_cases.json) and the examples docs/formulas.md shows."""

from __future__ import annotations

import json
import re
from typing import Any

from tests.support.paths import ROOT

TABLE = json.loads((ROOT / "tests" / "files" / "formula_cases.json").read_text())


def expected(case: dict[str, Any]) -> dict[str, Any]:
    """What a case says the answer is: `{"value": ...}` or `{"error": message}`."""
    return {key: case[key] for key in ("value", "error") if key in case}


def documented_examples() -> list[tuple[str, dict[str, Any]]]:
    """The rows of docs/formulas.md's examples: each formula and the answer it shows."""
    text = (ROOT / "docs" / "formulas.md").read_text()
    block = text.split("<!-- examples -->")[1].split("<!-- /examples -->")[0]
    rows = re.findall(r"^\| `(.+?)` \| (.+?) \|$", block, re.MULTILINE)
    return [(formula, _shown(result)) for formula, result in rows]


def _shown(result: str) -> dict[str, Any]:
    if result.startswith("error: "):
        return {"error": result.removeprefix("error: ")}
    return {"value": json.loads(result.strip("`"))}
