"""Signature formats and the phone hand-off in chromium: each format's offered modes, a reason chosen (one of the
field's own, or with the account asking reasons, "Other" and the signer's own words), and a signature drawn on a
phone (a second browser at 360 px) reaching the desktop form without a reload."""

import re

from playwright.async_api import Browser, Page, expect

from tests.support.browser_pages import own_page
from tests.support.console import sign_in_browser, signed_in
from tests.support.documents import b64, png
from tests.support.every_field import box, every_field_template, field, invite
from tests.support.live_site import BROWSER_LOOP
from tests.support.pad import draw
from tests.support.screens import screen
from tests.support.system import CHROMIUM

pytestmark = [CHROMIUM, BROWSER_LOOP]
DRAWING = "data:image/png;base64," + b64(png(300, 100))

# By field name: its format, and the modes the form offers for it (draw, type, upload).
FORMATS = {
    "Drawn": ("drawn", ["draw"]),
    "Typed": ("typed", ["type"]),
    "Uploaded": ("upload", ["upload"]),
    "Drawn or typed": ("drawn_or_typed", ["draw", "type"]),
    "Drawn or uploaded": ("drawn_or_upload", ["draw", "upload"]),
    "Typed or uploaded": ("typed_or_upload", ["type", "upload"]),
    "Any way": (None, ["draw", "type", "upload"]),
}


def url(site, path: str) -> str:
    return str(site.client.make_url(path))


def format_fields() -> list[dict]:
    fields = [
        field(
            "Drawn",
            "signature",
            box(1, 0.05, h=0.08),
            preferences={"format": "drawn", "reasons": ["Approved", "Reviewed"], "with_signature_id": True},
        )
    ]
    for index, (name, (format, _)) in enumerate(list(FORMATS.items())[1:], start=1):
        preferences = {"format": format} if format else {}
        fields.append(
            field(name, "signature", box(1, 0.05 + 0.1 * index, h=0.08), preferences=preferences, required=False)
        )
    return fields


async def offered(page: Page, name: str) -> list[str]:
    step = page.locator("fieldset.signature").filter(
        has=page.locator("legend", has_text=re.compile(f"^{re.escape(name)}( \\*)?$"))
    )
    return await step.locator(".pane").evaluate_all("panes => panes.map((pane) => pane.dataset.pane)")


async def test_each_signature_format_offers_its_modes_and_a_reason_is_chosen_before_completing(site, page, browser):
    signer = await invite(site, await every_field_template(site, format_fields()))
    await page.goto(url(site, f"/s/{signer['slug']}"))
    assert {name: await offered(page, name) for name in FORMATS} == {
        name: modes for name, (_, modes) in FORMATS.items()
    }
    drawn = page.locator("fieldset.current")
    await expect(drawn.locator(".mode")).to_have_count(0)  # one way: no choice to show
    await expect(drawn.get_by_role("button", name="Sign on your phone")).to_be_visible()
    await draw(page, page.get_by_role("img", name="Drawn"))
    await page.get_by_role("button", name="Next").click()
    await expect(drawn.get_by_text("Choose a signing reason.")).to_be_visible()
    await drawn.get_by_label("Signing reason").select_option("Approved")
    await page.screenshot(path=screen("signature-formats-1280.png"), full_page=True)
    await page.get_by_role("button", name="Next").click()
    typed = page.locator("fieldset.current")
    await expect(typed.get_by_role("textbox", name="Typed")).to_be_focused()  # typed only: the text box opens
    await expect(typed.get_by_role("button", name="Sign on your phone")).to_have_count(0)

    async with own_page(browser, viewport={"width": 360, "height": 740}) as phone_sized:
        await phone_sized.goto(url(site, f"/s/{signer['slug']}"))
        await expect(phone_sized.get_by_role("button", name="Sign on your phone")).to_be_hidden()
        await phone_sized.screenshot(path=screen("signature-formats-360.png"), full_page=True)

    for _ in range(len(FORMATS) - 2):
        await page.get_by_role("button", name="Next").click()
    await page.get_by_role("button", name="Complete").click()
    await expect(page.get_by_role("heading", name="Thank you")).to_be_visible()


