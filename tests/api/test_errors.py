"""Errors and request conventions every endpoint inherits."""

import asyncio
import json

import pytest

from tests.support.app import LIVE_KEY


async def test_unknown_api_path_is_404_json(api):
    reply = await api.get("/api/nothing/here")
    assert (reply.status, reply.json) == (404, {"error": "Not found"})
    assert reply.headers["Content-Type"].startswith("application/json")


async def test_unknown_page_path_is_404_json_without_stack_trace(api):
    reply = await api.with_key(None).get("/no/such/page")
    assert (reply.status, reply.json) == (404, {"error": "Not found"})


async def test_non_numeric_id_is_404(api):
    reply = await api.get("/api/probe/users/abc")
    assert (reply.status, reply.json) == (404, {"error": "Not found"})


async def test_missing_id_is_404(api):
    reply = await api.get("/api/probe/users/999")
    assert (reply.status, reply.json) == (404, {"error": "Not found"})


async def test_wrong_method_is_405_json_with_allow(api):
    reply = await api.delete("/api/user")
    assert (reply.status, reply.json) == (405, {"error": "Method not allowed"})
    assert "GET" in reply.headers["Allow"]


async def test_trailing_slash_is_not_redirected(api):
    reply = await api.get("/api/user/")
    assert (reply.status, reply.json) == (404, {"error": "Not found"})


async def test_body_without_json_content_type_is_not_read_as_json(api):
    reply = await api.post("/api/probe/echo", data=b'{"a": 1}', headers={"Content-Type": "text/plain"})
    assert reply.status == 415
    assert reply.json == {"error": "Request body must be JSON sent with Content-Type: application/json"}


async def test_form_body_is_not_read_as_json(api):
    reply = await api.post("/api/probe/echo", data={"a": "1"})
    assert reply.status == 415


async def test_malformed_json_is_422_naming_the_problem(api):
    reply = await api.post("/api/probe/echo", data=b'{"a": ', headers={"Content-Type": "application/json"})
    assert reply.status == 422
    assert reply.json["error"].startswith("JSON parse error: Expecting value: line 1 column 7")


async def test_invalid_utf8_json_is_422(api):
    reply = await api.post("/api/probe/echo", data=b'{"a": "\xff"}', headers={"Content-Type": "application/json"})
    assert reply.status == 422
    assert reply.json["error"].startswith("JSON parse error")


async def test_array_where_an_object_is_expected_is_422(api):
    reply = await api.post("/api/probe/echo", json=[1, 2])
    assert (reply.status, reply.json) == (422, {"error": "Request body must be a JSON object, not list"})


async def test_json_body_is_read_with_content_length(api):
    reply = await api.post("/api/probe/echo", json={"name": "Zoë"})
    assert (reply.status, reply.json["received"]) == (200, {"name": "Zoë"})


async def test_json_body_is_read_when_sent_chunked(api):
    async def chunks():
        yield b'{"name":'
        yield b' "chunked"}'

    reply = await api.post("/api/probe/echo", data=chunks(), headers={"Content-Type": "application/json"})
    assert (reply.status, reply.json["received"]) == (200, {"name": "chunked"})


async def test_json_content_type_with_charset_is_json(api):
    reply = await api.post(
        "/api/probe/echo", data=b'{"a": 1}', headers={"Content-Type": "application/json; charset=utf-8"}
    )
    assert reply.json["received"] == {"a": 1}


async def test_empty_body_reads_as_an_empty_object(api):
    reply = await api.post("/api/probe/echo", headers={"Content-Type": "application/json"})
    assert (reply.status, reply.json["received"]) == (200, {})


async def test_oversized_body_is_413_naming_the_limit(aiohttp_client, make_app):
    client = await aiohttp_client(make_app(max_body_bytes=1000))
    response = await client.post(
        "/api/probe/echo",
        data=json.dumps({"file": "x" * 2000}),
        headers={"X-Auth-Token": LIVE_KEY, "Content-Type": "application/json"},
    )
    assert response.status == 413
    assert await response.json() == {"error": "Request body is too large: the limit is 1000 bytes"}


@pytest.mark.parametrize(
    "value,expected",
    [
        ("true", True),
        ("TRUE", True),
        ("1", True),
        ("False", False),
        ("0", False),
        ("None", None),
        ("undefined", None),
        ("null", None),
        ("", None),
    ],
)
async def test_query_booleans_and_unset_values_of_real_clients(api, value, expected):
    reply = await api.post(f"/api/probe/echo?flag={value}")
    assert reply.json["flag"] is expected


async def test_query_boolean_that_is_not_one_is_422(api):
    reply = await api.post("/api/probe/echo?flag=maybe")
    assert (reply.status, reply.json) == (422, {"error": "flag must be true or false"})


async def test_error_responses_never_close_the_connection(api):
    for path in ("/api/user", "/api/nothing", "/api/probe/users/abc"):
        reply = await api.with_key(None).get(path)
        assert reply.headers.get("Connection", "").lower() != "close"


def python_client_call(client, path, key, method="GET", body=None):
    """One call the way the official Python client makes it: a fresh http.client connection,
    a trailing `?`, and a crash when the server closes the connection or sends no length."""
    import http.client

    conn = http.client.HTTPConnection(client.host, client.port, timeout=5)
    try:
        conn.request(method, path + "?", body=body, headers={"X-Auth-Token": key, "Content-Type": "application/json"})
        response = conn.getresponse()
        assert conn.sock is not None, "the server asked to close the connection"
        return response.status, json.loads(response.read())
    finally:
        conn.close()


async def test_python_client_transport_keeps_working_on_errors(api):
    results = await asyncio.gather(
        *(
            asyncio.to_thread(python_client_call, api.client, *args)
            for args in [
                ("/api/user", LIVE_KEY),
                ("/api/user", ""),
                ("/api/nothing", LIVE_KEY),
                ("/api/probe/echo", LIVE_KEY, "POST", b"{bad"),
                ("/api/user", LIVE_KEY, "DELETE"),
            ]
        )
    )
    assert [status for status, _ in results] == [200, 401, 404, 422, 405]
    assert all(isinstance(body, dict) for _, body in results)


async def test_python_client_transport_survives_an_oversized_body(aiohttp_client, make_app):
    client = await aiohttp_client(make_app(max_body_bytes=1000))
    body = json.dumps({"file": "x" * 5000}).encode()
    status, reply = await asyncio.to_thread(python_client_call, client, "/api/probe/echo", LIVE_KEY, "POST", body)
    assert (status, reply) == (413, {"error": "Request body is too large: the limit is 1000 bytes"})
