"""The console's reminder settings in chromium: three labelled selects chosen by keyboard and saved, a delay out of
order refused beside its select, and the page at a phone's width."""

from playwright.async_api import Browser, expect

from signsvc.http.appkeys import REMINDERS
from tests.support.console import sign_in_browser
from tests.support.live_site import BROWSER_LOOP
from tests.support.screens import screen
from tests.support.system import CHROMIUM

pytestmark = [CHROMIUM, BROWSER_LOOP]


async def fits_the_width(page) -> bool:
    return await page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")


async def test_the_accounts_reminder_delays_are_chosen_saved_and_shown_again(site, page):
    await sign_in_browser(site, page)
    await page.get_by_role("link", name="Reminders").click()
    await expect(page.get_by_role("heading", name="Reminders", exact=True)).to_be_visible()
    await page.get_by_label("First reminder").select_option("twenty_four_hours")
    await page.get_by_label("Second reminder").focus()
    await page.keyboard.press("End")  # the last choice, by keyboard
    await page.get_by_label("Subject").fill("Still to sign: {{template.name}}")
    await page.screenshot(path=screen("reminders-1280.png"), full_page=True)
    await page.get_by_role("button", name="Save reminders").click()
    await expect(page.get_by_role("status").first).to_have_text("Your reminder settings were saved.")
    await expect(page.get_by_label("First reminder")).to_have_value("twenty_four_hours")
    await expect(page.get_by_label("Second reminder")).to_have_value("thirty_days")
    await expect(page.get_by_label("Third reminder")).to_have_value("")
    schedule, email = await site.app[REMINDERS].settings(1)
    assert schedule == {"first_duration": "twenty_four_hours", "second_duration": "thirty_days"}
    assert email == {"subject": "Still to sign: {{template.name}}"}


async def test_a_delay_out_of_order_is_refused_beside_its_select_at_a_phones_width(site, browser: Browser):
    context = await browser.new_context(viewport={"width": 360, "height": 740})
    page = await context.new_page()
    try:
        await sign_in_browser(site, page)
        await page.goto(str(site.client.make_url("/console/settings/reminders")))
        assert await fits_the_width(page)
        await page.screenshot(path=screen("reminders-360.png"), full_page=True)
        await page.get_by_label("First reminder").select_option("seven_days")
        await page.get_by_label("Second reminder").select_option("two_days")
        await page.get_by_role("button", name="Save reminders").click()
        second = page.get_by_label("Second reminder")
        await expect(second).to_have_attribute("aria-invalid", "true")
        await expect(second).to_be_focused()
        await expect(page.get_by_role("alert")).to_contain_text("Choose a delay longer than the reminder before it")
        assert await fits_the_width(page)
        await page.screenshot(path=screen("reminders-360-refused.png"), full_page=True)
    finally:
        await context.close()


async def test_a_subject_too_long_is_refused_beside_its_input_at_a_phones_width(site, browser: Browser):
    context = await browser.new_context(viewport={"width": 360, "height": 740})
    page = await context.new_page()
    try:
        await sign_in_browser(site, page)
        await page.goto(str(site.client.make_url("/console/settings/reminders")))
        subject = page.get_by_label("Subject")
        await subject.evaluate("input => input.removeAttribute('maxlength')")  # as a crafted form would send
        await subject.fill("x" * 256)
        await page.get_by_role("button", name="Save reminders").click()
        await expect(subject).to_have_attribute("aria-invalid", "true")
        await expect(subject).to_be_focused()
        await expect(page.get_by_role("alert")).to_contain_text("Shorten this to at most 255 characters.")
        assert await fits_the_width(page)
        await page.screenshot(path=screen("reminders-360-subject-refused.png"), full_page=True)
    finally:
        await context.close()
