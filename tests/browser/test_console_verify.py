"""The console's verify page in chromium: a person uploads a B-LTA PDF made with pyHanko and reads, per
signature, its level, signing time and source, offline chain and what is missing; by keyboard, at 1280 and
360 px."""

from __future__ import annotations

import pytest
from playwright.async_api import expect

import storage.timestamp_authorities as stored_stampers
from signsvc.http.appkeys import DB
from signsvc.pdf import certificates
from tests.support import pades_levels as levels
from tests.support.console import sign_in_browser
from tests.support.live_site import BROWSER_LOOP
from tests.support.screens import screen
from tests.support.seals import SIGNED_AT
from tests.support.system import CHROMIUM

pytestmark = [CHROMIUM, BROWSER_LOOP]

PHONE = {"width": 360, "height": 740}


@pytest.fixture(scope="module")
def archived(tsa) -> bytes:
    ca = levels.test_ca()
    return levels.with_document_timestamp(levels.with_dss(levels.signed(ca, tsa["stamper"]), ca), tsa["stamper"])


async def test_the_verify_page_reports_each_signature_at_desktop_and_phone_widths(site, page, archived, tsa, tmp_path):
    # The service trusts the timestamp authorities it stamped with; this file's is the test TSA.
    await stored_stampers.remember(site.app[DB], certificates.fingerprint(tsa["cert_pem"]), tsa["cert_pem"], SIGNED_AT)
    path = tmp_path / "contract.pdf"
    path.write_bytes(archived)
    await sign_in_browser(site, page)
    await page.goto(str(site.client.make_url("/console/verify")))
    await page.get_by_label("Signed PDF").set_input_files(str(path))
    await page.get_by_label("Signed PDF").focus()
    await page.keyboard.press("Tab")
    await page.keyboard.press("Enter")
    # Verifying waits for the PDF pool, which a loaded machine may take a while to start.
    await expect(page.get_by_role("heading", name="What contract.pdf carries")).to_be_visible(timeout=60_000)
    first = page.get_by_role("article").first
    await expect(first.get_by_role("heading")).to_contain_text("PAdES B-LTA")
    await expect(first).to_contain_text("proven by a timestamp")
    await page.screenshot(path=str(screen("console-verify-1280.png")), full_page=True)
    await page.set_viewport_size(PHONE)
    await page.screenshot(path=str(screen("console-verify-360.png")), full_page=True)
    overflow = await page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0
