"""A visitor of a template's public link in chromium: the page, the start, the signing form, completed; the
page at a phone's width and without script."""

import re

from playwright.async_api import Browser, expect

from tests.support.live_site import BROWSER_LOOP
from tests.support.pad import draw
from tests.support.signing import FIELDS, template
from tests.support.system import CHROMIUM

pytestmark = [CHROMIUM, BROWSER_LOOP]

NAME_AND_SIGNATURE = [field for field in FIELDS if field["name"] in ("Full Name", "Signature")]


def url(site, path: str) -> str:
    return str(site.client.make_url(path))


async def link(site) -> str:
    template_id = await template(site, NAME_AND_SIGNATURE)
    return url(site, f"/d/{(await site.get(f'/api/templates/{template_id}')).json['slug']}")


async def test_a_visitor_opens_the_link_types_name_and_email_signs_and_completes(site, page, tmp_path):
    await page.goto(await link(site))
    await expect(page.get_by_role("heading", name="NDA")).to_be_visible()
    await page.screenshot(path=tmp_path / "link-1280.png", full_page=True)
    await page.get_by_label("Your name").fill("Ann Smith")
    await page.get_by_label("Your email address").fill("ann@example.com")
    await page.get_by_role("button", name="Continue to sign").click()

    await expect(page).to_have_url(re.compile(r"/s/\w+$"))
    name = page.get_by_label("Full Name")
    await name.fill("Ann Smith")
    await name.press("Enter")
    await draw(page, page.get_by_role("img", name="Signature"))
    await page.get_by_role("button", name="Complete").click()
    await expect(page.get_by_role("heading", name="Thank you")).to_be_visible()

    [submission] = (await site.get("/api/submissions")).json["data"]
    assert submission["source"] == "link" and submission["status"] == "completed"
    signer = submission["submitters"][0]
    assert (signer["name"], signer["email"], signer["status"]) == ("Ann Smith", "ann@example.com", "completed")


async def test_the_link_page_fits_a_phone_and_shows_errors_beside_inputs_without_script(
    site, browser: Browser, tmp_path
):
    address = await link(site)
    context = await browser.new_context(viewport={"width": 360, "height": 740}, java_script_enabled=False)
    page = await context.new_page()
    try:
        await page.goto(address + "?name=Ann%20Smith")
        await expect(page.get_by_label("Your name")).to_have_value("Ann Smith")
        await page.screenshot(path=tmp_path / "link-360.png", full_page=True)
        await page.get_by_label("Your email address").fill("ann@example")
        await page.get_by_role("button", name="Continue to sign").click()

        email = page.get_by_label("Your email address")
        await expect(email).to_have_attribute("aria-invalid", "true")
        await expect(email).to_have_accessible_description("Please enter an email address such as name@example.com.")
        await expect(email).to_be_focused()
        await expect(page.get_by_label("Your name")).to_have_value("Ann Smith")
        await page.screenshot(path=tmp_path / "link-360-errors.png", full_page=True)
        assert await page.evaluate("document.documentElement.scrollWidth") <= 360, "no sideways scrolling"
        button = await page.get_by_role("button", name="Continue to sign").bounding_box()
        assert button["width"] >= 300, "the button spans the phone's width"

        await email.fill("ann@example.com")
        await page.get_by_role("button", name="Continue to sign").click()
        await expect(page).to_have_url(re.compile(r"/s/\w+$"))
    finally:
        await context.close()
    assert len((await site.get("/api/submissions")).json["data"]) == 1
