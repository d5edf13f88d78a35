"""Lists of submissions and submitters: filters, pagination and what each item carries."""

from datetime import timedelta
from urllib.parse import urlencode

import pytest

from tests.support import signing
from tests.support.app import START, TEST_KEY
from tests.support.signing import act, area

FIELDS = [
    {"name": "Full Name", "type": "text", "role": "First Party", "areas": [area(0.1)]},
    {"name": "Buyer Name", "type": "text", "role": "Second Party", "areas": [area(0.4)]},
]
ANN = {"email": "ann@example.com", "name": "Ann Smith", "phone": "+15551234567"}
BOB = {"email": "bob@example.com", "name": "Bob Jones"}


async def template(api, name="NDA") -> int:
    return await signing.template(api, FIELDS, name=name)


async def send(api, template_id: int, *submitters, **body) -> list[dict]:
    """A new submission of the template, by default to Ann and Bob; answers its signers."""
    return await signing.send(api, template_id, *(submitters or (ANN, BOB)), **body)


async def submission_id(api, template_id: int, *submitters, **body) -> int:
    return (await send(api, template_id, *submitters, **body))[0]["submission_id"]


async def complete(api, submitters: list[dict]) -> None:
    for submitter in submitters:
        reply = await api.put(f"/api/submitters/{submitter['id']}", json={"completed": True})
        assert reply.status == 200, reply.json


async def listed(api, path: str, **query) -> dict:
    reply = await api.get(f"{path}?{urlencode(query)}" if query else path)
    assert reply.status == 200, reply.json
    return reply.json


async def ids(api, path="/api/submissions", **query) -> list[int]:
    return [item["id"] for item in (await listed(api, path, **query))["data"]]


async def refused(api, path: str, query: str) -> str:
    reply = await api.get(f"{path}?{query}")
    assert reply.status == 422, reply.json
    return reply.json["error"]


# GET /submissions: order and pagination


async def test_submissions_are_listed_newest_first_with_count_next_and_prev(api):
    tid = await template(api)
    created = [await submission_id(api, tid) for _ in range(3)]
    page = await listed(api, "/api/submissions", limit=2)
    assert [s["id"] for s in page["data"]] == created[:0:-1]
    assert page["pagination"] == {"count": 2, "next": created[1], "prev": created[2]}
    last = await listed(api, "/api/submissions", limit=2, after=page["pagination"]["next"])
    assert [s["id"] for s in last["data"]] == [created[0]]
    assert last["pagination"] == {"count": 1, "next": created[0], "prev": created[0]}


async def test_after_lists_older_submissions_and_before_the_newest_newer_ones(api):
    tid = await template(api)
    created = [await submission_id(api, tid) for _ in range(4)]
    assert await ids(api, after=created[2]) == [created[1], created[0]]
    assert await ids(api, before=created[0], limit=2) == [created[3], created[2]]
    assert await ids(api, after=created[3], before=created[0]) == [created[2], created[1]]


async def test_an_empty_page_has_count_0_and_null_next_and_prev(api):
    assert await listed(api, "/api/submissions") == {"data": [], "pagination": {"count": 0, "next": None, "prev": None}}


async def test_limit_is_10_by_default_and_at_most_100(api):
    tid = await template(api)
    created = [await submission_id(api, tid, ANN) for _ in range(11)]
    assert await ids(api) == created[:0:-1]
    assert await ids(api, limit=100) == created[::-1]


@pytest.mark.parametrize(
    "query,message",
    [
        ("after=-1", "after must be an integer from 0 to 9223372036854775807"),
        ("before=x", "before must be an integer from 0 to 9223372036854775807"),
    ],
)
async def test_a_bad_id_bound_is_422(api, query, message):
    assert await refused(api, "/api/submissions", query) == message


@pytest.mark.parametrize("limit,count", [("101", 3), ("0", 0), ("ten", 0), ("-1", 0), ("2", 2)])
async def test_a_limit_outside_1_to_100_is_clamped_not_refused(api, limit, count):
    tid = await template(api)
    for _ in range(3):
        await submission_id(api, tid, ANN)
    assert len(await ids(api, limit=limit)) == count