async def test_a_signature_drawn_on_a_phone_reaches_the_desktop_without_a_reload(site, page, browser: Browser):
    fields = [field("Signature", "signature", box(1, 0.2, h=0.08)), field("Name", "text", box(1, 0.4))]
    signer = await invite(site, await every_field_template(site, fields))
    await page.goto(url(site, f"/s/{signer['slug']}"))
    await page.get_by_role("button", name="Sign on your phone").click()
    qr = page.get_by_role("img", name="QR code of the link to sign on your phone")
    await expect(qr).to_have_attribute("src", re.compile("^data:image/svg"))
    link = await page.locator(".handoff-link").text_content()
    assert link and "/p/" in link
    await page.screenshot(path=screen("phone-handoff-desktop-1280.png"), full_page=True)

    async with own_page(browser, viewport={"width": 360, "height": 740}, has_touch=True) as phone:
        await phone.goto(link)
        await expect(phone.get_by_role("heading", level=1)).to_be_visible()
        await phone.screenshot(path=screen("phone-handoff-phone-360.png"), full_page=True)
        await phone.get_by_role("button", name="Send to my computer").click()
        await expect(phone.get_by_text("Draw your signature first.")).to_be_visible()
        await draw(phone, phone.get_by_role("img", name="Signature"))
        await phone.get_by_role("button", name="Send to my computer").click()
        await expect(phone.get_by_role("heading", name="Signature sent")).to_be_visible()
        await phone.screenshot(path=screen("phone-handoff-sent-360.png"), full_page=True)

        step = page.locator("fieldset.current")
        await expect(step.locator("img.current")).to_be_visible(timeout=10_000)  # the desktop asks every 3 s
        await expect(page.locator(".box.signature img")).to_be_visible()
        await page.get_by_role("button", name="Next").click()
        await page.get_by_label("Name").fill("Ann")
        await page.get_by_role("button", name="Complete").click()
        await expect(page.get_by_role("heading", name="Thank you")).to_be_visible()

        await phone.goto(link)
        await expect(phone.get_by_role("heading", name="Link no longer works")).to_be_visible()


async def test_with_the_account_asking_reasons_the_signer_chooses_other_and_types_their_own(site, page, browser):
    await sign_in_browser(site, page)
    await page.goto(url(site, "/console/settings/signatures"))
    await page.get_by_label("Ask signers for a signing reason").check()
    await page.get_by_role("button", name="Save").click()
    await expect(page.get_by_text("Signature settings saved.")).to_be_visible()
    await expect(page.get_by_label("Ask signers for a signing reason")).to_be_checked()
    await page.screenshot(path=screen("console-signature-settings-1280.png"), full_page=True)
    await page.set_viewport_size({"width": 360, "height": 740})
    await page.screenshot(path=screen("console-signature-settings-360.png"), full_page=True)
    await page.set_viewport_size({"width": 1280, "height": 900})
    fields = [
        field("Signature", "signature", box(1, 0.2, h=0.08), preferences={"with_signature_id": True}),
        field("Name", "text", box(1, 0.4)),
    ]
    signer = await invite(site, await every_field_template(site, fields))
    await page.goto(url(site, f"/s/{signer['slug']}"))
    step = page.locator("fieldset.current")
    reason = step.get_by_label("Signing reason", exact=True)
    assert await reason.locator("option").all_text_contents() == [
        "Choose…",
        "Approved",
        "Reviewed",
        "Authored by me",
        "Other",
    ]
    own = step.get_by_label("Your signing reason")
    await expect(own).to_be_hidden()
    await draw(page, page.get_by_role("img", name="Signature"))
    await page.get_by_role("button", name="Next").click()
    await expect(step.get_by_text("Choose a signing reason.")).to_be_visible()

    await reason.select_option("Other")  # the box for their own words, focused; nothing said against it yet
    await expect(own).to_be_focused()
    await expect(step.locator(".error")).to_have_text("")
    await page.get_by_role("button", name="Next").click()
    await expect(step.get_by_text("Type your signing reason.")).to_be_visible()
    await own.fill("On behalf of the board")
    await expect(step.locator(".error")).to_have_text("")
    await page.screenshot(path=screen("signing-reason-other-1280.png"), full_page=True)

    async with own_page(browser, viewport={"width": 360, "height": 740}) as phone_sized:
        await phone_sized.goto(url(site, f"/s/{signer['slug']}"))
        narrow_step = phone_sized.locator("fieldset.current")
        # Opened again (the words were saved as they were typed): "Other" with the signer's words.
        await expect(narrow_step.get_by_label("Signing reason", exact=True)).to_have_value("other")
        await expect(narrow_step.get_by_label("Your signing reason")).to_have_value("On behalf of the board")
        await narrow_step.get_by_label("Your signing reason").scroll_into_view_if_needed()  # the panel: a sheet
        await phone_sized.screenshot(path=screen("signing-reason-other-360.png"))

    await page.get_by_role("button", name="Next").click()
    await page.get_by_label("Name").fill("Ann")
    await page.get_by_role("button", name="Complete").click()
    await expect(page.get_by_role("heading", name="Thank you")).to_be_visible()
    values = (await site.get(f"/api/submitters/{signer['id']}")).json["values"]
    assert {"field": "Reason", "value": "On behalf of the board"} in values


