"""Email verification in chromium: a signer who must verify (`require_email_2fa`) asks for the code, reads it in
the email the outbox keeps, types it and reaches the form, whose actions then save; at 1280 and 360 px."""

import re

from playwright.async_api import Browser, Page, expect

import storage.emails as stored_emails
from signsvc.http.appkeys import DB
from tests.support.every_field import every_field_template, invite
from tests.support.live_site import BROWSER_LOOP
from tests.support.screens import screen
from tests.support.system import CHROMIUM

pytestmark = [CHROMIUM, BROWSER_LOOP]


def url(site, path: str) -> str:
    return str(site.client.make_url(path))


async def emailed_code(site) -> str:
    [email] = await stored_emails.list_emails(site.app[DB], 1, limit=1)
    assert email.kind == "verification_code" and email.to_address == "tess@example.com"
    return re.search(r"\b(\d{6})\b", email.text_body).group(1)


async def test_a_signer_types_the_emailed_code_and_reaches_the_form(site, page: Page):
    tess = await invite(site, await every_field_template(site), require_email_2fa=True)
    await page.goto(url(site, f"/s/{tess['slug']}"))
    await expect(page.get_by_role("heading", name="Verify your email address")).to_be_visible()
    await expect(page.get_by_text("te***@example.com")).to_be_visible()
    await page.screenshot(path=screen("email-verification-1280.png"), full_page=True)
    await page.get_by_role("button", name="Send code").click()
    code_input = page.get_by_label("Verification code")
    await expect(code_input).to_be_focused()
    await expect(page.get_by_role("status")).to_have_text(re.compile("A code for te\\*\\*\\*@example.com is ready"))
    await page.screenshot(path=screen("email-verification-sent-1280.png"), full_page=True)
    await code_input.fill("000000" if await emailed_code(site) != "000000" else "111111")
    await code_input.press("Enter")
    await expect(page.get_by_text("That code is not right.")).to_be_visible()
    await page.get_by_label("Verification code").fill(await emailed_code(site))
    await page.get_by_label("Verification code").press("Enter")
    await expect(page.get_by_label("Full name")).to_be_visible()
    await page.get_by_label("Full name").fill("Tess Tenant")
    await page.get_by_label("Full name").press("Enter")
    await expect(page.locator("#status")).to_have_text("Saved")
    await page.reload()
    await expect(page.get_by_label("Full name")).to_have_value("Tess Tenant")


async def test_the_verification_page_fits_a_small_screen(site, browser: Browser):
    tess = await invite(site, await every_field_template(site), require_email_2fa=True)
    context = await browser.new_context(viewport={"width": 360, "height": 740})
    try:
        page = await context.new_page()
        await page.goto(url(site, f"/s/{tess['slug']}"))
        await page.screenshot(path=screen("email-verification-360.png"), full_page=True)
        await page.get_by_role("button", name="Send code").click()
        await expect(page.get_by_label("Verification code")).to_be_focused()
        assert await page.evaluate("document.documentElement.scrollWidth") <= 360
        await page.screenshot(path=screen("email-verification-sent-360.png"), full_page=True)
    finally:
        await context.close()


async def test_a_code_typed_wrong_five_times_stops_working_and_the_page_offers_a_new_one(site, page: Page):
    tess = await invite(site, await every_field_template(site), require_email_2fa=True)
    await page.goto(url(site, f"/s/{tess['slug']}"))
    await page.get_by_role("button", name="Send code").click()
    wrong = "000000" if await emailed_code(site) != "000000" else "111111"
    for _ in range(5):
        await page.get_by_label("Verification code").fill(wrong)
        async with page.expect_navigation():
            await page.get_by_label("Verification code").press("Enter")
    await expect(page.get_by_role("alert")).to_have_text(re.compile("That code no longer works"))
    await expect(page.get_by_label("Verification code")).to_have_count(0)
    await page.screenshot(path=screen("email-verification-used-up-1280.png"), full_page=True)
    await page.set_viewport_size({"width": 360, "height": 740})
    assert await page.evaluate("document.documentElement.scrollWidth") <= 360
    await page.screenshot(path=screen("email-verification-used-up-360.png"), full_page=True)
    await page.get_by_role("button", name="Send code").click()
    await expect(page.get_by_label("Verification code")).to_be_focused()