# GET /submissions: filters


async def test_template_id_lists_only_that_templates_submissions(api):
    nda, lease = await template(api), await template(api, "Lease")
    first, second = await submission_id(api, nda), await submission_id(api, lease)
    assert await ids(api, template_id=nda) == [first]
    assert await ids(api, template_id=lease) == [second]
    assert await ids(api, template_id=999) == []
    assert (
        await refused(api, "/api/submissions", "template_id=abc")
        == "template_id must be an integer from 0 to 9223372036854775807"
    )


async def test_status_filter_matches_each_records_computed_status(api, clock):
    tid = await template(api)
    pending = await submission_id(api, tid)
    completed_submitters = await send(api, tid)
    await complete(api, completed_submitters)
    declined_submitters = await send(api, tid, expire_at=(START + timedelta(days=1)).isoformat())
    assert (await act(api, declined_submitters[0]["slug"], "decline", {"reason": "Wrong amount"})).status == 200
    expired = await submission_id(api, tid, expire_at=(START + timedelta(days=1)).isoformat())
    later = await submission_id(api, tid, expire_at=(START + timedelta(days=30)).isoformat())
    clock.advance(timedelta(days=2))
    expected = {
        "pending": [later, pending],
        "completed": [completed_submitters[0]["submission_id"]],
        "declined": [declined_submitters[0]["submission_id"]],
        "expired": [expired],
    }
    for status, wanted in expected.items():
        page = await listed(api, "/api/submissions", status=status)
        assert [s["id"] for s in page["data"]] == wanted, status
        assert {s["status"] for s in page["data"]} == {status}


async def test_a_submission_counts_as_expired_once_the_clock_passed_expire_at(api, clock):
    tid = await template(api)
    sid = await submission_id(api, tid, expire_at=(START + timedelta(hours=1)).isoformat())
    assert await ids(api, status="pending") == [sid] and await ids(api, status="expired") == []
    clock.advance(timedelta(hours=1))
    assert await ids(api, status="pending") == [] and await ids(api, status="expired") == [sid]
    assert (await listed(api, "/api/submissions"))["data"][0]["status"] == "expired"


async def test_an_unknown_status_is_422(api):
    message = await refused(api, "/api/submissions", "status=signed")
    assert message == "status must be one of pending, completed, declined, expired"


async def test_q_matches_part_of_a_submitters_name_email_or_phone_in_any_case(api):
    tid = await template(api)
    ann = await submission_id(api, tid, ANN)
    bob = await submission_id(api, tid, {"email": "carol@example.org"}, BOB)
    for q, wanted in [
        ("SMITH", [ann]),
        ("ann@EXAMPLE", [ann]),
        ("5551234", [ann]),
        ("+1555", [ann]),
        ("jones", [bob]),
        ("example.org", [bob]),
        ("example", [bob, ann]),
        ("nobody", []),
    ]:
        assert await ids(api, q=q) == wanted, q


async def test_percent_and_underscore_in_q_are_plain_characters(api):
    tid = await template(api)
    await submission_id(api, tid, ANN)
    odd = await submission_id(api, tid, {"name": "100% Sure_Thing"})
    assert await ids(api, q="%") == [odd]
    assert await ids(api, q="_") == [odd]
    assert await ids(api, q="0%") == [odd] and await ids(api, q="e_T") == [odd]


async def test_q_does_not_search_the_template_name(api):
    tid = await template(api, "Zebra Lease")
    await submission_id(api, tid, ANN)
    assert await ids(api, q="zebra") == []


@pytest.fixture
async def three_days(api, clock):
    """Submissions created at 12:00 UTC on 1, 2 and 3 January 2026."""
    tid = await template(api)
    created = []
    for _ in range(3):
        created.append(await submission_id(api, tid, ANN))
        clock.advance(timedelta(days=1))
    return created


