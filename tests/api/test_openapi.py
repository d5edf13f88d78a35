"""The OpenAPI document: OpenAPI 3.1, interface version 1.0.0, served without a key."""

import json

from openapi_spec_validator import validate

from signsvc.app import OPENAPI_PATH


def test_the_document_is_valid_openapi_3_1_version_1_0_0():
    document = json.loads(OPENAPI_PATH.read_text())
    validate(document)
    assert document["openapi"].startswith("3.1")
    assert document["info"]["version"] == "1.0.0"


def test_paths_carry_no_version_segment():
    document = json.loads(OPENAPI_PATH.read_text())
    assert document["servers"] == [{"url": "/api"}]
    assert not [path for path in document["paths"] if path.startswith("/v")]


async def test_the_document_is_served_without_a_key(api):
    reply = await api.with_key(None).get("/openapi.json")
    assert reply.status == 200
    assert reply.json == json.loads(OPENAPI_PATH.read_text())


async def test_every_keyed_operation_documents_the_auth_and_rate_limit_errors(api):
    document = json.loads(OPENAPI_PATH.read_text())
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method == "parameters":
                continue
            assert {"401", "403", "429"} <= set(operation["responses"]), f"{method.upper()} {path}"
