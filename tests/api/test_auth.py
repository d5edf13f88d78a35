"""Authentication and authorization."""

import asyncio
import json
import re

import pytest

from signsvc.accounts import auth
from signsvc.accounts.accounts import Accounts
from signsvc.infra import errors
from storage.records import KeyMode, Principal
from tests.support.app import LIVE_KEY, TEST_KEY

NOT_AUTHENTICATED = {"error": "Not authenticated"}


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"X-Auth-Token": ""},
        {"X-Auth-Token": "   "},
        {"X-Auth-Token": "wrong"},
        {"Authorization": f"Bearer {LIVE_KEY}"},
    ],
)
async def test_key_missing_empty_or_wrong_is_401_not_authenticated(api, headers):
    reply = await api.with_key(None).get("/api/user", headers=headers)
    assert (reply.status, reply.json) == (401, NOT_AUTHENTICATED)


async def test_key_with_bytes_outside_ascii_is_401_not_authenticated(api):
    reader, writer = await asyncio.open_connection(api.client.host, api.client.port)
    writer.write(b"GET /api/user HTTP/1.1\r\nHost: x\r\nX-Auth-Token: \xff\xfe\r\n\r\n")
    head = await reader.readuntil(b"\r\n\r\n")
    length = int(re.search(rb"Content-Length: (\d+)", head)[1])
    body = await reader.readexactly(length)
    writer.close()
    assert head.startswith(b"HTTP/1.1 401 ") and json.loads(body) == NOT_AUTHENTICATED


async def test_every_api_path_needs_the_key_even_unknown_ones(api):
    reply = await api.with_key(None).get("/api/templates")
    assert (reply.status, reply.json) == (401, NOT_AUTHENTICATED)


async def test_rotating_the_key_revokes_the_old_one_immediately(api, db, clock):
    new_key = await Accounts(db, clock).rotate_key(1, KeyMode.LIVE)
    old = await api.get("/api/user")
    new = await api.with_key(new_key).get("/api/user")
    assert (old.status, old.json) == (401, NOT_AUTHENTICATED)
    assert new.status == 200
    assert (await api.with_key(TEST_KEY).get("/api/user")).status == 200, "the test key is left alone"


async def test_each_user_acts_with_their_own_key(api, db, clock):
    issued = await Accounts(db, clock).create_user(account_id=1, email="bob@example.com", first_name="Bob")
    reply = await api.with_key(issued.live).get("/api/user")
    assert reply.json["email"] == "bob@example.com"


async def test_account_without_approved_api_access_is_403_forbidden(api, db, clock):
    issued = await Accounts(db, clock).create_account(name="New", email="new@example.com")
    for key in (issued.live, issued.test):
        reply = await api.with_key(key).get("/api/user")
        assert (reply.status, reply.json) == (403, {"error": "Forbidden"})


async def test_revoking_api_access_is_403_forbidden_and_approving_restores_it(api, db, clock):
    await Accounts(db, clock).set_api_access(1, False)
    assert (await api.get("/api/user")).json == {"error": "Forbidden"}
    assert (await api.with_key(TEST_KEY).get("/api/user")).status == 403, "the test account follows its live account"
    await Accounts(db, clock).set_api_access(1, True)
    assert (await api.get("/api/user")).status == 200


async def test_record_of_another_account_is_403_not_authorized(api, other_account):
    reply = await api.with_key(other_account.live).get("/api/probe/users/1")
    assert (reply.status, reply.json) == (403, {"error": "Not authorized"})


async def test_record_of_own_account_is_served(api):
    reply = await api.get("/api/probe/users/1")
    assert (reply.status, reply.json["id"]) == (200, 1)


async def test_live_record_asked_with_a_test_key_is_404_naming_the_key_to_use(api):
    reply = await api.with_key(TEST_KEY).get("/api/probe/users/1")
    assert reply.status == 404
    assert reply.json == {
        "error": "User 1 not found using testing API key; Use production API key to access production users."
    }


def test_test_record_asked_with_a_live_key_names_the_test_key():
    live = Principal(
        key_id=1,
        mode=KeyMode.LIVE,
        user_id=1,
        email="a@example.com",
        first_name=None,
        last_name=None,
        account_id=1,
        linked_account_id=2,
        api_access_approved=True,
    )
    with pytest.raises(errors.NotFound) as raised:
        auth.check_owner(live, 2, "Template", 5)
    assert raised.value.message == (
        "Template 5 not found using production API key; Use testing API key to access testing templates."
    )


async def test_test_key_addresses_the_test_account(api, db, clock):
    live = await Accounts(db, clock).find_principal(LIVE_KEY)
    test = await Accounts(db, clock).find_principal(TEST_KEY)
    assert (live.mode, test.mode) == (KeyMode.LIVE, KeyMode.TEST)
    assert test.account_id == live.linked_account_id and live.account_id == test.linked_account_id


async def test_successful_responses_carry_no_cors_headers(api):
    reply = await api.get("/api/user", headers={"Origin": "https://evil.example"})
    assert not [name for name in reply.headers if name.lower().startswith("access-control-")]


async def test_preflight_request_gets_no_cors_headers(api):
    reply = await api.request(
        "OPTIONS", "/api/user", headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "GET"}
    )
    assert reply.status == 405
    assert not [name for name in reply.headers if name.lower().startswith("access-control-")]


async def test_keys_are_stored_only_as_hashes(api, db):
    rows = await db.fetch_all("find_api_key", key_hash=LIVE_KEY)
    assert rows == []