async def test_created_at_from_and_to_take_a_date_and_to_covers_that_whole_day(api, three_days):
    first, second, third = three_days
    assert await ids(api, created_at_from="2026-01-02") == [third, second]
    assert await ids(api, created_at_to="2026-01-02") == [second, first]
    assert await ids(api, created_at_from="2026-01-02", created_at_to="2026-01-02") == [second]


@pytest.mark.parametrize(
    "bound",
    [
        "2026-01-02T12:00:00Z",
        "2026-01-02T12:00:00.000Z",
        "2026-01-02T13:00:00+01:00",
        "2026-01-02 12:00:00",
        "2026-01-02T12:00",
    ],
)
async def test_created_at_bounds_take_an_iso_timestamp_and_are_both_inclusive(api, three_days, bound):
    first, second, third = three_days
    assert await ids(api, created_at_from=bound) == [third, second]
    assert await ids(api, created_at_to=bound) == [second, first]
    assert await ids(api, created_at_from=bound, created_at_to=bound) == [second]


async def test_created_at_to_a_moment_before_a_submission_leaves_it_out(api, three_days):
    first, _, third = three_days
    assert await ids(api, created_at_to="2026-01-02T11:59:59.999Z") == [first]
    assert await ids(api, created_at_from="2026-01-02T12:00:00.001Z", created_at_to="2026-01-03") == [third]


async def test_an_upper_date_in_iso_basic_form_also_covers_the_whole_day(api, three_days):
    first, second, _ = three_days
    assert await ids(api, created_at_to="20260102") == [second, first]


@pytest.mark.parametrize("name", ["created_at_from", "created_at_to", "completed_at_from", "completed_at_to"])
@pytest.mark.parametrize("value", ["yesterday", "2026-13-01", "2026-01-02T25:00", "01/02/2026"])
async def test_a_malformed_date_filter_is_422_naming_it(api, name, value):
    message = await refused(api, "/api/submissions", urlencode({name: value}))
    assert message == f"{name} must be a date (2026-05-01) or an ISO 8601 timestamp"


@pytest.mark.parametrize(
    "path,query",
    [
        ("/api/submissions", "created_at_to=9999-12-31"),
        ("/api/submissions", "created_at_from=0001-01-01"),
        ("/api/submissions", "completed_at_to=9999-12-31T23:59:59.999999Z"),
        ("/api/submitters", "completed_before=9999-12-31"),
    ],
)
async def test_a_date_filter_at_the_edge_of_the_calendar_lists_everything_in_range_not_a_server_error(
    api, three_days, path, query
):
    reply = await api.get(f"{path}?{query}")
    assert reply.status == 200, reply.json
    assert len(reply.json["data"]) == (3 if "created" in query else 0)


@pytest.mark.parametrize(
    "path,query",
    [
        ("/api/submissions", "template_id=99999999999999999999"),
        ("/api/submissions", "after=99999999999999999999"),
        ("/api/submissions", "before=99999999999999999999"),
        ("/api/submitters", "submission_id=99999999999999999999"),
    ],
)
async def test_an_id_filter_beyond_64_bits_is_a_client_error_not_a_server_error(api, path, query):
    reply = await api.get(f"{path}?{query}")
    assert reply.status in (200, 422), reply.json
    assert reply.status == 422 or reply.json["data"] == []


@pytest.mark.parametrize("path", ["/api/submissions", "/api/submitters"])
async def test_a_nul_character_in_q_is_refused_or_matches_nothing_on_every_backend(api, path):
    await send(api, await template(api))
    reply = await api.get(f"{path}?q=%00")
    assert reply.status in (200, 422), reply.json
    assert reply.status == 422 or reply.json["data"] == []


