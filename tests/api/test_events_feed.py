"""The events feed: missed form.completed events, latest first."""

from datetime import timedelta

import pytest

from tests.support.app import START
from tests.support.signing import act, send, template

START_UNIX = int(START.timestamp())


@pytest.fixture
async def template_id(api) -> int:
    return await template(api)


async def completed(api, template_id: int, email: str) -> dict:
    """A submission whose one signer completes now (by the test clock)."""
    return (await send(api, template_id, {"email": email, "completed": True}))[0]


async def feed(api, query: str = "") -> dict:
    reply = await api.get(f"/api/events/form/completed{query}")
    assert reply.status == 200, reply.json
    return reply.json


def emails(page: dict) -> list[str]:
    return [item["data"]["email"] for item in page["data"]]


async def test_the_feed_lists_completed_submitters_latest_first_as_form_completed_events(api, clock, template_id):
    await completed(api, template_id, "a@example.com")
    clock.advance(timedelta(minutes=1))
    await send(api, template_id, {"email": "pending@example.com"})
    await completed(api, template_id, "b@example.com")
    page = await feed(api)
    assert emails(page) == ["b@example.com", "a@example.com"]
    assert page["data"][0]["event_type"] == "form.completed" and "event_id" not in page["data"][0]
    assert page["data"][0]["timestamp"] == "2026-01-01T12:01:00.000Z"
    assert page["pagination"] == {"count": 2, "next": START_UNIX, "prev": START_UNIX + 60}


async def test_feed_items_carry_the_submitter_as_webhooks_do(api, template_id):
    submitter = (
        await send(
            api,
            template_id,
            {
                "email": "a@example.com",
                "external_id": "u-1",
                "metadata": {"k": 1},
                "values": {"Full Name": "Ann"},
                "completed": True,
            },
            {"email": "b@example.com"},
        )
    )[0]
    data = (await feed(api))["data"][0]["data"]
    assert data["id"] == submitter["id"] and data["link_slug"] == submitter["slug"]
    assert "slug" not in data and "uuid" not in data and "submission_events" not in data
    assert (data["external_id"], data["metadata"], data["status"]) == ("u-1", {"k": 1}, "completed")
    assert (data["signer_order"], data["total_signers"], data["decline_reason"]) == (1, 2, None)
    assert data["submission"]["id"] == submitter["submission_id"] and data["submission"]["status"] == "pending"
    assert {"field": "Full Name", "value": "Ann"} in data["values"]


async def test_feed_items_link_the_submissions_documents_page_signed_and_carry_its_variables(api, template_id):
    submitter = (await send(api, template_id, {"email": "a@example.com", "completed": True}, variables={"k": "v"}))[0]
    slug = (await api.get(f"/api/submissions/{submitter['submission_id']}")).json["slug"]
    data = (await feed(api))["data"][0]["data"]
    assert data["submission_url"] == data["submission"]["url"]
    assert data["submission_url"].startswith(f"http://signsvc.test/e/{slug}."), "a signed link"
    assert data["submission"]["variables"] == {"k": "v"}


async def test_feed_items_carry_the_template_with_external_id_and_folder_name(api):
    template_id = await template(api, external_id="crm-1", folder_name="Sales")
    await completed(api, template_id, "a@example.com")
    record = (await api.get(f"/api/templates/{template_id}")).json
    assert (await feed(api))["data"][0]["data"]["template"] == {
        key: record[key] for key in ("id", "name", "external_id", "folder_name", "created_at", "updated_at")
    }


async def test_after_lists_events_completed_before_it_and_before_those_completed_in_a_later_second(
    api, clock, template_id
):
    for email in ("a@example.com", "b@example.com", "c@example.com"):
        await completed(api, template_id, email)
        clock.advance(timedelta(seconds=10))
    assert emails(await feed(api, f"?after={START_UNIX + 10}")) == ["a@example.com"]
    assert emails(await feed(api, f"?before={START_UNIX + 10}")) == ["c@example.com"]
    assert emails(await feed(api, f"?after={START_UNIX + 20}&before={START_UNIX}")) == ["b@example.com"]


