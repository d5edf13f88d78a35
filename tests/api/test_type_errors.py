"""A value of the wrong type is refused in the same words on every endpoint: the reference's `<key> must be a <Type>`
(String, Array, Object, as DocuSeal names them), the place said as each endpoint says places."""

import pytest

from tests.support.documents import b64, pdf
from tests.support.signing import send, template

URL = "https://hooks.example.com/signsvc"
ANN = {"email": "ann@example.com", "name": "Ann"}

# By the type expected: (method, path, body, answer); {template} and {submitter} are records made for the test.
WRONG_TYPES = {
    "String": [
        (
            "POST",
            "/api/submissions",
            {"template_id": "{template}", "submitters": [{**ANN, "name": 7}]},
            "name must be a String in `submitters[0]`.",
        ),
        ("PUT", "/api/submitters/{submitter}", {"name": 7}, "name must be a String"),
        (
            "POST",
            "/api/templates",
            {"name": "NDA", "documents": [{"name": 7, "file": b64(pdf())}]},
            "documents[0].name must be a String",
        ),
        ("PUT", "/api/templates/{template}", {"name": 7}, "name must be a String"),
        ("POST", "/api/clickwraps", {"name": 7, "kind": "no_document", "content": "Terms"}, "name must be a String"),
        (
            "POST",
            "/api/webhooks",
            {"url": URL, "secret": {"header": 7, "value": "s" * 32}},
            "secret.header must be a String",
        ),
    ],
    "Object": [
        (
            "POST",
            "/api/submissions",
            {"template_id": "{template}", "submitters": [{**ANN, "values": "x"}]},
            "values must be a Object in `submitters[0]`.",
        ),
        (
            "POST",
            "/api/submissions",
            {"template_id": "{template}", "submitters": [ANN, "bob@example.com"]},
            "submitters[1] must be a Object",
        ),
        ("PUT", "/api/submitters/{submitter}", {"values": "x"}, "values must be a Object"),
        ("PUT", "/api/submitters/{submitter}", {"metadata": "x"}, "metadata must be a Object"),
        ("PUT", "/api/templates/{template}", {"fields": ["x"]}, "fields[0] must be a Object"),
    ],
    "Array": [
        (
            "POST",
            "/api/submissions",
            {"template_id": "{template}", "submitters": "ann@example.com"},
            "submitters must be a Array",
        ),
        (
            "POST",
            "/api/submissions",
            {"template_id": "{template}", "submitters": [{**ANN, "fields": "x"}]},
            "fields must be a Array in `submitters[0]`.",
        ),
        ("PUT", "/api/templates/{template}", {"fields": {}}, "fields must be a Array"),
    ],
}


def filled(value, records: dict[str, int]):
    """`value` with the records' ids in place of `{template}` and `{submitter}`."""
    if isinstance(value, dict):
        return {key: filled(item, records) for key, item in value.items()}
    if isinstance(value, list):
        return [filled(item, records) for item in value]
    if value in ("{template}", "{submitter}"):
        return records[value.strip("{}")]
    return value


@pytest.mark.parametrize("type_name", WRONG_TYPES)
async def test_a_value_of_the_wrong_type_is_refused_in_the_same_words_on_every_endpoint(api, type_name):
    template_id = await template(api)
    records = {"template": template_id, "submitter": (await send(api, template_id))[0]["id"]}
    for method, path, body, answer in WRONG_TYPES[type_name]:
        reply = await api.request(method, path.format(**records), json=filled(body, records))
        assert (reply.status, reply.json) == (422, {"error": answer}), (method, path)
