"""A page costs the same number of database statements whatever its size, and a record whatever the number of its
submitters: the loaders read each relation of a page (submitters, submissions, templates, authors, files, result
documents, audit trails, attempts) in one statement, never one per row or per distinct template or user.

The rows are realistic: submissions of two signers by several users and of two templates, the first signer with
an image value, every tenth submission completed with its result documents and emailed (the invitations, then the
completed copies with the documents attached), webhook deliveries with their attempts, consents. Rate limits are
lifted, so that no request refills a quota block in the middle; the testing extension is on, for its lists."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest

import storage.accounts as stored_accounts
from signsvc.accounts.accounts import Accounts
from signsvc.http.appkeys import DELIVERER, WORKER
from signsvc.webhooks.endpoints import MAX_ENDPOINTS
from storage import Database
from tests.support.app import Api
from tests.support.console import Console, signed_in
from tests.support.documents import b64, pdf, png
from tests.support.signing import area

FIELDS = [
    {"name": "Full Name", "type": "text", "role": "First Party", "areas": [area(0.1)]},
    {"name": "Photo", "type": "image", "role": "First Party", "required": False, "areas": [area(0.2)]},
    {"name": "Buyer Name", "type": "text", "role": "Second Party", "areas": [area(0.4)]},
]
MANY = 100
USERS = 4  # each sends a quarter of the submissions, one after another
COMPLETED_EVERY = 10
_FILE_ID = re.compile(r"/file/([0-9a-f]{32})\.")


@pytest.fixture
async def api(aiohttp_client, make_app) -> Api:
    return Api(await aiohttp_client(make_app(rate_limit_per_key=0, rate_limit_per_ip=0, testing=True)))


async def ok(api: Api, method: str, path: str, **kwargs: Any) -> Any:
    reply = await api.request(method, path, **kwargs)
    assert reply.status in (200, 201), (path, reply.status, reply.body[:300])
    return reply.json


async def template(api: Api, fields: list[dict[str, Any]], name: str) -> int:
    created = await ok(
        api,
        "POST",
        "/api/templates",
        json={"name": name, "documents": [{"name": "form", "file": b64(pdf()), "fields": fields}]},
    )
    return created["id"]


async def send(
    api: Api, template_id: int, photo: str, signers: int = 2, *, send_email: bool = False
) -> list[dict[str, Any]]:
    """A submission of `signers` signers, the first with a name and an image, the second with a name."""
    roles = [
        {"email": f"signer{n}@example.com", "name": f"Signer {n}", "values": {"Buyer Name": f"Buyer {n}"}}
        for n in range(signers)
    ]
    roles[0]["values"] = {"Full Name": "Ann Smith", "Photo": photo}
    return await ok(
        api,
        "POST",
        "/api/submissions",
        json={"template_id": template_id, "submitters": roles, "send_email": send_email},
    )


async def complete(api: Api, clock, signers: list[dict[str, Any]]) -> None:
    for signer in signers:
        clock.advance(timedelta(seconds=1))  # a second each: the feed never holds a second whole beyond its page
        await ok(api, "PUT", f"/api/submitters/{signer['id']}", json={"completed": True})


async def photo_id(api: Api) -> str:
    """An image of the account, recorded by a first submission, that later values name by its id."""
    first = await send(api, await template(api, FIELDS, "Upload"), b64(png()))
    values = (await ok(api, "GET", f"/api/submitters/{first[0]['id']}"))["values"]
    link = next(value["value"] for value in values if value["field"] == "Photo")
    found = _FILE_ID.search(link)
    assert found, link
    return found.group(1)


async def rows(api: Api, db: Database, clock, receiver) -> dict[str, int]:
    """MANY submissions (the newest tenth of another template), MANY templates, clickwraps and consents, webhook
    deliveries with attempts, and as many webhook endpoints as an account may have; answers the ids the paths
    need."""
    account = await stored_accounts.default_account(db)
    keys = [
        await Accounts(db, clock).create_user(account_id=account.id, email=f"user{n}@example.com")
        for n in range(USERS - 1)
    ]
    senders = [api] + [api.with_key(issued.live) for issued in keys]
    endpoint = await ok(api, "POST", "/api/webhooks", json={"url": receiver.url()})
    photo = await photo_id(api)
    first, last = await template(api, FIELDS, "First"), await template(api, FIELDS, "Last")
    for n in range(MANY):
        sender = senders[n * USERS // MANY]
        completed = (n + 1) % COMPLETED_EVERY == 0
        signers = await send(sender, last if n >= MANY * 9 // 10 else first, photo, send_email=completed)
        if completed:
            await complete(sender, clock, signers)
    for _ in range(MANY - 3):
        await ok(api, "POST", f"/api/templates/{first}/clone", json={})
    clickwraps = [
        await ok(
            api,
            "POST",
            "/api/clickwraps",
            json={"name": f"Terms {n}", "kind": "no_document", "content": "Terms", "publish": True},
        )
        for n in range(MANY)
    ]
    for n in range(MANY):
        await ok(api, "POST", f"/api/clickwraps/{clickwraps[0]['id']}/consents", json={"name": f"Ada {n}"})
    await api.app[WORKER].drain()
    for n in range(MAX_ENDPOINTS - 1):  # after the deliveries: the first endpoint alone has a log
        await ok(api, "POST", "/api/webhooks", json={"url": receiver.url(f"/hook{n}")})
    return {"template": first, "clickwrap": clickwraps[0]["id"], "endpoint": endpoint["id"]}


async def cost(api: Api, db: Database, clock, path: str) -> tuple[int, int]:
    """The statements one request of `path` makes (after the same request once, so that what a first request
    reads, such as the key, is read, and a second later, so that no page is answered as kept), and how many
    records its page holds."""
    await ok(api, "GET", path)
    clock.advance(timedelta(seconds=1))
    before = db.statements
    answer = await ok(api, "GET", path)
    return db.statements - before, len(answer["data"])


LISTS = [
    "/api/submissions?limit={limit}",
    "/api/submitters?limit={limit}",
    "/api/templates?limit={limit}",
    "/api/templates/{template}/submissions?limit={limit}",
    "/api/events/form/completed?limit={limit}",
    "/api/clickwraps?limit={limit}",
    "/api/clickwraps/{clickwrap}/consents?limit={limit}",
    "/api/webhooks?limit={limit}",
    "/api/webhooks/{endpoint}/deliveries?limit={limit}",
    "/api/_testing/emails?limit={limit}",
    "/api/_testing/webhooks/deliveries?limit={limit}",
]


async def test_every_list_costs_the_same_statements_for_a_page_of_10_and_of_100(api, db, clock, receiver):
    ids = await rows(api, db, clock, receiver)
    costs = {}
    for path in LISTS:
        small, large = [await cost(api, db, clock, path.format(limit=limit, **ids)) for limit in (10, 100)]
        assert small[1] == 10 and large[1] > 10, (path, small, large)
        costs[path] = (small[0], large[0])
    assert {path: counts for path, counts in costs.items() if counts[0] != counts[1]} == {}


async def test_every_console_list_costs_the_same_statements_for_a_full_page_and_a_short_one(api, db, clock, receiver):
    ids = await rows(api, db, clock, receiver)
    log = f"/console/webhooks/{ids['endpoint']}"
    newest = {
        path: [item["id"] for item in (await ok(api, "GET", f"{path}?limit={MANY}"))["data"]]
        for path in ("/api/submissions", "/api/templates", "/api/webhooks", "/api/_testing/emails")
    }
    deliveries = (await ok(api, "GET", f"/api/webhooks/{ids['endpoint']}/deliveries?limit={MANY}"))["data"]
    console = await signed_in(api)
    # Each list: its first page, a short page (`after` an id near the oldest), what marks a row, the rows of each.
    lists = [
        (
            "/console/submissions",
            newest["/api/submissions"][-10],
            r'href="/console/submissions/(\d+)"',
            (20, 10),  # the last nine of the MANY, and the first upload's
        ),
        ("/console/templates", newest["/api/templates"][-5], r'href="/console/templates/(\d+)"', (20, 4)),
        ("/console/webhooks", newest["/api/webhooks"][-5], r'href="/console/webhooks/(\d+)"', (20, 4)),
        (log, deliveries[-5]["id"], r'id="delivery-(\d+)"', (10, 4)),
        ("/console/outbox", newest["/api/_testing/emails"][-5], r'href="/console/outbox/(\d+)"', (20, 4)),
    ]
    costs = {}
    for path, after, row, shown in lists:
        full, short = (
            await page_cost(console, db, path, row),
            await page_cost(console, db, f"{path}?after={after}", row),
        )
        assert (full[1], short[1]) == shown, path
        costs[path] = (full[0], short[0])
    assert {path: counts for path, counts in costs.items() if counts[0] != counts[1]} == {}


async def page_cost(console: Console, db: Database, path: str, row: str) -> tuple[int, int]:
    """The statements one console page makes (after the same page once), and how many rows (distinct `row`
    matches) it shows."""
    await console.get(path)
    before = db.statements
    shown = await console.get(path)
    assert shown.status == 200, (path, shown.status)
    return db.statements - before, len(set(re.findall(row, shown.body.decode())))


async def test_a_submission_and_its_submitter_cost_the_same_statements_with_2_and_with_10_submitters(api, db, clock):
    """Through the API, and the submission's page in the console (its signers and its timeline)."""
    roles = [f"Party {n}" for n in range(10)]
    fields = [
        {"name": "Full Name", "type": "text", "role": roles[0], "areas": [area(0.1)]},
        {"name": "Photo", "type": "image", "role": roles[0], "required": False, "areas": [area(0.2)]},
        *({"name": "Buyer Name", "type": "text", "role": role, "areas": [area(0.4)]} for role in roles[1:]),
    ]
    photo = await photo_id(api)
    console = await signed_in(api)
    costs = []
    for signers in (2, 10):
        template_id = await template(api, fields[: signers + 1], f"{signers} parties")
        sent = await send(api, template_id, photo, signers)
        await complete(api, clock, sent)
        await api.app[WORKER].drain()
        submission = sent[0]["submission_id"]
        costs.append(
            [
                *[
                    (await cost_of_record(api, db, path))
                    for path in (
                        f"/api/submissions/{submission}",
                        f"/api/submitters/{sent[0]['id']}",
                        f"/api/submitters/{sent[-1]['id']}",
                    )
                ],
                (await page_cost(console, db, f"/console/submissions/{submission}", r'class="who">([^<]+)<'))[0],
            ]
        )
    assert costs[0] == costs[1]


