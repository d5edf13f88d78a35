"""The console's setting of who else gets copies of completed documents, in chromium: reached from the outbox,
a refused address named beside the field with the focus on it, at 1280 and 360 px."""

from playwright.async_api import Browser, expect

from tests.support.console import sign_in_browser
from tests.support.live_site import BROWSER_LOOP
from tests.support.screens import screen
from tests.support.system import CHROMIUM

pytestmark = [CHROMIUM, BROWSER_LOOP]


async def test_the_extra_recipients_are_set_from_the_outbox_and_a_bad_address_is_named_with_focus(site, page):
    await sign_in_browser(site, page)
    await page.get_by_role("link", name="Outbox").click()
    await page.get_by_role("link", name="Who else gets copies of completed documents").click()
    field = page.get_by_label("Also send to")
    await field.fill("archive@example.com, not-an-address")
    await page.get_by_role("button", name="Save").click()
    await expect(page.get_by_text("not-an-address is not an email address")).to_be_visible()
    await expect(field).to_be_focused()
    await page.screenshot(path=screen("completed-copies-refused-1280.png"), full_page=True)
    await field.fill("archive@example.com")
    await page.keyboard.press("Tab")
    await page.keyboard.press("Enter")
    await expect(page.get_by_role("status").first).to_have_text(
        "Saved: these addresses get copies of completed documents from now on."
    )
    await expect(field).to_have_value("archive@example.com")
    await page.screenshot(path=screen("completed-copies-1280.png"), full_page=True)


async def test_the_extra_recipients_page_fits_a_phone(site, browser: Browser):
    context = await browser.new_context(viewport={"width": 360, "height": 740})
    page = await context.new_page()
    await sign_in_browser(site, page)
    await page.goto(str(site.client.make_url("/console/outbox/copies")))
    await expect(page.get_by_label("Also send to")).to_be_visible()
    assert await page.evaluate("document.documentElement.scrollWidth") <= 360
    await page.screenshot(path=screen("completed-copies-360.png"), full_page=True)
    await context.close()
