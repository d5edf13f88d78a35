"""GET /metrics: the Prometheus text format for a scraper holding SIGNSVC_METRICS_TOKEN, and a 404 without it.

Each test scrapes over HTTP and reads the text back with prometheus_client's own parser. The process tier scrapes
`--workers 2` (tests/process/test_metrics_workers.py)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from prometheus_client.parser import text_string_to_metric_families

import storage.jobs as stored_jobs
from signsvc.http.appkeys import WORKER
from signsvc.infra import jobs
from tests.support import signing
from tests.support.app import Api
from tests.support.documents import b64, pdf

TOKEN = "metrics-token-0000000000000000000000000000"
BEARER = {"Authorization": f"Bearer {TOKEN}"}

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


@pytest.fixture
async def scraped(aiohttp_client, make_app) -> Api:
    """The API of a service with metrics on; its periodic jobs due at start already run, so tests count their own."""
    api = Api(await aiohttp_client(make_app(metrics_token=TOKEN)))
    await api.app[WORKER].drain()
    return api


async def scrape(api: Api) -> Samples:
    reply = await api.get("/metrics", headers=BEARER)
    assert reply.status == 200, reply.body
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(reply.body.decode())
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float | None:
    return samples.get((name, frozenset(labels.items())))


def labelled(samples: Samples, name: str, label: str) -> set[str]:
    """The values the samples of `name` have for `label`."""
    return {dict(labels)[label] for sample_name, labels in samples if sample_name == name}


# Who may scrape


async def test_without_the_token_setting_metrics_is_a_404_like_any_unknown_path(api):
    for headers in ({}, BEARER, {"Accept": "text/html"}):
        metrics, unknown = await api.get("/metrics", headers=headers), await api.get("/nothing-here", headers=headers)
        assert metrics.status == unknown.status == 404
        assert (metrics.headers["Content-Type"], metrics.body) == (unknown.headers["Content-Type"], unknown.body)


async def test_a_missing_or_wrong_bearer_token_is_401_asking_for_a_bearer(scraped):
    for headers in (
        {},
        {"Authorization": "Bearer wrong-token"},
        {"Authorization": f"Bearer {TOKEN}x"},
        {"Authorization": f"Basic {TOKEN}"},
        {"Authorization": TOKEN},
        {"Authorization": "Bearer "},
        {"Authorization": "Bearer tökén"},
    ):
        reply = await scraped.with_key(None).get("/metrics", headers=headers)
        assert reply.status == 401, headers
        assert reply.json == {"error": "Not authenticated"}
        assert reply.headers["WWW-Authenticate"].startswith("Bearer")


async def test_the_right_token_scrapes_the_prometheus_text_format_without_an_api_key_or_rate_limits(scraped):
    reply = await scraped.with_key(None).get("/metrics", headers={"Authorization": f"bearer {TOKEN}"})
    assert reply.status == 200
    assert reply.headers["Content-Type"].startswith("text/plain; version=")
    assert not [name for name in reply.headers if name.lower().startswith("x-ratelimit")]
    names = {family.name for family in text_string_to_metric_families(reply.body.decode())}
    assert {
        "signsvc_http_requests",
        "signsvc_http_request_duration_seconds",
        "signsvc_jobs",
        "signsvc_emails",
        "signsvc_webhook_deliveries",
        "signsvc_webhook_deliveries_oldest_pending_age_seconds",
        "signsvc_pdf_pool_tasks",
        "signsvc_pdf_pool_task_duration_seconds",
        "signsvc_database_connections",
        "signsvc_database_up",
    } <= names


# Requests


async def test_requests_are_counted_by_route_template_method_and_status_with_their_latency(scraped):
    before = await scrape(scraped)
    for _ in range(3):
        assert (await scraped.get("/api/templates")).status == 200
    assert (await scraped.get("/api/templates/123456")).status == 404
    assert (await scraped.with_key("not-a-key").get("/api/templates")).status == 401
    assert (await scraped.get("/nothing/here/42")).status == 404
    assert (await scraped.get("/console", allow_redirects=False)).status == 303  # raised, not returned
    samples = await scrape(scraped)

    def moved(name: str, **labels: str) -> float:
        return (value(samples, name, **labels) or 0) - (value(before, name, **labels) or 0)

    assert moved("signsvc_http_requests_total", route="/api/templates", method="GET", status="200") == 3
    assert moved("signsvc_http_requests_total", route="/api/templates", method="GET", status="401") == 1
    assert moved("signsvc_http_requests_total", route="/api/templates/{id}", method="GET", status="404") == 1
    assert moved("signsvc_http_requests_total", route="unmatched", method="GET", status="404") == 1
    assert moved("signsvc_http_requests_total", route="/console", method="GET", status="303") == 1
    assert moved("signsvc_http_request_duration_seconds_count", route="/api/templates", method="GET") == 4
    assert moved("signsvc_http_request_duration_seconds_bucket", route="/api/templates", method="GET", le="+Inf") == 4
    assert value(samples, "signsvc_http_request_duration_seconds_sum", route="/api/templates", method="GET") > 0
    assert value(samples, "signsvc_http_requests_total", route="/metrics", method="GET", status="200") >= 1
    routes = labelled(samples, "signsvc_http_requests_total", "route")
    assert not [route for route in routes if "123456" in route or "42" in route], routes


# Queues read from the database


async def test_jobs_due_scheduled_running_and_failed_show_by_kind_with_how_long_the_oldest_has_been_due(
    scraped, db, clock
):
    async with db.transaction() as tx:
        await jobs.enqueue(tx, clock, "test.nobody", {})
    await scraped.app[WORKER].drain()  # a kind without a handler fails at once
    async with db.transaction() as tx:
        for _ in range(3):
            await jobs.enqueue(tx, clock, "test.waiting", {})
        await jobs.enqueue(tx, clock, "test.waiting", {}, run_at=clock.now() + timedelta(hours=1))
    await stored_jobs.claim_jobs(
        db,
        kind="test.waiting",
        limit=1,
        worker="elsewhere",
        now=clock.now(),
        lease_until=clock.now() + timedelta(minutes=5),
    )
    clock.advance(timedelta(seconds=90))

    samples = await scrape(scraped)
    assert {
        state: value(samples, "signsvc_jobs", kind="test.waiting", state=state)
        for state in ("due", "scheduled", "running", "failed")
    } == {"due": 2, "scheduled": 1, "running": 1, "failed": 0}
    assert value(samples, "signsvc_jobs", kind="test.nobody", state="failed") == 1
    assert value(samples, "signsvc_jobs_oldest_due_age_seconds", kind="test.waiting") == 90
    assert value(samples, "signsvc_jobs_oldest_due_age_seconds", kind="test.nobody") == 0


async def test_a_pending_webhook_delivery_shows_and_its_age_follows_the_service_clock(scraped, clock, receiver):
    reply = await scraped.post("/api/webhooks", json={"url": receiver.url(), "events": ["template.created"]})
    assert reply.status == 200, reply.json
    await signing.template(scraped)
    clock.advance(timedelta(minutes=5))

    samples = await scrape(scraped)
    assert {
        status: value(samples, "signsvc_webhook_deliveries", status=status)
        for status in ("pending", "delivered", "failed")
    } == {"pending": 1, "delivered": 0, "failed": 0}
    assert value(samples, "signsvc_webhook_deliveries_oldest_pending_age_seconds") == 300
    clock.advance(timedelta(seconds=30))
    assert value(await scrape(scraped), "signsvc_webhook_deliveries_oldest_pending_age_seconds") == 330

    await scraped.app[WORKER].drain()
    samples = await scrape(scraped)
    assert value(samples, "signsvc_webhook_deliveries", status="delivered") == 1
    assert value(samples, "signsvc_webhook_deliveries", status="pending") == 0
    assert value(samples, "signsvc_webhook_deliveries_oldest_pending_age_seconds") == 0


async def test_emails_show_by_status_and_the_oldest_pending_ones_age(aiohttp_client, make_app, smtp_server, clock):
    mailing = Api(await aiohttp_client(make_app(smtp_url=smtp_server.url, metrics_token=TOKEN)))
    await mailing.app[WORKER].drain()
    template_id = await signing.template(mailing)
    await signing.send(mailing, template_id, {"email": "ann@example.com", "name": "Ann"}, order="random")
    clock.advance(timedelta(seconds=42))

    samples = await scrape(mailing)
    assert value(samples, "signsvc_emails", status="pending") == 1
    assert value(samples, "signsvc_emails", status="sent") == 0
    assert value(samples, "signsvc_emails_oldest_pending_age_seconds") == 42
    await mailing.app[WORKER].drain()
    samples = await scrape(mailing)
    assert (value(samples, "signsvc_emails", status="pending"), value(samples, "signsvc_emails", status="sent")) == (
        0,
        1,
    )
    assert value(samples, "signsvc_emails_oldest_pending_age_seconds") == 0


# What the process holds


async def test_pdf_pool_tasks_are_timed_by_call_and_none_is_left_queued_or_running(scraped, pdf_pool):
    before = await scrape(scraped)
    reply = await scraped.post(
        "/api/templates", json={"name": "NDA", "documents": [{"name": "nda", "file": b64(pdf())}]}
    )
    assert reply.status == 201, reply.json
    samples = await scrape(scraped)
    calls = labelled(samples, "signsvc_pdf_pool_task_duration_seconds_count", "call")
    assert calls, "a template's document goes through the pool"
    for call in calls:
        count = value(samples, "signsvc_pdf_pool_task_duration_seconds_count", call=call)
        assert count > (value(before, "signsvc_pdf_pool_task_duration_seconds_count", call=call) or 0)
        assert value(samples, "signsvc_pdf_pool_task_duration_seconds_sum", call=call) > 0
    assert value(samples, "signsvc_pdf_pool_tasks", state="running") == 0
    assert value(samples, "signsvc_pdf_pool_tasks", state="queued") == 0
    assert value(samples, "signsvc_pdf_pool_workers") == pdf_pool.workers


async def test_database_connections_are_shown_for_the_backend(scraped, db):
    samples = await scrape(scraped)
    in_use = value(samples, "signsvc_database_connections", backend=db.dialect, state="in_use")
    idle = value(samples, "signsvc_database_connections", backend=db.dialect, state="idle")
    limit = value(samples, "signsvc_database_connections_max", backend=db.dialect)
    assert in_use is not None and idle is not None and limit is not None
    assert 1 <= in_use + idle <= limit
    assert value(samples, "signsvc_database_up") == 1
    if db.dialect == "sqlite":
        assert (in_use, idle, limit) == (0, 1, 1)


async def test_the_metrics_of_an_app_stop_timing_its_pool_when_the_app_stops(aiohttp_client, make_app, pdf_pool):
    client = await aiohttp_client(make_app(metrics_token=TOKEN))
    assert len(pdf_pool.timers) == 1
    await client.close()
    assert pdf_pool.timers == []


async def test_a_database_that_does_not_answer_leaves_its_figures_out_and_the_rest_in(scraped, db):
    assert (await scraped.get("/api/templates")).status == 200
    await db.close()
    samples = await scrape(scraped)
    assert value(samples, "signsvc_database_up") == 0
    assert value(samples, "signsvc_http_requests_total", route="/api/templates", method="GET", status="200") == 1
    assert not labelled(samples, "signsvc_jobs", "kind") and value(samples, "signsvc_emails", status="sent") is None