async def test_a_batch_of_webhook_deliveries_costs_the_same_statements_for_10_records_of_each_kind_and_for_25(
    api, db, receiver
):
    """The deliveries' records are read as a page is: templates, submissions, signers and consents, each kind and
    each of their relations in one statement for the whole batch."""
    endpoint = await ok(api, "POST", "/api/webhooks", json={"url": receiver.url(), "events": "all"})
    photo = await photo_id(api)
    first = await template(api, FIELDS, "First")
    clickwrap = await ok(
        api,
        "POST",
        "/api/clickwraps",
        json={"name": "Terms", "kind": "no_document", "content": "Terms", "publish": True},
    )
    await api.app[WORKER].drain()
    costs = []
    for records in (10, 25):  # 40 and 100 deliveries (a page of the log holds 100 at most)
        for _ in range(records):
            await ok(api, "POST", f"/api/templates/{first}/clone", json={})
            signers = await send(api, first, photo)
            await ok(api, "POST", f"/api/_testing/submitters/{signers[0]['id']}/view", json={})
            await ok(api, "POST", f"/api/clickwraps/{clickwrap['id']}/consents", json={"name": "Ada"})
        pending = (await ok(api, "GET", f"/api/webhooks/{endpoint['id']}/deliveries?status=pending&limit=100"))["data"]
        assert sorted({d["event_type"] for d in pending}) == [
            "consent.created",
            "form.viewed",
            "submission.created",
            "template.created",
        ]
        assert len(pending) == 4 * records
        before = db.statements
        answers = await api.app[DELIVERER].deliver_batch([{"delivery_id": d["id"]} for d in pending])
        costs.append(db.statements - before)
        assert answers == [None] * len(pending)  # each delivered, nothing left to run
    assert costs[0] == costs[1]


async def cost_of_record(api: Api, db: Database, path: str) -> int:
    await ok(api, "GET", path)
    before = db.statements
    await ok(api, "GET", path)
    return db.statements - before
