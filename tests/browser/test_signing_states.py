"""The signer's other paths in chromium: declining, coming back later, waiting their turn, an expired
link, a small screen, and a two-party submission signed from the invitation emails."""

import asyncio
import re
from datetime import timedelta

import pytest_asyncio
from playwright.async_api import Browser, Page, Response, Route, expect

from tests.support.every_field import ONE_FIELD, box, every_field_template, field, invite
from tests.support.live_site import BROWSER_LOOP, serving
from tests.support.pad import draw
from tests.support.signing import send, template
from tests.support.smtp_server import SmtpServer
from tests.support.system import CHROMIUM

pytestmark = [CHROMIUM, BROWSER_LOOP]


def url(site, path: str) -> str:
    return str(site.client.make_url(path))


def saves(response: Response, field_uuid: str | None) -> bool:
    """Whether a response answers the form's call that saves the given field's value."""
    request = response.request
    if request.method != "POST" or not request.url.endswith("/values"):
        return False
    return field_uuid in (request.post_data_json or {}).get("values", {})


async def test_declining_needs_a_reason_and_then_shows_the_declined_page(site, page: Page):
    tess = await invite(site, await every_field_template(site, ONE_FIELD))
    await page.goto(url(site, f"/s/{tess['slug']}"))
    await page.get_by_role("button", name="Decline").click()
    dialog = page.get_by_role("dialog", name="Decline to sign")
    await expect(dialog.get_by_label("Reason")).to_be_focused()
    await dialog.get_by_role("button", name="Decline").click()
    await expect(dialog.get_by_text("Please say why you decline.")).to_be_visible()
    await dialog.get_by_label("Reason").fill("The rent is wrong")
    await dialog.get_by_label("Reason").press("Tab")
    await page.keyboard.press("Tab")
    await page.keyboard.press("Enter")
    await expect(page.get_by_role("heading", name="Declined")).to_be_visible()
    submitter = (await site.get(f"/api/submitters/{tess['id']}")).json
    assert submitter["status"] == "declined"
    events = (await site.get(f"/api/submissions/{tess['submission_id']}")).json
    assert events["status"] == "declined"


async def test_a_signer_who_reloads_finds_the_values_and_signature_entered_before(site, page: Page):
    tess = await invite(site, await every_field_template(site))
    await page.goto(url(site, f"/s/{tess['slug']}"))
    await page.get_by_label("Full name").fill("Tess Tenant")
    await page.get_by_label("Full name").press("Enter")
    await page.get_by_label("Reference").press("Enter")
    await page.locator("fieldset.current").get_by_role("button", name="Type").click()
    await page.get_by_role("textbox", name="Signature").fill("Tess Tenant")
    signature = await page.locator("fieldset.step.signature").get_attribute("data-field")
    # "Saved" may still show from the name's save: wait for the call that saves the signature itself.
    async with page.expect_response(lambda response: saves(response, signature)) as saved:
        await page.get_by_role("textbox", name="Signature").press("Enter")
    assert (await saved.value).ok
    await page.reload()
    await expect(page.get_by_label("Full name")).to_have_value("Tess Tenant")
    await expect(page.locator("fieldset.signature img.current[alt=Signature]")).to_be_attached()
    await expect(page.locator(".box.signature .value img")).to_be_visible()
    await expect(page.locator("#progress")).to_have_text("3 of 10 filled")


async def test_text_typed_is_saved_when_typing_pauses_without_leaving_the_field(site, page: Page):
    tess = await invite(site, await every_field_template(site))
    await page.goto(url(site, f"/s/{tess['slug']}"))
    await page.get_by_label("Full name").fill("Tess Tenant")  # the field keeps focus: no change event
    await expect(page.locator("#status")).to_have_text("Saved")
    await page.reload()
    await expect(page.get_by_label("Full name")).to_have_value("Tess Tenant")


async def test_a_newer_value_is_saved_after_an_older_save_still_under_way_never_before_it(site, page: Page):
    """Two saves of one field never race: the second goes once the first is answered, so the server keeps the
    newer value whatever the network does with the first."""
    tess = await invite(site, await every_field_template(site))
    held: list[Route] = []
    first_held = asyncio.Event()

    async def hold_the_first_save(route: Route) -> None:
        if not held:
            held.append(route)
            first_held.set()
        else:
            await route.continue_()

    answered: list[str] = []
    page.on(
        "response",
        lambda response: (
            answered.append(response.request.post_data or "") if response.url.endswith("/values") else None
        ),
    )
    await page.route("**/values", hold_the_first_save)
    await page.goto(url(site, f"/s/{tess['slug']}"))
    await page.get_by_label("Full name").fill("Old Name")
    await page.get_by_label("Full name").press("Enter")
    await first_held.wait()
    await page.get_by_label("Full name").fill("New Name")
    await page.get_by_label("Full name").press("Enter")
    async with page.expect_response(lambda r: r.url.endswith("/values") and "New Name" in (r.request.post_data or "")):
        await held[0].continue_()
    assert ["Old" in body for body in answered] == [True, False], "the older save is answered first"
    values = (await site.get(f"/api/submitters/{tess['id']}")).json["values"]
    assert {"field": "Full name", "value": "New Name"} in values


