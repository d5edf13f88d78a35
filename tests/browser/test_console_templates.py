"""The console's templates list and upload form in chromium: search and folder, its pages (Older, back to
the Newest), archive after a confirmation and restore, the upload's progress and a refused file's message;
each page at 1280 px and at a phone's width, and the upload without script."""

import asyncio
import re

from playwright.async_api import Browser, Page, expect

from tests.support.console import sign_in_browser
from tests.support.documents import b64, pdf
from tests.support.live_site import BROWSER_LOOP
from tests.support.screens import SCREENS
from tests.support.system import CHROMIUM

pytestmark = [CHROMIUM, BROWSER_LOOP]

BROKEN_PDF = b"%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF"


def url(site, path: str) -> str:
    return str(site.client.make_url(path))


async def api_template(site, name: str, folder: str) -> dict:
    reply = await site.post(
        "/api/templates", json={"name": name, "folder_name": folder, "documents": [{"name": name, "file": b64(pdf())}]}
    )
    assert reply.status == 201, reply.json
    return reply.json


async def test_the_list_is_searched_filtered_by_folder_and_fits_a_phone(site, browser: Browser):
    await api_template(site, "Apartment lease", "Housing")
    await api_template(site, "Non-disclosure agreement", "Sales")
    await api_template(site, "Garage lease with a rather long name that has to wrap on a phone", "Housing")
    SCREENS.mkdir(parents=True, exist_ok=True)
    for width, height in ((1280, 900), (360, 740)):
        context = await browser.new_context(viewport={"width": width, "height": height})
        page = await context.new_page()
        try:
            await sign_in_browser(site, page)
            await page.goto(url(site, "/console/templates"))
            table = page.get_by_role("table", name="Your templates, newest first")
            await expect(table.locator("td.name a")).to_have_text(
                [
                    "Garage lease with a rather long name that has to wrap on a phone",
                    "Non-disclosure agreement",
                    "Apartment lease",
                ]
            )
            await page.screenshot(path=SCREENS / f"templates-list-{width}.png", full_page=True)
            assert await page.evaluate("document.documentElement.scrollWidth") <= width, "no sideways scrolling"

            await page.get_by_label("Search by name").fill("lease")
            await page.get_by_label("Folder").select_option("Housing")
            await page.get_by_role("button", name="Show").click()
            await expect(table.locator("td.name a")).to_have_text(
                ["Garage lease with a rather long name that has to wrap on a phone", "Apartment lease"]
            )
            await page.get_by_label("Search by name").fill("apartment")
            await page.get_by_label("Search by name").press("Enter")
            await expect(table.locator("td.name a")).to_have_text(["Apartment lease"])
        finally:
            await context.close()


async def test_the_lists_pages_are_walked_older_and_back_to_the_newest_on_a_phone(site, browser: Browser):
    for number in range(1, 22):
        await api_template(site, f"Lease {number:02d}", "Housing")
    context = await browser.new_context(viewport={"width": 360, "height": 740})
    page = await context.new_page()
    try:
        await sign_in_browser(site, page)
        await page.goto(url(site, "/console/templates?folder=Housing"))
        pages = page.get_by_role("navigation", name="Pages of the list")
        await expect(pages.get_by_role("link")).to_have_text(["Older"])
        await pages.get_by_role("link", name="Older").click()
        await expect(page.locator("td.name a")).to_have_text(["Lease 01"])
        await expect(pages.get_by_role("link")).to_have_text(["Newest"])
        await page.screenshot(path=SCREENS / "templates-list-older-360.png", full_page=True)
        assert await page.evaluate("document.documentElement.scrollWidth") <= 360, "no sideways scrolling"
        await pages.get_by_role("link", name="Newest").click()
        await expect(page.locator("td.name a").first).to_have_text("Lease 21")
        await expect(page.get_by_label("Folder")).to_have_value("Housing")
    finally:
        await context.close()