async def test_completed_at_filters_list_only_submissions_completed_in_range(api, clock):
    tid = await template(api)
    early = await send(api, tid)
    late = await send(api, tid)
    pending = await send(api, tid)
    clock.advance(timedelta(hours=11, minutes=59, seconds=59))  # 2026-01-01 23:59:59
    await complete(api, early)
    clock.advance(timedelta(seconds=1))  # 2026-01-02 00:00:00
    await complete(api, late)
    early_id, late_id = early[0]["submission_id"], late[0]["submission_id"]
    assert await ids(api, completed_at_from="2026-01-01") == [late_id, early_id]
    assert await ids(api, completed_at_to="2026-01-01") == [early_id]
    assert await ids(api, completed_at_from="2026-01-02") == [late_id]
    assert await ids(api, completed_at_from="2026-01-02T00:00:00Z", completed_at_to="2026-01-02T00:00:00Z") == [late_id]
    assert pending[0]["submission_id"] not in await ids(api, completed_at_to="2026-12-31")


async def test_archived_true_lists_only_archived_false_only_active_and_absent_both(api):
    tid = await template(api)
    archived, active = await submission_id(api, tid), await submission_id(api, tid)
    assert (await api.delete(f"/api/submissions/{archived}")).status == 200
    assert await ids(api, archived="true") == [archived]
    assert await ids(api, archived="false") == [active]
    assert await ids(api) == [active, archived]
    assert await refused(api, "/api/submissions", "archived=maybe") == "archived must be true or false"


async def test_filters_combine(api, clock):
    nda, lease = await template(api), await template(api, "Lease")
    wanted = await submission_id(api, nda, ANN)
    await submission_id(api, nda, BOB)
    await submission_id(api, lease, ANN)
    assert await ids(
        api,
        template_id=nda,
        q="ann",
        status="pending",
        archived="false",
        created_at_from="2026-01-01",
        created_at_to="2026-01-01",
    ) == [wanted]


# GET /submissions: what an item holds and whose items are listed


async def test_list_items_carry_submitters_without_values_or_documents_and_no_submission_events(api):
    tid = await template(api)
    submitters = await send(api, tid, {**ANN, "values": {"Full Name": "Ann Smith"}}, BOB)
    item = (await listed(api, "/api/submissions"))["data"][0]
    full = (await api.get(f"/api/submissions/{item['id']}")).json
    assert "submission_events" not in item and "documents" not in item
    assert "submission_events" in full and "documents" in full
    assert [s["id"] for s in item["submitters"]] == [s["id"] for s in submitters]
    for submitter in item["submitters"]:
        assert "values" not in submitter and "documents" not in submitter
        assert {"status", "role", "email", "metadata", "preferences"} <= set(submitter)
    assert (item["status"], item["audit_log_url"], item["combined_document_url"]) == ("pending", None, None)
    assert item["template"]["id"] == tid and item["created_by_user"]["id"] == 1
    assert {key: full[key] for key in item if key != "submitters"} == {
        key: item[key] for key in item if key != "submitters"
    }


async def test_list_items_of_a_page_carry_only_their_own_submitters(api):
    tid = await template(api)
    first = await send(api, tid, ANN, BOB)
    await send(api, tid, {"name": "Mia"})
    last = await send(api, tid, {"email": "carol@example.com"})
    page = (await listed(api, "/api/submissions", q="o"))["data"]  # not the one in between
    assert [[s["id"] for s in item["submitters"]] for item in page] == [[last[0]["id"]], [s["id"] for s in first]]


async def test_another_accounts_submissions_never_appear(api, other_account):
    tid = await template(api)
    mine = await submission_id(api, tid)
    other = api.with_key(other_account.live)
    theirs = await submission_id(other, await template(other))
    assert await ids(api) == [mine]
    assert await ids(other) == [theirs]
    assert await ids(api, template_id=await template(other)) == []


async def test_test_key_submissions_are_separate_from_live_ones(api):
    live = await submission_id(api, await template(api))
    testing = api.with_key(TEST_KEY)
    test = await submission_id(testing, await template(testing))
    assert await ids(api) == [live]
    assert await ids(testing) == [test]


# GET /templates/{id}/submissions


