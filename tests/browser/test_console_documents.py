"""The console's templates from HTML files and its send form's variables in chromium: an HTML page uploaded with
its size chosen opens in the editor with its tag's field; the send form asks for a template's variables by their
labels, shows a refusal beside the variable (focused, the values kept), and sends the submission with them; the
upload page and the send form at 1280 and 360 px."""

import re

from playwright.async_api import Browser, Page, expect

from tests.support.console import sign_in_browser
from tests.support.live_site import BROWSER_LOOP
from tests.support.screens import SCREENS
from tests.support.signing import FIELDS, template
from tests.support.system import CHROMIUM, PANGO

pytestmark = [CHROMIUM, BROWSER_LOOP]

TWO_ROLES = [field for field in FIELDS if field["name"] != "Newsletter"]
SCHEMA = {
    "signer_name": {"type": "string", "required": True},
    "total": {"type": "number"},
    "is_vip": {"type": "boolean"},
    "invoices": {"type": "array"},
}
WIDTHS = ((1280, 900), (360, 740))


def url(site, path: str) -> str:
    return str(site.client.make_url(path))


async def fits(page: Page) -> bool:
    return await page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


@PANGO
async def test_an_html_page_uploaded_with_its_size_opens_in_the_editor_and_the_page_fits_each_width(
    site, browser: Browser
):
    for width, height in WIDTHS:
        context = await browser.new_context(viewport={"width": width, "height": height})
        page = await context.new_page()
        try:
            await sign_in_browser(site, page)
            await page.goto(url(site, "/console/templates/new"))
            await expect(page.get_by_text("an HTML page (HTML, HTM)")).to_be_visible()
            dynamic = page.get_by_label("DOCX: keep [[variables]] to fill when sending")
            await dynamic.focus()
            await page.keyboard.press("Space")
            await expect(dynamic).to_be_checked()
            await page.keyboard.press("Space")
            await page.get_by_label("Page size (HTML pages)").select_option("A4")
            assert await fits(page)
            await page.screenshot(path=SCREENS / f"templates-upload-kinds-{width}.png", full_page=True)
            html = '<h1>Lease</h1><p>Tenant: <text-field name="Tenant name" role="Tenant"></text-field></p>'
            await page.get_by_label("Document").set_input_files(
                files=[{"name": f"Lease {width}.html", "mimeType": "text/html", "buffer": html.encode()}]
            )
            await page.get_by_role("button", name="Upload").click()
            await expect(page).to_have_url(re.compile(r"/console/templates/\d+\?done=template_uploaded$"))
            await expect(page.get_by_role("heading", name=f"Lease {width}")).to_be_visible()
        finally:
            await context.close()
    made = (await site.get("/api/templates")).json["data"]
    assert [[field["name"] for field in one["fields"]] for one in made] == [["Tenant name"], ["Tenant name"]]


async def test_the_send_form_asks_for_the_variables_shows_a_refusal_beside_one_and_sends_them(site, browser: Browser):
    template_id = await template(site, TWO_ROLES)
    assert (await site.put(f"/api/templates/{template_id}", json={"variables_schema": SCHEMA})).status == 200
    sent = []
    for width, height in WIDTHS:
        context = await browser.new_context(viewport={"width": width, "height": height})
        page = await context.new_page()
        try:
            await sign_in_browser(site, page)
            await page.goto(url(site, f"/console/templates/{template_id}/send"))
            await page.get_by_role("group", name="First Party").get_by_label("Email address").fill("ann@example.com")
            await page.get_by_role("group", name="Second Party").get_by_label("Email address").fill("bob@example.com")
            variables = page.get_by_role("group", name="Variables")
            await variables.get_by_label("signer_name (required)").fill("Ann Smith")
            await variables.get_by_label("total").fill("1250.5")
            await variables.get_by_label("is_vip").check()
            invoices = variables.get_by_label("invoices")
            await invoices.fill('[{"name": "Desk"')
            await page.get_by_role("button", name="Send for signing").click()

            await expect(page.get_by_role("alert")).to_have_text(re.compile("^This is not a JSON list"))
            await expect(invoices).to_be_focused()
            await expect(invoices).to_have_attribute("aria-invalid", "true")
            await expect(variables.get_by_label("signer_name (required)")).to_have_value("Ann Smith")
            await expect(variables.get_by_label("is_vip")).to_be_checked()
            assert await fits(page)
            await page.screenshot(path=SCREENS / f"send-variables-{width}.png", full_page=True)

            await invoices.fill('[{"name": "Desk"}]')
            await page.get_by_role("button", name="Send for signing").click()
            await expect(page).to_have_url(re.compile(r"/console/submissions/\d+\?done=submission_sent$"))
            sent.append(int(page.url.split("?")[0].rsplit("/", 1)[1]))
        finally:
            await context.close()
    for submission_id in sent:
        assert (await site.get(f"/api/submissions/{submission_id}")).json["variables"] == {
            "signer_name": "Ann Smith",
            "total": 1250.5,
            "is_vip": True,
            "invoices": [{"name": "Desk"}],
        }
