"""The console's API settings in chromium: a key shown on request and copied, the live key rotated after a
confirmation (the old key refused by the API at once), test mode's key in the example request; the page at a
phone's width and without script."""

import re

from playwright.async_api import Browser, expect

from tests.support.app import LIVE_KEY, TEST_KEY
from tests.support.console import sign_in_browser
from tests.support.live_site import BROWSER_LOOP
from tests.support.screens import screen
from tests.support.system import CHROMIUM

pytestmark = [CHROMIUM, BROWSER_LOOP]


def url(site, path: str) -> str:
    return str(site.client.make_url(path))


async def fits_the_width(page) -> bool:
    return await page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")


async def test_sign_in_rotate_the_live_key_with_confirmation_and_the_old_key_is_refused(site, page):
    await sign_in_browser(site, page)
    await page.get_by_role("link", name="API").click()
    await expect(page.get_by_role("heading", name="API", exact=True)).to_be_visible()
    await expect(page.get_by_role("link", name="API")).to_have_attribute("aria-current", "page")
    live = page.locator("#key-live")
    await expect(live.get_by_text(LIVE_KEY)).to_be_hidden()
    await expect(live.get_by_text("••••••••••••0000")).to_be_visible()

    await live.get_by_text("Show the key").click()
    await expect(live.get_by_text(LIVE_KEY)).to_be_visible()
    await expect(live.get_by_text("••••••••••••0000")).to_be_hidden()
    await page.screenshot(path=screen("api-1280.png"), full_page=True)
    await live.get_by_text("Hide the key").click()
    await expect(live.get_by_text(LIVE_KEY)).to_be_hidden()

    await live.get_by_role("link", name="Rotate the live key…").click()
    await expect(page.get_by_role("heading", name="Rotate the live key?")).to_be_visible()
    await page.get_by_role("button", name="Rotate the key").click()  # the box is not ticked: nothing is sent
    await expect(page.get_by_role("heading", name="Rotate the live key?")).to_be_visible()
    assert (await site.with_key(LIVE_KEY).get("/api/user")).status == 200
    await page.get_by_label("I understand that the current key stops working now.").check()
    await page.screenshot(path=screen("api-rotate-1280.png"), full_page=True)
    await page.get_by_role("button", name="Rotate the key").click()

    await expect(page.get_by_role("status").first).to_have_text(
        "Your live key was rotated: the old one no longer works. Copy the new one below."
    )
    await live.get_by_text("Show the key").click()
    new_key = (await live.locator("#key-live-value").text_content()).strip()
    assert new_key != LIVE_KEY and re.fullmatch(r"\w{43}", new_key)
    assert (await site.with_key(LIVE_KEY).get("/api/user")).status == 401
    assert (await site.with_key(new_key).get("/api/user")).status == 200


async def test_the_copy_buttons_copy_the_key_and_the_request_of_the_current_mode(site, browser: Browser):
    context = await browser.new_context(
        viewport={"width": 1280, "height": 900}, permissions=["clipboard-read", "clipboard-write"]
    )
    page = await context.new_page()
    try:
        await sign_in_browser(site, page)
        await page.goto(url(site, "/console/settings/api"))
        test_key = page.locator("#key-test")
        await test_key.get_by_role("button", name="Copy the test key").click()
        await expect(test_key.get_by_role("status")).to_have_text("Copied.")
        await expect(page.locator("#key-live [role=status]")).to_be_empty()
        assert await page.evaluate("navigator.clipboard.readText()") == TEST_KEY
        await page.screenshot(path=screen("api-copied-1280.png"), full_page=True)

        await page.get_by_role("button", name="Switch to test mode").click()
        await expect(page.get_by_text("Test mode is on")).to_be_visible()
        await page.get_by_role("button", name="Copy the request").click()
        site_url = url(site, "/api/user")
        assert await page.evaluate("navigator.clipboard.readText()") == f'curl -H "X-Auth-Token: {TEST_KEY}" {site_url}'
        await page.get_by_text("Show the request with the key").click()
        await expect(page.get_by_text(f"X-Auth-Token: {TEST_KEY}")).to_be_visible()
    finally:
        await context.close()


async def test_the_page_fits_a_phone_and_shows_a_key_without_script(site, browser: Browser):
    context = await browser.new_context(viewport={"width": 360, "height": 740})
    page = await context.new_page()
    try:
        await sign_in_browser(site, page)
        await page.goto(url(site, "/console/settings/api"))
        await page.locator("#key-live").get_by_text("Show the key").click()
        await expect(page.locator("#key-live").get_by_text(LIVE_KEY)).to_be_visible()
        assert await fits_the_width(page)
        await page.screenshot(path=screen("api-360.png"), full_page=True)
        cookies = await context.cookies()
    finally:
        await context.close()

    context = await browser.new_context(viewport={"width": 360, "height": 740}, java_script_enabled=False)
    await context.add_cookies(cookies)
    page = await context.new_page()
    try:
        await page.goto(url(site, "/console/settings/api"))
        await expect(page.get_by_role("button", name="Copy")).to_have_count(0)
        test_key = page.locator("#key-test")
        await expect(test_key.get_by_text(TEST_KEY)).to_be_hidden()
        await test_key.get_by_text("Show the key").click()
        await expect(test_key.get_by_text(TEST_KEY)).to_be_visible()
        assert await fits_the_width(page)
    finally:
        await context.close()