async def test_template_submissions_lists_only_that_templates_submissions(api):
    nda, lease = await template(api), await template(api, "Lease")
    first = await submission_id(api, nda)
    await submission_id(api, lease)
    third = await submission_id(api, nda)
    page = await listed(api, f"/api/templates/{nda}/submissions", limit=1)
    assert [s["id"] for s in page["data"]] == [third]
    assert page["pagination"] == {"count": 1, "next": third, "prev": third}
    assert await ids(api, f"/api/templates/{nda}/submissions") == [third, first]
    assert await ids(api, f"/api/templates/{nda}/submissions", template_id=lease) == [third, first]
    item = (await listed(api, f"/api/templates/{nda}/submissions"))["data"][0]
    assert "submission_events" not in item and all("values" not in s for s in item["submitters"])


async def test_template_submissions_takes_the_list_filters(api, clock):
    tid = await template(api)
    archived = await submission_id(api, tid, ANN)
    await api.delete(f"/api/submissions/{archived}")
    active = await submission_id(api, tid, BOB)
    path = f"/api/templates/{tid}/submissions"
    assert await ids(api, path, archived="true") == [archived]
    assert await ids(api, path, q="jones") == [active]
    assert await ids(api, path, status="completed") == []
    assert await refused(api, path, "status=nope") == "status must be one of pending, completed, declined, expired"


async def test_template_submissions_of_a_missing_template_is_404(api):
    reply = await api.get("/api/templates/99/submissions")
    assert (reply.status, reply.json) == (404, {"error": "Not found"})


async def test_template_submissions_of_another_accounts_template_is_403(api, other_account):
    other = api.with_key(other_account.live)
    tid = await template(other)
    await submission_id(other, tid)
    reply = await api.get(f"/api/templates/{tid}/submissions")
    assert (reply.status, reply.json) == (403, {"error": "Not authorized"})


async def test_template_submissions_of_a_live_template_with_the_test_key_is_404(api):
    tid = await template(api)
    reply = await api.with_key(TEST_KEY).get(f"/api/templates/{tid}/submissions")
    assert reply.status == 404
    assert reply.json["error"].startswith(f"Template {tid} not found using testing API key")


# GET /submitters


async def test_submitters_are_listed_newest_first_with_pagination(api):
    tid = await template(api)
    first, second = await send(api, tid), await send(api, tid)
    every = [s["id"] for s in first + second]
    page = await listed(api, "/api/submitters", limit=3)
    assert [s["id"] for s in page["data"]] == every[:0:-1]
    assert page["pagination"] == {"count": 3, "next": every[1], "prev": every[3]}
    assert await ids(api, "/api/submitters", after=every[1]) == [every[0]]
    assert await ids(api, "/api/submitters", before=every[0], limit=1) == [every[3]]
    assert len(await ids(api, "/api/submitters", limit=101)) == 4
    assert await ids(api, "/api/submitters", limit=0) == []


async def test_submitters_limit_is_10_by_default(api):
    tid = await template(api)
    every = [s["id"] for _ in range(6) for s in await send(api, tid)]
    assert await ids(api, "/api/submitters") == every[:1:-1]


async def test_submitters_filter_by_submission_id(api):
    tid = await template(api)
    first, second = await send(api, tid), await send(api, tid)
    assert await ids(api, "/api/submitters", submission_id=first[0]["submission_id"]) == [s["id"] for s in first][::-1]
    assert (
        await ids(api, "/api/submitters", submission_id=second[0]["submission_id"]) == [s["id"] for s in second][::-1]
    )
    assert await ids(api, "/api/submitters", submission_id=999) == []


async def test_submitters_filter_by_external_id_or_its_alias_application_key(api):
    tid = await template(api)
    submitters = await send(api, tid, {**ANN, "external_id": "crm-1"}, {**BOB, "external_id": "crm-2"})
    assert await ids(api, "/api/submitters", external_id="crm-1") == [submitters[0]["id"]]
    assert await ids(api, "/api/submitters", application_key="crm-2") == [submitters[1]["id"]]
    assert await ids(api, "/api/submitters", external_id="crm") == []


