"""A signer in chromium: every field type by keyboard and mouse, decline, resume, the state pages."""

import re

from playwright.async_api import Page, expect

from tests.support.documents import png
from tests.support.every_field import every_field_template, invite
from tests.support.live_site import BROWSER_LOOP
from tests.support.pad import draw
from tests.support.system import CHROMIUM

pytestmark = [CHROMIUM, BROWSER_LOOP]


def url(site, path: str) -> str:
    return str(site.client.make_url(path))


async def at_step(page: Page, name: str):
    """The step on show, once it is the field `name`'s."""
    current = page.locator("fieldset.current")
    await expect(current.locator("legend, label").first).to_have_text(re.compile(f"^{re.escape(name)}"))
    return current


async def test_a_signer_fills_every_field_type_by_keyboard_and_mouse_and_completes(site, page, tmp_path):
    tess = await invite(site, await every_field_template(site))
    await page.goto(url(site, f"/s/{tess['slug']}"))
    progress = page.locator("#progress")
    await expect(progress).to_have_text("1 of 10 filled")  # required fields; the date is today already

    name = page.get_by_label("Full name")
    await name.click()
    await name.fill("R2D2")
    await name.press("Enter")
    await expect(page.get_by_text("Letters only")).to_be_visible()
    await name.fill("Tess Tenant")
    await name.press("Enter")

    reference = page.get_by_label("Reference")
    await expect(reference).to_have_value("REF-42")
    await expect(reference).not_to_be_editable()
    await reference.press("Enter")

    await draw(page, page.get_by_role("img", name="Signature"))
    await page.get_by_role("button", name="Next").click()

    initials = await at_step(page, "Initials")
    await initials.get_by_role("button", name="Type").click()
    await initials.get_by_role("textbox", name="Initials").fill("TT")
    await initials.get_by_role("textbox", name="Initials").press("Enter")

    await at_step(page, "Signed on")
    await expect(page.get_by_label("Signed on")).to_be_focused()
    await expect(page.locator(".box.date .value")).to_have_text(re.compile(r"^[A-Z][a-z]+ \d{1,2}, \d{4}$"))
    await page.get_by_label("Signed on").press("Enter")

    await at_step(page, "Age")
    age = page.get_by_role("spinbutton", name="Age")
    await age.fill("17")
    await age.press("Enter")
    await expect(page.get_by_text("The smallest value allowed is 18.")).to_be_visible()
    await age.fill("30")
    await age.press("Enter")

    await at_step(page, "I agree")
    await page.get_by_label("I agree").press("Space")
    await page.keyboard.press("Enter")
    await (await at_step(page, "Plan")).get_by_label("Pro").check()
    await page.get_by_role("button", name="Next").click()
    await at_step(page, "Country")
    await page.get_by_label("Country").select_option("France")
    await page.get_by_role("button", name="Next").click()
    await (await at_step(page, "Extras")).get_by_label("Parking").check()
    await page.get_by_role("button", name="Next").click()
    await at_step(page, "Photo")
    photo = tmp_path / "photo.png"
    photo.write_bytes(png())
    await page.get_by_label("Photo").set_input_files(photo)
    await page.get_by_role("button", name="Next").click()
    await at_step(page, "Attachment")
    await page.get_by_role("button", name="Next").click()  # no attachment: it is optional
    stamp = await at_step(page, "Stamp")
    await expect(stamp.get_by_text("A stamp with your name")).to_be_visible()
    await page.get_by_role("button", name="Next").click()
    await at_step(page, "Postcode")
    await page.get_by_label("Postcode").fill("10115")
    await page.get_by_label("Postcode").press("Enter")
    await at_step(page, "Phone")
    await expect(page.get_by_role("button", name="Next")).to_be_hidden()
    await page.get_by_label("Phone", exact=True).fill("+49 30 1234567")
    await expect(progress).to_have_text("10 of 10 filled")
    await page.get_by_role("button", name="Complete").click()

    await expect(page.get_by_role("heading", name="Thank you")).to_be_visible()
    await expect(page.get_by_role("link", name="Download your copy: lease")).to_be_visible(timeout=30_000)
    submitter = (await site.get(f"/api/submitters/{tess['id']}")).json
    values = {value["field"]: value["value"] for value in submitter["values"]}
    assert submitter["status"] == "completed"
    assert {
        key: values[key]
        for key in ("Full name", "Reference", "Age", "I agree", "Plan", "Country", "Extras", "Postcode", "Phone")
    } == {
        "Full name": "Tess Tenant",
        "Reference": "REF-42",
        "Age": 30,
        "I agree": True,
        "Plan": "Pro",
        "Country": "France",
        "Extras": ["Parking"],
        "Postcode": "10115",
        "Phone": "+49 30 1234567",
    }
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", values["Signed on"])
    for picture in ("Signature", "Initials", "Photo"):  # typed initials are drawn in the signature font
        assert values[picture].endswith(".png")


async def test_a_required_field_left_empty_holds_the_signer_with_the_message_beside_it(site, page):
    tess = await invite(site, await every_field_template(site))
    await page.goto(url(site, f"/s/{tess['slug']}"))
    await page.get_by_role("button", name="Next").click()
    name = await at_step(page, "Full name")
    await expect(name.get_by_text("Please fill in this field.")).to_be_visible()
    await expect(page.get_by_label("Full name")).to_have_attribute("aria-invalid", "true")
    await page.get_by_label("Full name").fill("Tess Tenant")
    await page.get_by_role("button", name="Next").click()
    await at_step(page, "Reference")
    await page.get_by_role("button", name="Next").click()
    signature = await at_step(page, "Signature")
    await page.get_by_role("button", name="Next").click()
    await expect(signature.get_by_text("Please fill in this field.")).to_be_visible()
    await at_step(page, "Signature")
    assert (await site.get(f"/api/submitters/{tess['id']}")).json["status"] == "opened"