async def test_a_number_shows_on_the_page_in_its_fields_format_as_it_is_entered(site, page: Page):
    rent = field("Rent", "number", box(1, 0.2), preferences={"format": "usd"})
    tess = await invite(site, await every_field_template(site, [rent]))
    await page.goto(url(site, f"/s/{tess['slug']}"))
    await page.get_by_label("Rent").fill("1250.5")
    await page.get_by_label("Rent").press("Tab")
    await expect(page.locator(".box.number .value")).to_have_text("$1,250.50")


async def test_opening_and_leaving_the_form_saves_nothing_and_today_stays_the_completion_day(site, page: Page):
    tess = await invite(site, await every_field_template(site))
    async with page.expect_response(lambda response: response.url.endswith("/view")):  # the page's own call
        await page.goto(url(site, f"/s/{tess['slug']}"))
    await expect(page.locator(".box.date .value")).not_to_be_empty()
    await page.goto("about:blank")
    submitter = (await site.get(f"/api/submitters/{tess['id']}")).json
    assert {v["field"]: v["value"] for v in submitter["values"]}.get("Signed on") in (None, "{{date}}")
    events = (await site.get(f"/api/submissions/{tess['submission_id']}")).json["submission_events"]
    assert [event["event_type"] for event in events] == ["view_form"]


async def test_in_preserved_order_the_second_signer_sees_who_signs_first(site, page: Page):
    _ann, bob = await send(site, await template(site), order="preserved")
    await page.goto(url(site, f"/s/{bob['slug']}"))
    await expect(page.get_by_role("heading", name="Not your turn yet")).to_be_visible()
    await expect(page.get_by_text("waiting for Ann to sign first")).to_be_visible()


async def test_an_expired_link_shows_when_it_expired(site, page: Page, clock):
    ann, _bob = await send(site, await template(site), expire_at="2026-01-02 12:00:00 UTC")
    clock.advance(timedelta(days=2))
    await page.goto(url(site, f"/s/{ann['slug']}"))
    await expect(page.get_by_role("heading", name="Expired")).to_be_visible()
    await expect(page.get_by_text(re.compile("This form expired on .*2026"))).to_be_visible()


async def test_the_form_fits_a_360_px_screen_and_works_by_touch(site, browser: Browser, tmp_path):
    tess = await invite(site, await every_field_template(site))
    context = await browser.new_context(viewport={"width": 360, "height": 740}, has_touch=True, is_mobile=True)
    small = await context.new_page()
    try:
        await small.goto(url(site, f"/s/{tess['slug']}"))
        assert await small.evaluate("document.documentElement.scrollWidth") <= 360
        await small.get_by_label("Full name").tap()
        await small.get_by_label("Full name").fill("Tess Tenant")
        await small.get_by_role("button", name="Next").tap()
        await expect(small.get_by_label("Reference")).to_be_in_viewport()
        for control in ("Next", "Back", "Decline"):
            box = await small.get_by_role("button", name=control).bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= 360 and box["height"] >= 32, control
        assert await small.evaluate("document.documentElement.scrollWidth") <= 360
    finally:
        await context.close()


@pytest_asyncio.fixture(loop_scope="session")
async def mailing_site(database_url, clock, pdf_pool, tmp_path):
    async with (
        SmtpServer() as smtp_server,
        serving(database_url, clock, pdf_pool, tmp_path / "data", smtp_url=smtp_server.url) as api,
    ):
        yield api, smtp_server


async def invitation_link(smtp_server: SmtpServer, to: str) -> str:
    for _ in range(100):
        for message in smtp_server.messages:
            if message["To"] == to:
                return re.search(r"http://127\.0\.0\.1:\d+/s/\w+", message.get_body(("plain",)).get_content()).group(0)
        await asyncio.sleep(0.05)
    raise AssertionError(f"no invitation to {to}")


async def test_two_signers_invited_by_email_complete_the_submission_using_only_the_page(mailing_site, page: Page):
    site, smtp_server = mailing_site
    await send(site, await template(site), order="preserved")

    await page.goto(await invitation_link(smtp_server, "ann@example.com"))
    await page.get_by_label("Full Name").fill("Ann Smith")
    await page.get_by_label("Full Name").press("Enter")
    await draw(page, page.get_by_role("img", name="Signature"))
    await page.get_by_role("button", name="Next").click()
    await page.get_by_label("Newsletter").check()
    await page.get_by_role("button", name="Complete").click()
    await expect(page.get_by_role("heading", name="Thank you")).to_be_visible()

    await page.goto(await invitation_link(smtp_server, "bob@example.com"))
    await expect(page.locator(".box.signature.done img")).to_be_visible()  # Ann's, on the page
    await page.get_by_label("Buyer Name").fill("Bob Buyer")
    await page.get_by_role("button", name="Complete").click()
    await expect(page.get_by_role("heading", name="Thank you")).to_be_visible()
    await expect(page.get_by_role("link", name="Download your copy: nda")).to_be_visible(timeout=30_000)
    submission = (await site.get(f"/api/submissions/{(await site.get('/api/submissions')).json['data'][0]['id']}")).json
    assert submission["status"] == "completed"
    assert [s["values"] for s in submission["submitters"]][1] == [{"field": "Buyer Name", "value": "Bob Buyer"}]
