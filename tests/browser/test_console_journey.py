"""A self-hoster's whole first task in the console, without touching the API: set a password through the setup
link, upload a PDF without form fields, place a text field and a signature field for two roles, send it to two
signers, both sign through their links, and download the signed document."""

import io
import re

from playwright.async_api import Page, expect
from pypdf import PdfReader

from signsvc.http.appkeys import WORKER
from tests.support.console import sign_in_browser
from tests.support.documents import pdf
from tests.support.live_site import BROWSER_LOOP
from tests.support.pad import draw
from tests.support.screens import SCREENS
from tests.support.system import CHROMIUM

pytestmark = [CHROMIUM, BROWSER_LOOP]


def url(site, path: str) -> str:
    return str(site.client.make_url(path))


async def drag(page: Page, figure, start: tuple[float, float], end: tuple[float, float]) -> None:
    """A drag on a page picture from one point to another, given as parts of its width and height."""
    await figure.scroll_into_view_if_needed()
    frame = await figure.bounding_box()
    await page.mouse.move(frame["x"] + start[0] * frame["width"], frame["y"] + start[1] * frame["height"])
    await page.mouse.down()
    await page.mouse.move(frame["x"] + end[0] * frame["width"], frame["y"] + end[1] * frame["height"], steps=6)
    await page.mouse.up()


async def place(page: Page, role: str, kind: str, start: tuple[float, float], end: tuple[float, float]) -> None:
    await page.get_by_label("New fields are for").select_option(label=role)
    await page.get_by_role("button", name=kind, exact=True).click()
    await drag(page, page.locator("figure.page").first, start, end)


async def sign(page: Page, link: str, signature: str, *, text: str | None = None) -> None:
    await page.goto(link)
    if text is not None:
        field = page.get_by_label("Text 1")
        await field.fill(text)
        await field.press("Enter")
    await draw(page, page.get_by_role("img", name=signature))
    await page.get_by_role("button", name="Complete").click()
    await expect(page.get_by_role("heading", name="Thank you")).to_be_visible()


async def test_a_self_hoster_uploads_places_fields_sends_to_two_signers_and_downloads_the_signed_pdf(site, page):
    SCREENS.mkdir(parents=True, exist_ok=True)
    await sign_in_browser(site, page)
    await page.get_by_role("link", name="Upload a document").click()
    await page.get_by_label("Document").set_input_files(
        files=[{"name": "Lease.pdf", "mimeType": "application/pdf", "buffer": pdf(1)}]
    )
    await page.get_by_role("button", name="Upload").click()
    await expect(page.get_by_role("heading", name="Lease", exact=True)).to_be_visible()

    await page.get_by_role("button", name="Add a role").click()
    await page.get_by_label("Name of role 2").fill("Tenant")
    await page.get_by_label("Name of role 2").press("Tab")
    await place(page, "First Party", "Text", (0.1, 0.3), (0.45, 0.34))
    await place(page, "First Party", "Signature", (0.1, 0.7), (0.4, 0.78))
    await place(page, "Tenant", "Signature", (0.55, 0.7), (0.9, 0.78))
    await page.get_by_role("button", name="Save", exact=True).click()
    await expect(page.locator("#save-status")).to_have_text("Saved.")
    await page.screenshot(path=SCREENS / "journey-editor-1280.png", full_page=True)

    await page.get_by_role("link", name="Send for signing").first.click()
    first, second = page.get_by_role("group", name="First Party"), page.get_by_role("group", name="Tenant")
    await first.get_by_label("Email address").fill("ann@example.com")
    await first.get_by_label("Name").fill("Ann Smith")
    await second.get_by_label("Email address").fill("ted@example.com")
    await second.get_by_label("Name").fill("Ted Tenant")
    await page.get_by_role("button", name="Send for signing").click()
    await expect(page).to_have_url(re.compile(r"/console/submissions/\d+\?done=submission_sent$"))
    submission = page.url.split("?")[0]

    signer = await page.context.new_page()
    await sign(
        signer,
        await page.get_by_label("Signing link of Ann Smith").input_value(),
        "Signature 1",
        text="Flat 4, Elm Street",
    )
    await page.goto(submission)
    await sign(signer, await page.get_by_label("Signing link of Ted Tenant").input_value(), "Signature 2")
    await signer.close()
    await site.app[WORKER].settle()

    await page.goto(submission)
    await expect(page.locator(".badges .badge").first).to_have_text("Completed")
    link = await page.get_by_role("link", name=re.compile("^Signed document")).get_attribute("href")
    downloaded = await page.request.get(url(site, link) if link.startswith("/") else link)
    assert downloaded.headers["content-type"] == "application/pdf"
    reader = PdfReader(io.BytesIO(await downloaded.body()))
    assert "Flat 4, Elm Street" in reader.pages[0].extract_text()
    assert any(field.get("/FT") == "/Sig" for field in (reader.get_fields() or {}).values()), "digitally signed"
    await page.screenshot(path=SCREENS / "journey-completed-1280.png", full_page=True)
