"""The console's webhooks and outbox in chromium: a person adds an endpoint pointing at a real local receiver
(a secret generated in the page and shown once), sends the test event and sees how it went, sees a delivery
appear in the log; a refusal beside its input; deleting after a confirmation; the pages at 1280 and 360 px."""

import re
from collections.abc import AsyncIterator

import pytest_asyncio
from playwright.async_api import Browser, Page, expect

from signsvc.webhooks.signature import verify
from tests.support.app import START
from tests.support.console import sign_in_browser
from tests.support.live_site import BROWSER_LOOP
from tests.support.receiver import Receiver
from tests.support.screens import SCREENS
from tests.support.signing import send, template
from tests.support.system import CHROMIUM

pytestmark = [CHROMIUM, BROWSER_LOOP]

PHONE = {"width": 360, "height": 740}


def url(site, path: str) -> str:
    return str(site.client.make_url(path))


@pytest_asyncio.fixture(loop_scope="session")
async def hooks() -> AsyncIterator[Receiver]:
    """A real local webhook receiver, on the browser tests' event loop."""
    receiver = await Receiver().start()
    yield receiver
    await receiver.stop()


async def screenshot(page: Page, name: str) -> None:
    SCREENS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=SCREENS / f"{name}.png", full_page=True)


async def fits(page: Page) -> None:
    assert await page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"], (
        "no sideways scrolling"
    )


async def add_endpoint(page: Page, address: str) -> str:
    """Adds an endpoint for template.created only (the completion job of a signer may still record a
    form.completed while the test runs) with a generated secret; answers the secret the page shows once."""
    await page.get_by_role("link", name="Webhooks").click()
    await page.get_by_role("link", name="Add an endpoint").click()
    await expect(page.get_by_label("URL")).to_be_focused()
    await page.keyboard.type(address)
    for event_type in ("form.viewed", "form.started", "form.completed", "form.declined"):
        await page.get_by_role("checkbox", name=event_type).uncheck()
    await page.get_by_role("checkbox", name="template.created").check()
    await page.get_by_role("button", name="Generate").click()
    await expect(page.get_by_label("Header name")).to_have_value("X-Signsvc-Secret")
    await expect(page.get_by_label("Value", exact=True)).to_have_value(re.compile(r"^[0-9a-f]{48}$"))
    await page.get_by_role("button", name="Add the endpoint").click()
    await expect(page.get_by_role("heading", name="Copy the secret now")).to_be_focused()
    await expect(page.get_by_role("status").first).to_have_text("The endpoint is added.")
    return await page.locator("#secret-value").inner_text()


async def test_a_webhook_added_in_the_console_takes_the_test_event_and_its_deliveries_appear_in_the_log(
    site, page, hooks
):
    await send(site, await template(site), {"email": "ann@example.com", "completed": True})
    await sign_in_browser(site, page)
    await page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    secret = await add_endpoint(page, hooks.url())
    await page.get_by_role("button", name="Copy the secret").click()
    await expect(page.locator(".secret-once").get_by_role("status")).to_have_text("Copied.")
    assert await page.evaluate("navigator.clipboard.readText()") == secret
    await screenshot(page, "webhooks-secret-1280")

    await page.get_by_role("button", name="Send a test event").click()
    outcome = page.locator(".test-outcome")
    await expect(outcome.get_by_role("heading", name="Test event")).to_be_focused()
    await expect(outcome).to_contain_text("Delivered")
    await expect(outcome).to_contain_text("The endpoint answered HTTP 200 in")
    await expect(outcome).to_have_attribute("role", "status")
    await screenshot(page, "webhooks-tested-1280")
    [test_event] = hooks.received
    assert test_event.json["event_type"] == "form.completed" and "event_id" not in test_event.json
    assert verify(secret, test_event.body, test_event.headers, now=START.timestamp())
    await expect(page.get_by_text("Copy the secret now")).to_have_count(0)
    await expect(page.get_by_text(secret)).to_have_count(0)

    await template(site, name="Lease")  # template.created: a delivery the running worker sends
    await hooks.wait_for(2)
    await page.goto(url(site, "/console/webhooks/1"))
    delivery = page.locator("li.delivery")
    await expect(delivery.get_by_role("heading", name="template.created")).to_be_visible()
    await expect(delivery.locator(".badge")).to_have_text("Delivered")
    await expect(delivery.get_by_role("table", name="Attempts: 1")).to_contain_text("200")
    await screenshot(page, "webhooks-endpoint-1280")

    await page.get_by_role("link", name="All endpoints").click()
    row = page.get_by_role("row").filter(has_text=hooks.url())
    await expect(row).to_contain_text("Delivered")
    await screenshot(page, "webhooks-list-1280")

    await page.get_by_role("link", name="Outbox").click()
    await expect(page.get_by_role("heading", name="Outbox")).to_be_visible()
    await screenshot(page, "outbox-list-1280")


