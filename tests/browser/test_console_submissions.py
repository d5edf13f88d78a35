"""The console's submissions in chromium: a user sends a template from its send page, lands on the submission's
page, copies a signing link, and sees the first signer's status change once they complete the signing form;
the send form, the list and the submission's page at 1280 and 360 px."""

import re

from playwright.async_api import Browser, Page, expect

from signsvc.http.appkeys import WORKER
from tests.support.console import sign_in_browser
from tests.support.live_site import BROWSER_LOOP
from tests.support.pad import draw
from tests.support.screens import SCREENS
from tests.support.signing import BOB_VALUES, FIELDS, act, template
from tests.support.system import CHROMIUM

pytestmark = [CHROMIUM, BROWSER_LOOP]

# The sample template without its optional checkbox: Ann's part is her name and signature, Bob's his name.
TWO_ROLES = [field for field in FIELDS if field["name"] != "Newsletter"]


def url(site, path: str) -> str:
    return str(site.client.make_url(path))


async def shot(page: Page, name: str) -> None:
    SCREENS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=SCREENS / f"submissions-{name}.png", full_page=True)


async def fill_signers(page: Page, ann_email: str = "ann@example.com") -> None:
    first, second = page.get_by_role("group", name="First Party"), page.get_by_role("group", name="Second Party")
    await first.get_by_label("Email address").fill(ann_email)
    await first.get_by_label("Name").fill("Ann Smith")
    await second.get_by_label("Email address").fill("bob@example.com")
    await second.get_by_label("Name").fill("Bob Buyer")


async def fits(page: Page) -> bool:
    """No sideways scrolling: the page is no wider than the window."""
    return await page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


async def test_a_user_sends_a_template_copies_a_link_and_sees_the_first_signer_complete(site, page: Page):
    await page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    template_id = await template(site, TWO_ROLES)
    await sign_in_browser(site, page)
    await page.goto(url(site, f"/console/templates/{template_id}/send"))
    await expect(page.get_by_role("heading", name="Send “NDA” for signing")).to_be_visible()
    await expect(page.get_by_label("Email each signer their link")).to_be_checked()
    await fill_signers(page)
    await shot(page, "send-1280")
    await page.get_by_role("button", name="Send for signing").click()

    await expect(page).to_have_url(re.compile(r"/console/submissions/\d+\?done=submission_sent$"))
    sent = page.get_by_role("status").filter(has_text="no email was sent")  # no SMTP server: kept in the outbox
    await expect(sent.get_by_role("link", name="Open the outbox")).to_be_visible()
    ann_card = page.locator(".signer-cards > li").filter(has=page.get_by_role("heading", name=re.compile("^Ann Smith")))
    await expect(ann_card.locator(".badge")).to_have_text("Invited")
    ann_link = page.get_by_label("Signing link of Ann Smith")
    link = await ann_link.input_value()
    assert re.fullmatch(re.escape(url(site, "/s/")) + r"\w+", link)
    copy = ann_card.get_by_role("button", name="Copy link of Ann Smith")
    await copy.click()
    await expect(ann_card.get_by_role("status")).to_have_text("Copied.")
    assert await page.evaluate("navigator.clipboard.readText()") == link
    await ann_link.focus()
    await page.keyboard.press("Tab")
    await expect(copy).to_be_focused()
    await shot(page, "submission-1280")
    submission_path = page.url.split("?")[0]

    signer = await page.context.new_page()
    await signer.goto(link)
    name = signer.get_by_label("Full Name")
    await name.fill("Ann Smith")
    await name.press("Enter")
    await draw(signer, signer.get_by_role("img", name="Signature"))
    await signer.get_by_role("button", name="Complete").click()
    await expect(signer.get_by_role("heading", name="Thank you")).to_be_visible()
    await signer.close()

    await page.goto(submission_path)
    await expect(ann_card.locator(".badge")).to_have_text("Completed")
    await expect(page.get_by_label("Signing link of Ann Smith")).to_have_count(0)
    await expect(page.locator(".timeline")).to_contain_text("Ann Smith completed the form")
    await expect(page.locator(".timeline")).to_contain_text("Invitation to Bob Buyer kept in the outbox")

    await page.get_by_role("link", name="All submissions").click()
    await expect(page.get_by_role("link", name="Submissions", exact=True)).to_have_attribute("aria-current", "page")
    row = page.get_by_role("row").filter(has=page.get_by_role("link", name="NDA"))
    await expect(row).to_contain_text("Ann Smith Completed")
    await expect(row).to_contain_text("Bob Buyer Invited")
    await shot(page, "list-1280")

    bob = (await site.get(f"/api/submissions/{submission_path.rsplit('/', 1)[1]}")).json["submitters"][1]
    assert (await act(site, bob["slug"], "complete", {"values": BOB_VALUES})).status == 200
    await site.app[WORKER].settle()
    await page.goto(submission_path)
    downloads = page.get_by_role("region", name="Signed documents")
    await expect(downloads.get_by_role("link")).to_have_text(
        ["Signed document: nda", "Audit log", "Combined document (documents and audit log)"]
    )
    await shot(page, "completed-1280")


async def test_the_send_form_the_submission_and_the_list_fit_a_phone(site, browser: Browser):
    template_id = await template(site, TWO_ROLES)
    context = await browser.new_context(viewport={"width": 360, "height": 740})
    page = await context.new_page()
    try:
        await sign_in_browser(site, page)
        await page.goto(url(site, f"/console/templates/{template_id}/send"))
        await fill_signers(page, ann_email="ann@example")
        await page.get_by_role("button", name="Send for signing").click()
        problem = page.get_by_role("alert")
        await expect(problem).to_have_text("email is invalid in `submitters[0]`.")
        first_email = page.get_by_role("group", name="First Party").get_by_label("Email address")
        await expect(first_email).to_be_focused()
        await expect(first_email).to_have_attribute("aria-invalid", "true")
        await expect(page.get_by_role("group", name="Second Party").get_by_label("Name")).to_have_value("Bob Buyer")
        assert await fits(page)
        await shot(page, "send-360")

        await first_email.fill("ann@example.com")
        await page.get_by_role("button", name="Send for signing").click()
        await expect(page).to_have_url(re.compile(r"/console/submissions/\d+"))
        await expect(page.get_by_role("button", name="Copy link")).to_have_count(2)
        assert await fits(page)
        await shot(page, "submission-360")
        await page.get_by_role("link", name="Archive…").click()
        await expect(page.get_by_role("heading", name="Archive this submission?")).to_be_visible()
        await expect(page.get_by_role("button", name="Archive the submission")).to_be_visible()
        assert await fits(page)
        await shot(page, "archive-360")

        await page.goto(url(site, "/console/submissions"))
        await expect(page.get_by_role("link", name="NDA")).to_be_visible()
        assert await fits(page)
        await shot(page, "list-360")
    finally:
        await context.close()
