"""Bulk send in chromium: a user uploads a CSV and an XLSX with a bad row on a template's send page and sees each
refused by its row number with nothing sent, then uploads a good file, checks the columns and the first rows, and
sends; the page after it counts the submissions made, and with a mail server the invitations as they leave (its
script). The mapping page at 1280 and 360 px."""

import asyncio
import re
from collections.abc import AsyncIterator
from urllib.parse import urlsplit

import pytest_asyncio
from playwright.async_api import Browser, Page, expect

from signsvc.infra.clock import ManualClock
from signsvc.infra.pool import PdfPool
from tests.support.app import Api
from tests.support.bulk_files import GOOD_CSV, SIGNER_FIELDS, csv_of, xlsx_of
from tests.support.console import sign_in_browser
from tests.support.live_site import BROWSER_LOOP, serving
from tests.support.screens import SCREENS
from tests.support.signing import template
from tests.support.smtp_server import SmtpServer
from tests.support.system import CHROMIUM

pytestmark = [CHROMIUM, BROWSER_LOOP]

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


class HeldSmtp(SmtpServer):
    """A mail server that takes no message until `release` is set: the invitations stay on their way."""

    def __init__(self) -> None:
        super().__init__()
        self.release = asyncio.Event()

    async def handle_DATA(self, server, session, envelope) -> str:
        await self.release.wait()
        return await super().handle_DATA(server, session, envelope)


@pytest_asyncio.fixture(loop_scope="session")
async def held_smtp() -> AsyncIterator[HeldSmtp]:
    async with HeldSmtp() as server:
        yield server
        server.release.set()


@pytest_asyncio.fixture(loop_scope="session")
async def mailing_site(
    database_url: str, clock: ManualClock, pdf_pool: PdfPool, tmp_path, held_smtp: HeldSmtp
) -> AsyncIterator[Api]:
    """The live site with its worker sending email through `held_smtp`."""
    async with serving(database_url, clock, pdf_pool, tmp_path / "data", smtp_url=held_smtp.url) as api:
        yield api


def url(site, path: str) -> str:
    return str(site.client.make_url(path))


async def read_file(page: Page, site, template_id: int, name: str, data: bytes, kind: str = "text/csv") -> None:
    """On the template's send page, the file chosen and read."""
    await page.goto(url(site, f"/console/templates/{template_id}/send"))
    await page.get_by_label("CSV or XLSX file").set_input_files(
        files=[{"name": name, "mimeType": kind, "buffer": data}]
    )
    await page.get_by_role("button", name="Read the file").click()
    await expect(page.get_by_role("heading", name="Send “NDA” to many signers")).to_be_visible()


async def submissions(site, template_id: int) -> list:
    return (await site.get(f"/api/submissions?template_id={template_id}")).json["data"]


async def test_files_with_a_bad_row_are_refused_by_row_number_and_a_good_one_is_sent(site, page: Page):
    template_id = await template(site, SIGNER_FIELDS)
    await sign_in_browser(site, page)

    await page.goto(url(site, f"/console/templates/{template_id}/send"))
    await page.get_by_label("CSV or XLSX file").scroll_into_view_if_needed()
    await page.screenshot(path=SCREENS / "bulk-upload-1280.png")
    bad_csv = csv_of([["Email", "Name"], ["ann@example.com", "Ann"], ["ann-at-example", "Bob"]])
    await read_file(page, site, template_id, "people.csv", bad_csv)
    problems = page.get_by_role("alert")
    await expect(problems).to_contain_text("Row 3, “Signer”: email is invalid.")
    await page.get_by_role("button", name="Send 2 submissions").click()
    await expect(page.get_by_text("Nothing has been sent.")).to_be_visible()
    assert await submissions(site, template_id) == []

    bad_xlsx = xlsx_of([["E-mail", "Amount"], ["ann@example.com", 3], [None, 4]])
    await read_file(page, site, template_id, "people.xlsx", bad_xlsx, XLSX)
    await expect(page.get_by_role("alert")).to_contain_text("Row 3: the email address of “Signer” is missing.")
    assert await submissions(site, template_id) == []

    await read_file(page, site, template_id, "people.csv", GOOD_CSV.encode())
    await expect(page.get_by_role("status")).to_have_text("All 2 rows can be sent.")
    await expect(page.get_by_label("Column “Email”")).to_have_value("role.0.email")
    notes = page.get_by_label("Column “Notes”")
    await expect(notes).to_have_value("")
    await notes.select_option(label="Signer: field “Full Name”")
    await page.get_by_role("button", name="Check again").click()
    await expect(page.get_by_label("Column “Notes”")).to_have_value(re.compile(r"^field\."))
    preview = page.get_by_role("region", name=re.compile("^The first 2 of 2 rows"))
    await expect(preview.get_by_role("row")).to_have_count(3)
    await page.screenshot(path=SCREENS / "bulk-mapping-1280.png", full_page=True)

    await page.locator("input[name=send_token]").evaluate("input => input.value = 'not-issued'")
    await page.get_by_role("button", name="Send 2 submissions").click()
    await expect(page.get_by_role("alert").filter(has_text="too old to send from")).to_be_visible()
    assert await submissions(site, template_id) == []
    await page.screenshot(path=SCREENS / "bulk-send-stale-1280.png", full_page=True)
    await page.set_viewport_size({"width": 360, "height": 740})
    await page.screenshot(path=SCREENS / "bulk-send-stale-360.png", full_page=True)
    assert await page.evaluate("document.documentElement.scrollWidth") <= 360, "no sideways scrolling"
    await page.set_viewport_size({"width": 1280, "height": 720})

    await page.get_by_role("button", name="Send 2 submissions").click()
    await expect(page.get_by_role("heading", name="“NDA” sent to many signers")).to_be_visible()
    await expect(page.get_by_text("2 of 2 submissions created.")).to_be_visible()
    await expect(page.get_by_role("link", name="Open the outbox")).to_be_visible()
    await page.screenshot(path=SCREENS / "bulk-sent-1280.png", full_page=True)
    made = await submissions(site, template_id)
    assert sorted(s["submitters"][0]["email"] for s in made) == ["ann@example.com", "bob@example.com"]


