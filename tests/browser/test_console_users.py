"""The console's users in chromium: inviting a user with the form's labels, deactivating one after the
confirmation, the instance administrator's approval of an account's API access; the page at a phone's width."""

from playwright.async_api import Browser, expect

from signsvc.http.appkeys import ACCOUNTS, CONSOLE_USERS
from tests.support.console import sign_in_browser
from tests.support.live_site import BROWSER_LOOP
from tests.support.screens import screen
from tests.support.system import CHROMIUM

pytestmark = [CHROMIUM, BROWSER_LOOP]


def url(site, path: str) -> str:
    return str(site.client.make_url(path))


async def test_invite_a_user_then_deactivate_them_after_the_confirmation(site, page):
    await sign_in_browser(site, page)
    await page.get_by_role("link", name="Users").click()
    await expect(page.get_by_role("heading", name="Users", exact=True)).to_be_visible()
    await page.get_by_label("Email address").fill("bob@example.com")
    await page.get_by_label("First name").fill("Bob")
    await page.get_by_label("Last name").fill("Stone")
    await page.get_by_role("button", name="Send the invitation").click()
    notice = page.get_by_role("status").first  # no SMTP server: the email is kept, and the notice says so
    await expect(notice).to_contain_text("No email was sent: this server has no SMTP server set up")
    await expect(notice.get_by_role("link", name="Open the outbox")).to_have_attribute("href", "/console/outbox")
    bob = page.get_by_role("row", name="Bob Stone")
    await expect(bob.get_by_text("Invited")).to_be_visible()
    await page.screenshot(path=screen("users-1280.png"), full_page=True)

    bob_user = await site.app[CONSOLE_USERS].find_by_email("bob@example.com")
    [live_key] = [key.key for key in await site.app[ACCOUNTS].keys(bob_user.id) if key.mode.value == "live"]
    assert (await site.with_key(live_key).get("/api/user")).status == 200

    await expect(bob.get_by_role("button", name="Send the invitation again to bob@example.com")).to_be_visible()
    await bob.get_by_role("link", name="Deactivate… bob@example.com").click()
    await expect(page.get_by_role("heading", name="Deactivate bob@example.com?")).to_be_visible()
    await page.get_by_role("button", name="Deactivate").click()  # not confirmed: the form is not sent
    await expect(page.get_by_role("heading", name="Deactivate bob@example.com?")).to_be_visible()
    await page.get_by_label("I understand that their API keys and sessions stop working now.").check()
    await page.screenshot(path=screen("users-deactivate-1280.png"), full_page=True)
    await page.get_by_role("button", name="Deactivate").click()
    await expect(page.get_by_role("status").first).to_contain_text("The user is deactivated")
    await expect(page.get_by_role("row", name="Bob Stone").get_by_text("Deactivated")).to_be_visible()
    assert (await site.with_key(live_key).get("/api/user")).status == 401


async def test_the_administrator_approves_an_accounts_api_access(site, page):
    waiting = await site.app[ACCOUNTS].create_account(name="Acme", email="ops@acme.test")
    await sign_in_browser(site, page)
    await page.goto(url(site, "/console/users"))
    await expect(page.get_by_role("heading", name="API access of every account")).to_be_visible()
    await expect(page.get_by_role("row", name="Acme").get_by_text("Not approved")).to_be_visible()
    assert (await site.with_key(waiting.live).get("/api/user")).status == 403
    await page.get_by_role("button", name="Approve API access of Acme").click()
    await expect(page.get_by_role("status").first).to_have_text("API access approved.")
    await expect(page.get_by_role("button", name="Revoke API access of Acme")).to_be_visible()
    assert (await site.with_key(waiting.live).get("/api/user")).status == 200


async def test_the_users_page_fits_a_phone(site, browser: Browser):
    users = site.app[CONSOLE_USERS]
    admin = await users.find_by_email("admin@example.com")
    await users.invite(
        admin,
        email="maximiliane.mustermann-schmidt@example.com",
        first_name="Maximiliane",
        last_name="Mustermann-Schmidt",
    )
    carol = await users.invite(admin, email="carol@example.com", first_name=None, last_name=None)
    await users.deactivate(admin, carol.id)
    await site.app[ACCOUNTS].create_account(name="A company with a rather long name", email="ops@long.test")
    context = await browser.new_context(viewport={"width": 360, "height": 740})
    page = await context.new_page()
    try:
        await sign_in_browser(site, page)
        await page.goto(url(site, "/console/users"))
        await expect(page.get_by_role("row", name="Maximiliane Mustermann-Schmidt")).to_be_visible()
        assert await page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
        await page.screenshot(path=screen("users-360.png"), full_page=True)
        await page.get_by_role("link", name="Deactivate… maximiliane.mustermann-schmidt@example.com").focus()
        await page.screenshot(path=screen("users-360-focus.png"))
    finally:
        await context.close()
