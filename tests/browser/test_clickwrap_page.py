"""A person on a clickwrap's page in chromium: agreeing with the keyboard, the messages for what is
missing, the certificate that reaches them by email and verifies, signing after a requires_signature
clickwrap, and the public pages refusing to be framed."""

import asyncio
import base64
from collections.abc import AsyncIterator
from email.message import EmailMessage

import pytest_asyncio
from playwright.async_api import Page, expect

from signsvc.infra.clock import ManualClock
from signsvc.infra.pool import PdfPool
from tests.support.app import Api
from tests.support.every_field import ONE_FIELD, every_field_template
from tests.support.live_site import BROWSER_LOOP, serving
from tests.support.smtp_server import SmtpServer
from tests.support.system import CHROMIUM

pytestmark = [CHROMIUM, BROWSER_LOOP]

TERMS = {
    "name": "Terms of Service",
    "kind": "no_document",
    "content": "1. Be kind.\n2. No <script>spam</script>.",
    "button_text": "Accept the terms",
    "require_name": True,
    "require_email": True,
    "publish": True,
    "checkboxes": [{"text": "I read the privacy notice", "required": True}, {"text": "I am over 18", "required": True}],
}
FRAMING = """<!doctype html><html><body>
<iframe id="clickwrap" src="{site}/c/{clickwrap}" width="600" height="300"></iframe>
<iframe id="link" src="{site}/d/{template}" width="600" height="300"></iframe>
</body></html>"""


@pytest_asyncio.fixture(loop_scope="session")
async def smtp() -> AsyncIterator[SmtpServer]:
    async with SmtpServer() as server:
        yield server


@pytest_asyncio.fixture(loop_scope="session")
async def site(database_url: str, clock: ManualClock, pdf_pool: PdfPool, tmp_path, smtp) -> AsyncIterator[Api]:
    """The site of tests/browser/conftest.py, sending its emails to a local SMTP server."""
    async with serving(database_url, clock, pdf_pool, tmp_path / "data", smtp_url=smtp.url) as api:
        yield api


def url(site: Api, path: str) -> str:
    return str(site.client.make_url(path))


async def clickwrap(site: Api, **changes) -> dict:
    reply = await site.post("/api/clickwraps", json={**TERMS, **changes})
    assert reply.status == 200, reply.json
    return reply.json


async def mail_to(smtp: SmtpServer, address: str) -> EmailMessage:
    """The message for `address`, once the service's worker has sent it."""
    for _ in range(300):
        found = [m for m in smtp.messages if m["To"] == address]
        if found:
            return found[0]
        await asyncio.sleep(0.1)
    raise AssertionError(f"no email reached {address}")


async def test_a_person_agrees_with_the_keyboard_and_receives_the_certificate_by_email(site, page: Page, smtp):
    terms = await clickwrap(site)
    await page.goto(url(site, f"/c/{terms['slug']}?name=Ada+Lovelace"))
    await expect(page.get_by_role("region", name="Agreement")).to_have_text("1. Be kind.\n2. No <script>spam</script>.")
    await expect(page.get_by_label("Your name")).to_have_value("Ada Lovelace")

    await page.get_by_role("button", name="Accept the terms").click()
    await expect(page.get_by_text("Please enter your email address.")).to_be_visible()
    await expect(page.get_by_label("Your email address")).to_be_focused()
    await expect(page.get_by_text("Please tick this box to agree.")).to_have_count(2)

    await page.keyboard.type("ada at example")
    await page.keyboard.press("Enter")
    await expect(page.get_by_text("Please enter an email address such as name@example.com.")).to_be_visible()
    await page.get_by_label("Your email address").fill("ada@example.com")
    await page.keyboard.press("Tab")
    await page.keyboard.press("Space")
    await page.keyboard.press("Tab")
    await page.keyboard.press("Space")
    await expect(page.get_by_label("I read the privacy notice")).to_be_checked()
    await expect(page.get_by_label("I am over 18")).to_be_checked()
    await page.keyboard.press("Tab")
    await expect(page.get_by_role("button", name="Accept the terms")).to_be_focused()
    await page.keyboard.press("Enter")
    await expect(page.get_by_role("heading", name="Thank you")).to_be_visible()
    await expect(page.get_by_text("A certificate of your consent is on its way to ada@example.com.")).to_be_visible()

    message = await mail_to(smtp, "ada@example.com")
    assert message["Subject"] == "You agreed to Terms of Service"
    [attachment] = [part for part in message.iter_attachments()]
    assert attachment.get_filename() == "Consent Certificate - Terms of Service.pdf"
    certificate = attachment.get_content()
    verified = await site.post("/api/tools/verify", json={"file": base64.b64encode(certificate).decode()})
    assert verified.json["issued_by_service"] is True

    [consent] = (await site.get(f"/api/clickwraps/{terms['id']}/consents")).json["data"]
    assert (consent["clickwrap_version_number"], consent["name"], consent["email"]) == (
        1,
        "Ada Lovelace",
        "ada@example.com",
    )
    assert consent["certificate_url"] and "Chrome" in consent["user_agent"]
    assert [box["checked"] for box in consent["checkboxes"]] == [True, True]


async def test_requires_signature_continues_to_signing_and_completes(site, page: Page):
    template_id = await every_field_template(site, ONE_FIELD)
    nda = await clickwrap(site, kind="requires_signature", template_id=template_id, content=None, checkboxes=[])
    await page.goto(url(site, f"/c/{nda['slug']}"))
    await expect(page.get_by_role("img", name="Page 1 of lease")).to_be_visible()
    await page.get_by_label("Your name").fill("Tess Tenant")
    await page.get_by_label("Your email address").fill("tess@example.com")
    await page.get_by_role("button", name="Accept the terms").click()

    await page.get_by_label("Full name").fill("Tess Tenant")
    await page.get_by_role("button", name="Complete").click()
    await expect(page.get_by_role("heading", name="Thank you")).to_be_visible()

    [consent] = (await site.get(f"/api/clickwraps/{nda['id']}/consents")).json["data"]
    submission = (await site.get(f"/api/submissions/{consent['submission_id']}")).json
    assert submission["status"] == "completed" and submission["submitters"][0]["email"] == "tess@example.com"


async def test_clickwrap_and_public_template_link_pages_refuse_to_be_framed(site, host, page: Page):
    terms = await clickwrap(site)
    template_slug = (await site.get(f"/api/templates/{await every_field_template(site, ONE_FIELD)}")).json["slug"]
    host["/frames"] = FRAMING.format(
        site=str(site.client.make_url("")).rstrip("/"), clickwrap=terms["slug"], template=template_slug
    )
    await page.goto(host["origin"] + "/frames")
    await page.wait_for_load_state("load")
    assert len(page.frames) == 3
    for frame in page.frames[1:]:
        assert frame.url.startswith("chrome-error:") or await frame.locator("form").count() == 0, frame.url