async def test_the_mapping_page_fits_a_phone_and_works_with_the_keyboard(site, browser: Browser):
    template_id = await template(site, SIGNER_FIELDS)
    context = await browser.new_context(viewport={"width": 360, "height": 740})
    page = await context.new_page()
    try:
        await sign_in_browser(site, page)
        rows = [["Email", "Name", "Amount", "A rather long column header"]]
        rows += [[f"signer{n}@example.com", f"Signer {n}", str(n), "a long value " * 4] for n in range(8)]
        rows.append(["not-an-address", "Zed", "1", ""])
        await read_file(page, site, template_id, "people.csv", csv_of(rows))
        await expect(page.get_by_role("alert")).to_contain_text("Row 10, “Signer”: email is invalid.")
        await page.screenshot(path=SCREENS / "bulk-mapping-360.png", full_page=True)
        assert await page.evaluate("document.documentElement.scrollWidth") <= 360, "no sideways scrolling"
        await page.get_by_label("Column “Email”").focus()
        await page.keyboard.press("Tab")
        await expect(page.get_by_label("Column “Name”")).to_be_focused()
    finally:
        await context.close()
    assert await submissions(site, template_id) == []


async def test_the_page_after_sending_counts_the_invitations_as_they_leave(mailing_site, held_smtp, page: Page):
    site = mailing_site
    template_id = await template(site, SIGNER_FIELDS)
    await sign_in_browser(site, page)
    await read_file(page, site, template_id, "people.csv", GOOD_CSV.encode())
    await page.get_by_role("button", name="Send 2 submissions").click()

    await expect(page.get_by_role("heading", name="“NDA” sent to many signers")).to_be_visible()
    await expect(page.locator("#invitations-count")).to_have_text("0 of 2 invitations sent.")
    await expect(page.get_by_label("Invitations sent")).to_have_attribute("max", "2")
    await page.screenshot(path=SCREENS / "bulk-sending-1280.png", full_page=True)
    held_smtp.release.set()
    await expect(page.locator("#invitations-count")).to_have_text("2 of 2 invitations sent.", timeout=15_000)
    await expect(page.get_by_role("status").filter(has_text="All invitations have been sent.")).to_be_visible()
    await expect(page.get_by_role("link", name="Check again")).to_have_count(0)
    assert len(held_smtp.received) == 2


async def test_the_page_after_sending_stops_asking_once_signed_out_and_says_so(mailing_site, page: Page):
    site = mailing_site
    template_id = await template(site, SIGNER_FIELDS)
    await sign_in_browser(site, page)
    await read_file(page, site, template_id, "people.csv", GOOD_CSV.encode())
    await page.clock.install()  # the page's timer runs only as the test moves its clock
    await page.get_by_role("button", name="Send 2 submissions").click()
    await expect(page.locator("#invitations-count")).to_have_text("0 of 2 invitations sent.")
    asked: list[str] = []
    page.on(
        "request",
        lambda request: asked.append(request.url) if urlsplit(request.url).path.endswith("/bulk/sent") else None,
    )

    await page.context.clear_cookies()  # signed out, as by another tab
    await page.clock.run_for(2_000)
    status = page.get_by_role("status").filter(has_text="This page has stopped updating")
    await expect(status).to_be_visible()
    await page.screenshot(path=SCREENS / "bulk-sent-stopped-1280.png", full_page=True)
    asked_before = len(asked)
    await page.clock.run_for(20_000)
    await expect(status).to_be_visible()
    assert len(asked) == asked_before == 1, asked
