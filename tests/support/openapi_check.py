"""Checks every API response the suite receives against the OpenAPI document."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from openapi_schema_validator import OAS31Validator

from signsvc.app import OPENAPI_PATH

# Test-only routes (tests/support/probe.py) exercise shared machinery and are not part of the API.
PROBE_PREFIX = "/api/probe/"


class OpenApiChecker:
    def __init__(self, path: Path = OPENAPI_PATH) -> None:
        self.doc = json.loads(path.read_text())
        self.base = self.doc["servers"][0]["url"]
        self.paths = [
            (re.compile("^" + re.sub(r"\{[^}]+\}", "[^/]+", template) + "$"), item)
            for template, item in self.doc["paths"].items()
        ]

    def check(self, method: str, path: str, status: int, headers: Any, body: bytes) -> None:
        data = json.loads(body) if body else None
        item = self._path_item(path)
        if item is None:
            if path.startswith(PROBE_PREFIX) and status < 400:
                return
            assert status >= 400, f"{method} {path} answered {status} but is not in the OpenAPI document"
            return self._validate(self.doc["components"]["schemas"]["Error"], data, f"{method} {path} {status}")
        operation = item.get(method.lower())
        if operation is None:
            assert status in (401, 405, 429), f"{method} {path} answered {status} but has no such operation"
            return self._validate(self.doc["components"]["schemas"]["Error"], data, f"{method} {path} {status}")
        response = operation["responses"].get(str(status)) or operation["responses"].get("default")
        assert response is not None, f"{method} {path}: status {status} is not documented"
        response = self._resolve(response)
        for name in response.get("headers", {}):
            assert name in headers, f"{method} {path} {status}: header {name} is documented but missing"
        schema = response.get("content", {}).get("application/json", {}).get("schema")
        if schema is not None:
            self._validate(schema, data, f"{method} {path} {status}")

    def check_webhook(self, body: bytes) -> None:
        """A webhook body against the document's `webhooks` entry for its event type."""
        data = json.loads(body)
        operation = self.doc["webhooks"][data["event_type"]]["post"]
        schema = operation["requestBody"]["content"]["application/json"]["schema"]
        self._validate(self._resolve(schema), data, f"webhook {data['event_type']}")

    def _path_item(self, path: str) -> dict[str, Any] | None:
        if not path.startswith(self.base + "/"):
            return None
        relative = path[len(self.base) :]
        return next((item for pattern, item in self.paths if pattern.match(relative)), None)

    def _resolve(self, node: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in node:
            target: Any = self.doc
            for part in node["$ref"].removeprefix("#/").split("/"):
                target = target[part.replace("~1", "/").replace("~0", "~")]
            node = target
        return node

    def _validate(self, schema: dict[str, Any], data: Any, where: str) -> None:
        validator = OAS31Validator(
            {**schema, "components": self.doc["components"]}, format_checker=OAS31Validator.FORMAT_CHECKER
        )
        errors = sorted(validator.iter_errors(data), key=str)
        assert not errors, f"{where}: response does not match the OpenAPI document: {errors[0].message}"