async def test_submitters_q_matches_part_of_name_email_or_phone_in_any_case_literally(api):
    tid = await template(api)
    ann, bob = await send(api, tid, ANN, BOB)
    odd = (await send(api, tid, {"name": "100% Sure_Thing \\ co"}))[0]
    for q, wanted in [
        ("smith", [ann]),
        ("BOB@", [bob]),
        ("555123", [ann]),
        ("example.com", [bob, ann]),
        ("%", [odd]),
        ("_", [odd]),
        ("\\", [odd]),
        ("nobody", []),
    ]:
        assert await ids(api, "/api/submitters", q=q) == [s["id"] for s in wanted], q


async def test_completed_after_and_before_are_inclusive_and_a_date_before_covers_the_whole_day(api, clock):
    tid = await template(api)
    ann, bob = await send(api, tid)
    await send(api, tid, {"email": "never@example.com"})
    clock.advance(timedelta(hours=11, minutes=59, seconds=59))  # 2026-01-01 23:59:59
    await complete(api, [ann])
    clock.advance(timedelta(seconds=1))  # 2026-01-02 00:00:00
    await complete(api, [bob])
    path = "/api/submitters"
    assert await ids(api, path, completed_after="2026-01-01") == [bob["id"], ann["id"]]
    assert await ids(api, path, completed_before="2026-01-01") == [ann["id"]]
    assert await ids(api, path, completed_after="2026-01-02") == [bob["id"]]
    assert await ids(api, path, completed_after="2026-01-01T23:59:59Z", completed_before="2026-01-01T23:59:59Z") == [
        ann["id"]
    ]
    assert await ids(api, path, completed_before="2026-01-01T23:59:58Z") == []
    assert await refused(api, path, "completed_after=soon") == (
        "completed_after must be a date (2026-05-01) or an ISO 8601 timestamp"
    )


async def test_submitter_items_have_values_documents_template_and_their_own_submission_events(api, clock):
    tid = await template(api)
    ann, bob = await send(api, tid)
    assert (await act(api, ann["slug"], "view")).status == 200
    clock.advance(timedelta(minutes=5))
    assert (await act(api, ann["slug"], "complete", {"values": {"Full Name": "Ann Smith"}})).status == 200
    items = {item["id"]: item for item in (await listed(api, "/api/submitters"))["data"]}
    first = items[ann["id"]]
    assert first["values"] == [{"field": "Full Name", "value": "Ann Smith"}]
    assert isinstance(first["documents"], list)
    assert first["template"] == {
        "id": tid,
        "name": "NDA",
        "created_at": first["template"]["created_at"],
        "updated_at": first["template"]["updated_at"],
    }
    assert [e["event_type"] for e in first["submission_events"]] == [
        "send_email",
        "view_form",
        "start_form",
        "complete_form",
    ]
    assert all(e["submitter_id"] == ann["id"] for e in first["submission_events"])
    assert items[bob["id"]]["values"] == [] and items[bob["id"]]["status"] == "sent"
    assert [e["event_type"] for e in items[bob["id"]]["submission_events"]] == ["send_email"]
    assert (first["status"], first["completed_at"]) == ("completed", "2026-01-01T12:05:00.000Z")


async def test_another_accounts_and_test_mode_submitters_never_appear(api, other_account):
    mine = [s["id"] for s in await send(api, await template(api))]
    other = api.with_key(other_account.live)
    theirs = [s["id"] for s in await send(other, await template(other))]
    testing = api.with_key(TEST_KEY)
    test = [s["id"] for s in await send(testing, await template(testing))]
    assert await ids(api, "/api/submitters") == mine[::-1]
    assert await ids(other, "/api/submitters") == theirs[::-1]
    assert await ids(testing, "/api/submitters") == test[::-1]
    assert (
        await ids(
            api, "/api/submitters", submission_id=(await listed(other, "/api/submitters"))["data"][0]["submission_id"]
        )
        == []
    )
