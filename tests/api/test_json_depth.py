"""Free-form JSON the API stores as given (preferences, metadata, values, variables) is bounded in depth and size
at input, a 422 naming the field, so that nothing stored can make copying or encoding it fail later; and a request
body as a whole nests at most `MAX_BODY_DEPTH` levels."""

from typing import Any

import pytest

from signsvc.http.params import MAX_BODY_DEPTH
from signsvc.infra.json_fields import MAX_OBJECT_BYTES, MAX_OBJECT_DEPTH
from tests.support.documents import b64, pdf
from tests.support.signing import FIELDS, send, template

ANN = {"email": "ann@example.com", "name": "Ann"}


def nested(levels: int) -> dict[str, Any]:
    """An object `levels` deep: {"a": {"a": ... {}}}."""
    value: dict[str, Any] = {}
    for _ in range(levels - 1):
        value = {"a": value}
    return value


async def test_field_preferences_nested_900_deep_are_refused_at_creation_naming_the_field(api):
    fields = [{**FIELDS[0], "preferences": nested(900)}, *FIELDS[1:]]
    reply = await api.post(
        "/api/templates", json={"name": "NDA", "documents": [{"name": "nda", "file": b64(pdf()), "fields": fields}]}
    )
    assert reply.status == 422
    assert "fields[0].preferences" in reply.json["error"] and "deep" in reply.json["error"]
    assert (await api.get("/api/templates")).json["data"] == []


async def test_field_preferences_as_deep_as_allowed_are_kept_and_the_template_clones(api):
    fields = [{**FIELDS[0], "preferences": nested(MAX_OBJECT_DEPTH)}, *FIELDS[1:]]
    template_id = await template(api, fields)
    clone = await api.post(f"/api/templates/{template_id}/clone", json={})
    assert clone.status == 200 and clone.json["fields"][0]["preferences"] == nested(MAX_OBJECT_DEPTH)


async def test_field_preferences_one_level_too_deep_are_refused_on_update(api):
    template_id = await template(api)
    fields = (await api.get(f"/api/templates/{template_id}")).json["fields"]
    fields[1]["preferences"] = nested(MAX_OBJECT_DEPTH + 1)
    reply = await api.put(f"/api/templates/{template_id}", json={"fields": fields})
    assert reply.status == 422 and "preferences" in reply.json["error"], reply.json


@pytest.mark.parametrize("key", ["metadata", "values"])
async def test_a_submitters_free_form_object_nested_too_deep_is_refused_naming_it(api, key):
    submitter = {**ANN, key: {"Full Name": nested(MAX_OBJECT_DEPTH)}}
    reply = await api.post("/api/submissions", json={"template_id": await template(api), "submitters": [submitter]})
    assert reply.status == 422
    assert reply.json["error"] == (
        f"{key} nests objects and arrays more than {MAX_OBJECT_DEPTH} levels deep in `submitters[0]`."
    )
    assert (await api.get("/api/submissions")).json["data"] == []


async def test_metadata_larger_than_the_limit_is_refused_naming_it(api):
    submitter = {**ANN, "metadata": {"notes": "x" * MAX_OBJECT_BYTES}}
    reply = await api.post("/api/submissions", json={"template_id": await template(api), "submitters": [submitter]})
    assert (reply.status, reply.json["error"]) == (
        422,
        "metadata is too large: at most 64 KiB as JSON in `submitters[0]`.",
    )


async def test_metadata_changed_on_a_submitter_is_bounded_as_on_creation(api):
    [ann, _] = await send(api, await template(api))
    deep = await api.put(f"/api/submitters/{ann['id']}", json={"metadata": nested(MAX_OBJECT_DEPTH + 1)})
    assert deep.status == 422 and deep.json["error"].startswith("metadata nests objects and arrays more than")
    fine = await api.put(f"/api/submitters/{ann['id']}", json={"metadata": {"ref": [1, {"a": "b"}]}})
    assert fine.status == 200 and fine.json["metadata"] == {"ref": [1, {"a": "b"}]}


async def test_a_request_body_nested_deeper_than_the_limit_is_refused_naming_where(api):
    reply = await api.post("/api/submissions", json={"template_id": 1, "variables": [nested(MAX_BODY_DEPTH)]})
    assert reply.status == 422
    assert reply.json["error"] == (
        f"variables[0].a.a.a.a... nests objects and arrays too deeply: a request body "
        f"may hold at most {MAX_BODY_DEPTH} levels"
    )
