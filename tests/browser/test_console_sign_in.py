"""Signing in to the console in chromium: the setup link, the sign-in form by keyboard, a refusal, signing out,
a form without its CSRF token, a deactivated user, test mode; and the pages at a phone's width."""

import re

from playwright.async_api import Browser, expect

from signsvc.http.appkeys import CONSOLE_USERS
from tests.support.app import TEST_KEY
from tests.support.console import PASSWORD, sign_in_browser
from tests.support.live_site import BROWSER_LOOP
from tests.support.signing import template
from tests.support.system import CHROMIUM

pytestmark = [CHROMIUM, BROWSER_LOOP]


def url(site, path: str) -> str:
    return str(site.client.make_url(path))


async def sign_out(page) -> None:
    await page.get_by_role("button", name="Sign out").click()
    await expect(page.get_by_role("status")).to_have_text("You are signed out.")


async def test_the_setup_link_then_the_sign_in_form_by_keyboard_open_the_console(site, page):
    await sign_in_browser(site, page)
    await sign_out(page)
    await page.goto(url(site, "/console/templates?q=nda"))
    await expect(page).to_have_url(re.compile(r"/console/sign-in\?next="))
    await expect(page.get_by_label("Email address")).to_be_focused()
    await page.keyboard.type("admin@example.com")
    await page.keyboard.press("Tab")
    await expect(page.get_by_label("Password")).to_be_focused()
    await page.keyboard.type(PASSWORD)
    await page.keyboard.press("Enter")
    await expect(page).to_have_url(re.compile(r"/console/templates\?q=nda$"))


async def test_a_wrong_password_says_so_and_keeps_the_email(site, page):
    await sign_in_browser(site, page)
    await sign_out(page)
    await page.get_by_label("Email address").fill("admin@example.com")
    await page.get_by_label("Password").fill("not my password")
    await page.get_by_role("button", name="Sign in").click()
    await expect(page.get_by_role("alert")).to_have_text("The email address or the password is not right.")
    await expect(page.get_by_label("Email address")).to_have_value("admin@example.com")
    await expect(page.get_by_label("Password")).to_be_focused()


async def test_a_form_posted_without_its_csrf_token_is_refused(site, page):
    await sign_in_browser(site, page)
    await page.locator("form.mode input[name=csrf]").evaluate("input => input.remove()")
    await page.get_by_role("button", name="Test mode").click()
    await expect(page.get_by_role("heading", name="This form has expired")).to_be_visible()
    await page.goto(url(site, "/console"))
    await expect(page.get_by_text("Test mode: you are seeing")).to_have_count(0)


async def test_a_deactivated_user_cannot_sign_in_and_their_open_session_ends(site, page):
    users = site.app[CONSOLE_USERS]
    admin = await users.find_by_email("admin@example.com")
    colleague = await users.invite(admin, email="colleague@example.com", first_name="Col", last_name="League")
    await sign_in_browser(site, page, "colleague@example.com")
    await users.deactivate(admin, colleague.id)
    await page.reload()
    await expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    await page.get_by_label("Email address").fill("colleague@example.com")
    await page.get_by_label("Password").fill(PASSWORD)
    await page.get_by_role("button", name="Sign in").click()
    await expect(page.get_by_role("alert")).to_have_text("The email address or the password is not right.")


async def test_test_mode_is_switched_from_the_header_and_the_console_shows_the_test_accounts_data(site, page):
    await template(site, name="Live lease")
    await template(site.with_key(TEST_KEY), name="Test lease")
    await sign_in_browser(site, page)
    await page.get_by_role("link", name="Templates", exact=True).click()
    await expect(page.get_by_role("link", name="Live lease", exact=True)).to_be_visible()
    await expect(page.get_by_role("link", name="Test lease", exact=True)).to_have_count(0)
    switch = page.get_by_role("button", name="Test mode")
    await expect(switch).to_have_attribute("aria-pressed", "false")
    await switch.click()
    await expect(page.get_by_role("status")).to_contain_text("Test mode: you are seeing the test data of signsvc.")
    await expect(page.get_by_role("button", name="Test mode")).to_have_attribute("aria-pressed", "true")
    await expect(page).to_have_url(re.compile(r"/console/templates$"))
    await expect(page.get_by_role("link", name="Test lease", exact=True)).to_be_visible()
    await expect(page.get_by_role("link", name="Live lease", exact=True)).to_have_count(0)
    await page.get_by_role("button", name="Test mode").click()
    await expect(page.get_by_text("Test mode: you are seeing")).to_have_count(0)


async def test_the_sign_in_and_home_pages_fit_a_phone(site, browser: Browser, tmp_path):
    context = await browser.new_context(viewport={"width": 360, "height": 740})
    page = await context.new_page()
    try:
        await sign_in_browser(site, page)
        await page.screenshot(path=tmp_path / "console-home-360.png", full_page=True)
        assert await page.evaluate("document.documentElement.scrollWidth") <= 360
        await page.get_by_role("button", name="Test mode").click()
        await page.screenshot(path=tmp_path / "console-home-test-mode-360.png", full_page=True)
        await sign_out(page)
        await page.screenshot(path=tmp_path / "console-sign-in-360.png", full_page=True)
        assert await page.evaluate("document.documentElement.scrollWidth") <= 360
        button = await page.get_by_role("button", name="Sign in").bounding_box()
        assert button["width"] >= 300, "the button spans the phone's width"
    finally:
        await context.close()