async def ask_reasons(site, on: bool = True) -> None:
    console = await signed_in(site)
    form = {"typed": "on", "id_reason": "on", **({"reasons": "on"} if on else {})}
    assert (await console.post("/console/settings/signatures", form)).status == 303


async def test_a_read_only_signature_filled_when_the_submission_was_created_asks_no_reason_and_completes(site, page):
    await ask_reasons(site)
    fields = [
        field("Signature", "signature", box(1, 0.2, h=0.08), readonly=True),
        field("Name", "text", box(1, 0.4)),
    ]
    signer = await invite(site, await every_field_template(site, fields), values={"Signature": DRAWING})
    await page.goto(url(site, f"/s/{signer['slug']}"))
    await expect(page.get_by_label("Signing reason")).to_have_count(0)
    await page.get_by_role("button", name="Next").click()
    await page.get_by_label("Name").fill("Ann")
    await page.get_by_role("button", name="Complete").click()
    await expect(page.get_by_role("heading", name="Thank you")).to_be_visible()


async def test_a_signature_given_through_the_api_asks_no_reason_until_the_signer_signs_again(site, page):
    await ask_reasons(site)
    fields = [field("Signature", "signature", box(1, 0.2, h=0.08)), field("Name", "text", box(1, 0.4))]
    signer = await invite(site, await every_field_template(site, fields))
    reply = await site.put(f"/api/submitters/{signer['id']}", json={"values": {"Signature": DRAWING}})
    assert reply.status == 200, reply.json
    await page.goto(url(site, f"/s/{signer['slug']}"))
    step = page.locator("fieldset.current")
    reason = step.get_by_label("Signing reason", exact=True)
    await expect(step.locator("img.current")).to_be_visible()
    await expect(reason).not_to_have_attribute("required", "")  # offered, not asked
    await page.get_by_role("button", name="Next").click()
    await expect(page.get_by_label("Name")).to_be_focused()
    await page.get_by_role("button", name="Back").click()
    await draw(page, step.locator("canvas.pad"))  # now the signer's own: it asks a reason
    await page.get_by_role("button", name="Next").click()
    await expect(step.get_by_text("Choose a signing reason.")).to_be_visible()
    await expect(reason).to_have_attribute("aria-required", "true")
    await reason.select_option("Reviewed")
    await page.get_by_role("button", name="Next").click()
    await page.get_by_label("Name").fill("Ann")
    await page.get_by_role("button", name="Complete").click()
    await expect(page.get_by_role("heading", name="Thank you")).to_be_visible()
    values = (await site.get(f"/api/submitters/{signer['id']}")).json["values"]
    assert {"field": "Reason", "value": "Reviewed"} in values


async def test_reasons_asked_once_the_form_is_open_tell_the_signer_to_reload_the_page_which_then_asks_one(site, page):
    fields = [field("Signature", "signature", box(1, 0.2, h=0.08)), field("Name", "text", box(1, 0.4))]
    signer = await invite(site, await every_field_template(site, fields))
    await page.goto(url(site, f"/s/{signer['slug']}"))
    step = page.locator("fieldset.current")
    await expect(step.get_by_label("Signing reason")).to_have_count(0)
    await draw(page, step.locator("canvas.pad"))
    await page.get_by_role("button", name="Next").click()
    await page.get_by_label("Name").fill("Ann")
    await ask_reasons(site)
    await page.get_by_role("button", name="Complete").click()
    reload = "This form now asks for a signing reason. Reload the page to choose one."
    await expect(step.locator(".error")).to_have_text(reload)
    await page.screenshot(path=screen("signing-reason-reload-1280.png"), full_page=True)
    await page.set_viewport_size({"width": 360, "height": 740})
    await step.locator(".error").scroll_into_view_if_needed()
    await page.screenshot(path=screen("signing-reason-reload-360.png"))
    await page.set_viewport_size({"width": 1280, "height": 900})
    await page.reload()
    await step.get_by_label("Signing reason", exact=True).select_option("Approved")
    await page.get_by_role("button", name="Next").click()
    await page.get_by_role("button", name="Complete").click()
    await expect(page.get_by_role("heading", name="Thank you")).to_be_visible()
