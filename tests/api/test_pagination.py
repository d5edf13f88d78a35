"""Pagination of every list: newest first, limit, after and before, next and prev."""

import pytest

from signsvc.accounts.accounts import Accounts


@pytest.fixture
async def user_ids(api, db, clock):
    """Thirteen users in the default account: ids 1 (the default user) to 13."""
    for n in range(2, 14):
        await Accounts(db, clock).create_user(account_id=1, email=f"user{n}@example.com")
    return list(range(1, 14))


def ids(reply):
    return [item["id"] for item in reply.json["data"]]


async def test_list_is_newest_first_with_limit_10_by_default(api, user_ids):
    reply = await api.get("/api/probe/users")
    assert ids(reply) == list(range(13, 3, -1))
    assert reply.json["pagination"] == {"count": 10, "next": 4, "prev": 13}


async def test_after_returns_records_older_than_that_id(api, user_ids):
    reply = await api.get("/api/probe/users?after=4")
    assert ids(reply) == [3, 2, 1]
    assert reply.json["pagination"] == {"count": 3, "next": 1, "prev": 3}


async def test_before_returns_the_newest_records_newer_than_that_id(api, user_ids):
    reply = await api.get("/api/probe/users?before=2&limit=3")
    assert ids(reply) == [13, 12, 11]


async def test_after_and_before_combine(api, user_ids):
    reply = await api.get("/api/probe/users?after=8&before=4")
    assert ids(reply) == [7, 6, 5]


async def test_walking_next_pages_visits_every_record_once(api, user_ids):
    seen, after = [], None
    while True:
        reply = await api.get("/api/probe/users?limit=4" + (f"&after={after}" if after else ""))
        seen += ids(reply)
        if reply.json["pagination"]["count"] < 4:
            break
        after = reply.json["pagination"]["next"]
    assert seen == list(range(13, 0, -1))


async def test_empty_page_has_null_next_and_prev(api, user_ids):
    reply = await api.get("/api/probe/users?after=1")
    assert reply.json == {"data": [], "pagination": {"count": 0, "next": None, "prev": None}}


async def test_limit_maximum_is_100(api, user_ids):
    reply = await api.get("/api/probe/users?limit=100")
    assert reply.json["pagination"]["count"] == 13


async def test_a_limit_above_100_is_clamped_to_100_not_refused(api, db, clock):
    for n in range(2, 106):
        await Accounts(db, clock).create_user(account_id=1, email=f"user{n}@example.com")
    for limit in ("101", "1000", "99999999999999999999"):
        reply = await api.get(f"/api/probe/users?limit={limit}")
        assert reply.status == 200 and ids(reply) == list(range(105, 5, -1))


@pytest.mark.parametrize("limit", ["0", "-1", "-50", "abc", "-", ".5"])
async def test_a_limit_of_0_a_negative_one_or_text_without_a_leading_number_gives_an_empty_page(api, user_ids, limit):
    reply = await api.get(f"/api/probe/users?limit={limit}")
    assert (reply.status, reply.json) == (200, {"data": [], "pagination": {"count": 0, "next": None, "prev": None}})


@pytest.mark.parametrize("limit,count", [("3abc", 3), ("1.5", 1), ("+2", 2), ("1_0", 10)])
async def test_a_limit_in_text_reads_as_the_integer_it_starts_with(api, user_ids, limit, count):
    reply = await api.get(f"/api/probe/users?limit={limit}")
    assert reply.status == 200 and reply.json["pagination"]["count"] == count


async def test_a_clamped_limit_holds_for_every_list_of_the_api(api):
    for path in (
        "/api/templates",
        "/api/submissions",
        "/api/submitters",
        "/api/webhooks",
        "/api/clickwraps",
        "/api/events/form/completed",
    ):
        for limit in ("500", "0", "abc"):
            reply = await api.get(f"{path}?limit={limit}")
            assert (reply.status, reply.json["data"]) == (200, []), (path, limit)


async def test_lists_show_only_the_accounts_own_records(api, user_ids, other_account):
    reply = await api.with_key(other_account.live).get("/api/probe/users")
    assert ids(reply) == [other_account.user.id]


@pytest.mark.parametrize(
    "query,message",
    [
        ("after=-1", "after must be an integer from 0 to 9223372036854775807"),
        ("after=abc", "after must be an integer from 0 to 9223372036854775807"),
        ("before=-5", "before must be an integer from 0 to 9223372036854775807"),
    ],
)
async def test_invalid_after_and_before_are_422(api, user_ids, query, message):
    reply = await api.get(f"/api/probe/users?{query}")
    assert (reply.status, reply.json) == (422, {"error": message})


@pytest.mark.parametrize("unset", ["None", "undefined", "null", ""])
async def test_unset_list_parameters_sent_by_clients_count_as_absent(api, user_ids, unset):
    reply = await api.get(f"/api/probe/users?limit={unset}&after={unset}&before={unset}")
    assert reply.json["pagination"]["count"] == 10