async def test_a_refused_url_is_shown_beside_its_input_and_deleting_asks_first(site, page, hooks):
    await sign_in_browser(site, page)
    await page.goto(url(site, "/console/webhooks/new"))
    await page.get_by_label("URL").fill("ftp://files.example.com/hook")
    await page.get_by_role("button", name="Add the endpoint").click()
    address = page.get_by_label("URL")
    await expect(address).to_be_focused()
    await expect(address).to_have_attribute("aria-invalid", "true")
    await expect(address).to_have_accessible_description(re.compile(r"url must be an http:// or https:// URL"))
    await expect(page.get_by_role("alert")).to_contain_text("url must be an http:// or https:// URL with a host")
    await screenshot(page, "webhooks-refused-1280")
    await address.fill(hooks.url())
    await page.get_by_role("button", name="Add the endpoint").click()
    await expect(page.get_by_role("status").first).to_have_text("The endpoint is added.")

    await page.get_by_role("link", name="Delete").click()
    await expect(page.get_by_role("heading", name="Delete this webhook endpoint?")).to_be_visible()
    await page.get_by_role("link", name="Keep it").click()
    await expect(page.get_by_role("heading", name=hooks.url())).to_be_visible()
    await page.get_by_role("link", name="Delete").click()
    await page.get_by_role("button", name="Delete the endpoint").click()  # the box is not ticked: nothing is sent
    await expect(page.get_by_role("heading", name="Delete this webhook endpoint?")).to_be_visible()
    await page.get_by_label("I understand that the endpoint and its delivery log are deleted for good.").check()
    await screenshot(page, "webhooks-delete-1280")
    await page.get_by_role("button", name="Delete the endpoint").click()
    await expect(page.get_by_role("status")).to_have_text("The endpoint is deleted.")
    assert (await site.get("/api/webhooks")).json["data"] == []


async def test_the_webhooks_and_outbox_pages_fit_a_phone(site, browser: Browser, hooks):
    await send(site, await template(site), {"email": "ann@example.com", "name": "Ann"})
    context = await browser.new_context(viewport=PHONE)
    page = await context.new_page()
    try:
        await sign_in_browser(site, page)
        await add_endpoint(page, hooks.url() + "/a-rather-long-path/that-keeps-going/for-a-phone")
        await fits(page)
        await screenshot(page, "webhooks-secret-360")
        await template(site, name="Lease")
        await hooks.wait_for(1)
        await page.goto(url(site, "/console/webhooks/1"))
        await expect(page.locator("li.delivery .badge")).to_have_text("Delivered")
        await fits(page)
        await screenshot(page, "webhooks-endpoint-360")
        await page.goto(url(site, "/console/webhooks"))
        await fits(page)
        await screenshot(page, "webhooks-list-360")
        await page.goto(url(site, "/console/webhooks/1/edit"))
        await fits(page)
        await screenshot(page, "webhooks-form-360")

        await page.goto(url(site, "/console/outbox"))
        await expect(page.get_by_role("link", name="You are invited to sign a document")).to_be_visible()
        await fits(page)
        await screenshot(page, "outbox-list-360")
        await page.get_by_role("link", name="You are invited to sign a document").click()
        await expect(page.get_by_role("heading", name="Text")).to_be_visible()
        frame = page.frame_locator("iframe.email-html")
        await expect(frame.get_by_role("link", name="Review and sign")).to_be_visible()
        await fits(page)
        await screenshot(page, "outbox-email-360")
        await page.locator("iframe.email-html").scroll_into_view_if_needed()
        await page.screenshot(path=SCREENS / "outbox-email-html-360.png")
    finally:
        await context.close()


async def test_an_emails_page_frames_its_html_without_script_or_console_access(site, page):
    await send(site, await template(site), {"email": "ann@example.com", "name": "Ann"})
    await sign_in_browser(site, page)
    await page.goto(url(site, "/console/outbox"))
    await page.get_by_role("link", name="You are invited to sign a document").click()
    frame = page.frame_locator("iframe.email-html")
    await expect(frame.get_by_role("link", name="Review and sign")).to_be_visible()
    [framed] = [candidate for candidate in page.frames if candidate.url.endswith("/html")]
    assert await framed.evaluate("window.origin") == "null", "an origin of its own: no cookies, no console"
    await screenshot(page, "outbox-email-1280")