async def test_a_template_is_archived_after_a_confirmation_and_restored(site, page: Page):
    template = await api_template(site, "Apartment lease", "Housing")
    await sign_in_browser(site, page)
    await page.goto(url(site, "/console/templates"))
    await page.get_by_role("link", name="Archive Apartment lease").click()
    await expect(page.get_by_role("heading", name="Archive the template?")).to_be_visible()
    await page.get_by_role("button", name="Archive the template").click()
    await expect(page.get_by_role("status")).to_have_text("The template is archived.")
    await expect(page.get_by_role("table")).to_have_count(0)
    assert (await site.get(f"/api/templates/{template['id']}")).json["archived_at"] is not None

    await page.get_by_role("link", name="Archived", exact=True).click()
    await expect(page.get_by_role("link", name="Archived", exact=True)).to_have_attribute("aria-current", "page")
    await page.get_by_role("button", name="Restore Apartment lease").click()
    await expect(page.get_by_role("status")).to_have_text("The template is restored.")
    assert (await site.get(f"/api/templates/{template['id']}")).json["archived_at"] is None


async def test_the_upload_shows_its_progress_then_opens_the_editor(site, page: Page):
    await sign_in_browser(site, page)
    await page.goto(url(site, "/console/templates/new"))
    await page.screenshot(path=SCREENS / "templates-upload-1280.png", full_page=True)
    held, release = asyncio.Event(), asyncio.Event()

    async def hold(route):
        held.set()
        await release.wait()
        await route.continue_()

    await page.route("**/console/templates/new", hold)
    await page.get_by_label("Document").set_input_files(
        files=[{"name": "Lease.pdf", "mimeType": "application/pdf", "buffer": pdf()}]
    )
    await page.get_by_label("Name").fill("Flat lease")
    await page.get_by_role("button", name="Upload").click()
    await held.wait()
    await expect(page.get_by_label("Upload progress")).to_be_visible()
    await expect(page.locator("#upload-status")).to_have_text(re.compile("^Upload"))
    await expect(page.get_by_role("button", name="Upload")).to_be_disabled()
    await page.screenshot(path=SCREENS / "templates-upload-progress-1280.png", full_page=True)
    release.set()

    await expect(page).to_have_url(re.compile(r"/console/templates/\d+\?done=template_uploaded$"))
    await expect(page.get_by_role("heading", name="Flat lease")).to_be_visible()
    await expect(page.get_by_role("status").filter(has_text="The document is uploaded.")).to_be_visible()


async def test_a_refused_file_shows_the_services_message_on_the_form_and_keeps_it(site, browser: Browser):
    refused = await site.post("/api/templates", json={"documents": [{"name": "broken", "file": b64(BROKEN_PDF)}]})
    context = await browser.new_context(viewport={"width": 360, "height": 740})
    page = await context.new_page()
    try:
        await sign_in_browser(site, page)
        await page.goto(url(site, "/console/templates/new"))
        document = page.get_by_label("Document")
        await document.set_input_files(
            files=[{"name": "broken.pdf", "mimeType": "application/pdf", "buffer": BROKEN_PDF}]
        )
        await page.get_by_role("button", name="Upload").click()

        await expect(page.get_by_role("alert")).to_have_text(refused.json["error"])
        await expect(document).to_be_focused()
        await expect(document).to_have_attribute("aria-invalid", "true")
        assert await document.evaluate("input => input.files.length") == 1, "the page stayed: the file is still chosen"
        await expect(page.get_by_label("Upload progress")).to_be_hidden()
        await page.screenshot(path=SCREENS / "templates-upload-360.png", full_page=True)
        assert await page.evaluate("document.documentElement.scrollWidth") <= 360, "no sideways scrolling"
    finally:
        await context.close()
    assert (await site.get("/api/templates")).json["data"] == []


async def test_the_upload_form_works_without_script(site, browser: Browser):
    context = await browser.new_context(viewport={"width": 1280, "height": 900}, java_script_enabled=False)
    page = await context.new_page()
    try:
        await sign_in_browser(site, page)
        await page.goto(url(site, "/console/templates/new"))
        await page.get_by_label("Document").set_input_files(
            files=[{"name": "Lease.pdf", "mimeType": "application/pdf", "buffer": pdf()}]
        )
        await page.get_by_label("Folder").fill("Housing")
        await page.get_by_role("button", name="Upload").click()
        await expect(page).to_have_url(re.compile(r"/console/templates/\d+\?done=template_uploaded$"))
        await expect(page.get_by_text("Placing fields needs JavaScript.")).to_be_visible()
    finally:
        await context.close()
    [template] = (await site.get("/api/templates")).json["data"]
    assert (template["name"], template["folder_name"]) == ("Lease", "Housing")