async def test_walking_the_feed_misses_nothing_completed_in_the_same_second(api, clock, template_id):
    for index in range(5):
        await completed(api, template_id, f"{index}@example.com")
        clock.advance(timedelta(milliseconds=300 if index < 3 else 1000))
    seen, query = [], "?limit=2"
    while True:
        page = await feed(api, query)
        seen += emails(page)
        if page["pagination"]["count"] == 0:
            break
        query = f"?limit=2&after={page['pagination']['next']}"
    assert seen == ["4@example.com", "3@example.com", "2@example.com", "1@example.com", "0@example.com"]


async def test_a_second_with_more_events_than_the_limit_comes_whole(api, clock, template_id):
    for index in range(3):
        await completed(api, template_id, f"{index}@example.com")
        clock.advance(timedelta(milliseconds=100))
    page = await feed(api, "?limit=2")
    assert emails(page) == ["2@example.com", "1@example.com", "0@example.com"]
    assert (await feed(api, f"?limit=2&after={page['pagination']['next']}"))["data"] == []


async def test_submitters_completed_through_the_form_appear_with_their_ip_and_user_agent(api, template_id):
    submitter = (await send(api, template_id, {"email": "a@example.com"}))[0]
    await act(
        api,
        submitter["slug"],
        "complete",
        {"values": {"Full Name": "Ann", "Signature": "Ann"}},
        **{"User-Agent": "Browser/2"},
    )
    data = (await feed(api))["data"][0]["data"]
    assert (data["ip"], data["ua"]) == ("127.0.0.1", "Browser/2")


async def test_the_feed_shows_only_the_accounts_own_events(api, other_account, template_id):
    await completed(api, template_id, "a@example.com")
    assert (await feed(api.with_key(other_account.live)))["data"] == []


@pytest.mark.parametrize("query", ["?before=x", "?after=1.5", "?after=abc", "?before=1e9"])
async def test_after_and_before_that_are_not_integers_are_422(api, query):
    reply = await api.get(f"/api/events/form/completed{query}")
    assert reply.status == 422 and reply.json["error"]


@pytest.mark.parametrize(
    "after,everything",
    [
        (253402300799, True),
        (253402300800, True),
        (99999999999999, True),
        ("1" + "0" * 400, True),
        (-1, False),
        (-99999999999, False),
        (-62135596800, False),
        ("-" + "9" * 400, False),
    ],
)
async def test_any_integer_after_is_a_bound_far_future_the_whole_feed_far_past_an_empty_page(
    api, template_id, after, everything
):
    await completed(api, template_id, "a@example.com")
    assert emails(await feed(api, f"?after={after}")) == (["a@example.com"] if everything else [])


@pytest.mark.parametrize(
    "before,everything",
    [
        (253402300799, False),
        (253402300800, False),
        (99999999999999, False),
        ("1" + "0" * 400, False),
        (-1, True),
        (-99999999999, True),
        (-62135596801, True),
        ("-" + "9" * 400, True),
    ],
)
async def test_any_integer_before_is_a_bound_far_future_an_empty_page_far_past_the_whole_feed(
    api, template_id, before, everything
):
    await completed(api, template_id, "a@example.com")
    assert emails(await feed(api, f"?before={before}")) == (["a@example.com"] if everything else [])


async def test_a_limit_of_0_gives_an_empty_page_even_when_one_second_holds_events(api, template_id):
    await completed(api, template_id, "a@example.com")
    await completed(api, template_id, "b@example.com")
    assert (await feed(api, "?limit=0")) == {"data": [], "pagination": {"count": 0, "next": None, "prev": None}}


async def test_a_limit_above_100_is_clamped_to_100(api, template_id):
    await completed(api, template_id, "a@example.com")
    assert emails(await feed(api, "?limit=101")) == ["a@example.com"]
