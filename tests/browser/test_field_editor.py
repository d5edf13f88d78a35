"""The field editor in chromium: a PDF without form fields uploaded, a second role added, fields placed by
dragging boxes and moved with the keys, saved and there again after a reload, as the API shows them;
the keyboard alone; a box dragged off its page; the service's refusal, read where the focus goes; an edit
made while a save is on its way; a page whose form has expired; 500 fields on a page; the page at a phone's
width and without script."""

import asyncio
import re

from playwright.async_api import Browser, Locator, Page, expect

from tests.support.console import sign_in_browser
from tests.support.documents import b64, pdf
from tests.support.live_site import BROWSER_LOOP
from tests.support.screens import SCREENS
from tests.support.system import CHROMIUM

pytestmark = [CHROMIUM, BROWSER_LOOP]

SMALL_STEP, LARGE_STEP = 0.005, 0.05


def url(site, path: str) -> str:
    return str(site.client.make_url(path))


async def template_with(site, fields: list | None = None, pages: int = 1) -> dict:
    reply = await site.post(
        "/api/templates", json={"name": "Lease", "documents": [{"name": "Lease", "file": b64(pdf(pages))}]}
    )
    assert reply.status == 201, reply.json
    if fields is not None:
        document = reply.json["documents"][0]["uuid"]
        for field in fields:
            for area in field["areas"]:
                area["attachment_uuid"] = document
        assert (await site.put(f"/api/templates/{reply.json['id']}", json={"fields": fields})).status == 200
    return (await site.get(f"/api/templates/{reply.json['id']}")).json


async def open_editor(site, page: Page, template: dict) -> None:
    await sign_in_browser(site, page)
    await page.goto(url(site, f"/console/templates/{template['id']}"))
    await expect(page.get_by_role("button", name="Save", exact=True)).to_be_visible()


async def drag(page: Page, figure: Locator, start: tuple[float, float], end: tuple[float, float]) -> None:
    """A drag on the page picture from one point to another, each given as parts of its width and height."""
    frame = await figure.bounding_box()
    middle = frame["y"] + (start[1] + end[1]) / 2 * frame["height"]
    await page.evaluate("([by]) => window.scrollBy(0, by)", [middle - page.viewport_size["height"] / 2])
    frame = await figure.bounding_box()
    await page.mouse.move(frame["x"] + start[0] * frame["width"], frame["y"] + start[1] * frame["height"])
    await page.mouse.down()
    await page.mouse.move(
        frame["x"] + (start[0] + end[0]) / 2 * frame["width"],
        frame["y"] + (start[1] + end[1]) / 2 * frame["height"],
        steps=4,
    )
    await page.mouse.move(frame["x"] + end[0] * frame["width"], frame["y"] + end[1] * frame["height"], steps=4)
    await page.mouse.up()


def box(page: Page, name: str) -> Locator:
    return page.get_by_role("button", name=re.compile(f"^{re.escape(name)},"))


async def test_a_pdf_uploaded_gets_fields_for_two_roles_placed_moved_and_saved(site, page):
    await sign_in_browser(site, page)
    await page.goto(url(site, "/console/templates/new"))
    await page.get_by_label("Document").set_input_files(
        files=[{"name": "Lease.pdf", "mimeType": "application/pdf", "buffer": pdf(2)}]
    )
    await page.get_by_role("button", name="Upload").click()
    await expect(page).to_have_url(re.compile(r"/console/templates/\d+\?done=template_uploaded$"))
    await expect(page.get_by_role("heading", name="Lease", exact=True)).to_be_visible()
    template_id = int(re.search(r"/templates/(\d+)", page.url).group(1))
    assert (await site.get(f"/api/templates/{template_id}")).json["fields"] == []

    await page.get_by_role("button", name="Add a role").click()
    role = page.get_by_label("Name of role 2")
    await expect(role).to_be_focused()
    await role.fill("Tenant")
    await role.press("Tab")
    first_page = page.locator("figure.page").first

    await page.get_by_label("New fields are for").select_option(label="First Party")
    await page.get_by_role("button", name="Text", exact=True).click()
    await drag(page, first_page, (0.1, 0.2), (0.4, 0.24))
    text_box = box(page, "Text 1")
    await expect(text_box).to_have_accessible_name("Text 1, Text, for First Party, page 1")
    await expect(text_box).to_be_focused()

    await page.get_by_label("New fields are for").select_option(label="Tenant")
    await page.get_by_role("button", name="Signature", exact=True).click()
    await drag(page, first_page, (0.5, 0.8), (0.85, 0.88))
    await expect(box(page, "Signature 1")).to_have_accessible_name("Signature 1, Signature, for Tenant, page 1")

    await text_box.focus()
    await page.keyboard.press("ArrowRight")
    await page.keyboard.press("ArrowRight")
    await page.keyboard.press("Shift+ArrowDown")
    await expect(page.locator("#announce")).to_have_text(re.compile(r"^Text 1: 11% from the left, 25% from the top"))
    await page.get_by_role("button", name="Save", exact=True).click()
    await expect(page.locator("#save-status")).to_have_text("Saved.")

    await page.reload()
    await expect(box(page, "Text 1")).to_have_accessible_name("Text 1, Text, for First Party, page 1")
    await expect(box(page, "Signature 1")).to_have_accessible_name("Signature 1, Signature, for Tenant, page 1")
    saved = (await site.get(f"/api/templates/{template_id}")).json
    assert [role["name"] for role in saved["submitters"]] == ["First Party", "Tenant"]
    [text, signature] = saved["fields"]
    assert (text["name"], text["type"], text["submitter_uuid"]) == ("Text 1", "text", saved["submitters"][0]["uuid"])
    assert (signature["name"], signature["type"], signature["submitter_uuid"]) == (
        "Signature 1",
        "signature",
        saved["submitters"][1]["uuid"],
    )
    [area] = text["areas"]
    assert area["page"] == 0 and area["attachment_uuid"] == saved["documents"][0]["uuid"]
    assert abs(area["x"] - (0.1 + 2 * SMALL_STEP)) < 0.01 and abs(area["y"] - (0.2 + LARGE_STEP)) < 0.01
    assert abs(area["w"] - 0.3) < 0.01 and abs(area["h"] - 0.04) < 0.01
    [area] = signature["areas"]
    assert abs(area["x"] - 0.5) < 0.01 and abs(area["w"] - 0.35) < 0.01 and abs(area["y"] - 0.8) < 0.01


async def test_fields_are_placed_set_up_resized_and_removed_with_the_keyboard_alone(site, page):
    template = await template_with(site)
    await open_editor(site, page, template)
    await page.get_by_role("button", name="Select", exact=True).focus()
    await page.keyboard.press("Enter")
    choice = box(page, "Select 1")
    await expect(choice).to_be_focused()
    await expect(page.locator("#announce")).to_have_text("Select 1 added on page 1 for First Party.")
    before = (await choice.bounding_box())["width"]
    await page.keyboard.press("Alt+Shift+ArrowRight")
    assert (await choice.bounding_box())["width"] > before

    await page.keyboard.press("Enter")
    name = page.get_by_label("Name", exact=True)
    await expect(name).to_be_focused()
    await name.fill("Colour")
    await page.get_by_label("Options").fill("Red\nGreen\nBlue")
    await page.get_by_label("Required").uncheck()
    await page.get_by_label("Default value").fill("Green")
    await page.get_by_label("Default value").press("Tab")

    await page.get_by_role("button", name="Date", exact=True).focus()
    await page.keyboard.press("Space")
    await page.get_by_label("Format").select_option("MMMM D, YYYY")
    date = box(page, "Date 1")
    await date.focus()
    await page.keyboard.press("Delete")
    await expect(date).to_have_count(0)
    await expect(page.locator("#announce")).to_have_text("Date 1 removed.")
    await page.get_by_role("button", name="Save", exact=True).click()
    await expect(page.locator("#save-status")).to_have_text("Saved.")

    [field] = (await site.get(f"/api/templates/{template['id']}")).json["fields"]
    assert (field["name"], field["type"], field["required"]) == ("Colour", "select", False)
    assert field["default_value"] == "Green"
    assert [option["value"] for option in field["options"]] == ["Red", "Green", "Blue"]


async def test_a_box_dragged_off_its_page_stays_on_the_page(site, page):
    template = await template_with(site)
    await open_editor(site, page, template)
    figure = page.locator("figure.page").first
    await page.get_by_role("button", name="Text", exact=True).click()
    await drag(page, figure, (0.7, 0.5), (0.95, 0.53))
    text_box = box(page, "Text 1")
    frame = await figure.bounding_box()
    placed = await text_box.bounding_box()
    await page.mouse.move(placed["x"] + 10, placed["y"] + 5)
    await page.mouse.down()
    await page.mouse.move(frame["x"] + frame["width"] + 200, frame["y"] + frame["height"] + 300, steps=5)
    await page.mouse.up()
    await page.get_by_role("button", name="Save", exact=True).click()
    await expect(page.locator("#save-status")).to_have_text("Saved.")
    [area] = (await site.get(f"/api/templates/{template['id']}")).json["fields"][0]["areas"]
    assert area["x"] + area["w"] <= 1 and area["y"] + area["h"] <= 1
    assert area["x"] + area["w"] > 0.99 and area["y"] + area["h"] > 0.99


async def test_a_save_the_service_refuses_shows_its_message_and_selects_the_field(site, page):
    template = await template_with(site)
    await open_editor(site, page, template)
    await page.get_by_role("button", name="Text", exact=True).click()
    await drag(page, page.locator("figure.page").first, (0.1, 0.1), (0.3, 0.13))
    await page.get_by_role("button", name="Radio buttons", exact=True).click()
    await drag(page, page.locator("figure.page").first, (0.1, 0.3), (0.13, 0.32))
    await page.get_by_label("Options").fill("")
    await page.get_by_label("Options").press("Tab")
    await box(page, "Text 1").click()
    await page.get_by_role("button", name="Save", exact=True).click()

    message = "fields[1].options must be a non-empty array for a radio field"
    await expect(page.get_by_role("alert")).to_have_text(message)
    await expect(page.get_by_role("alert")).to_be_focused()
    await expect(page.get_by_label("Name", exact=True)).to_have_value("Radio buttons 1")
    assert (await site.get(f"/api/templates/{template['id']}")).json["fields"] == []


async def test_an_edit_made_while_a_save_is_on_its_way_is_kept_and_saved_next(site, page):
    template = await template_with(
        site, [{"name": "Landlord", "type": "text", "areas": [{"x": 0.1, "y": 0.1, "w": 0.3, "h": 0.03, "page": 0}]}]
    )
    await open_editor(site, page, template)
    held, release = asyncio.Event(), asyncio.Event()

    async def hold(route):
        held.set()
        await release.wait()
        await route.continue_()

    await page.route("**/console/templates/*/fields", hold)
    await box(page, "Landlord").click()
    await page.keyboard.press("ArrowDown")
    await page.get_by_role("button", name="Save", exact=True).click()
    await held.wait()
    await page.get_by_label("Name", exact=True).fill("Landlord's name")
    release.set()

    status = page.locator("#save-status")
    await expect(status).to_have_text("Saved. The changes made while saving are not saved yet.")
    await expect(box(page, "Landlord's name")).to_have_count(1)
    await expect(page.get_by_label("Name", exact=True)).to_have_value("Landlord's name")
    [saved] = (await site.get(f"/api/templates/{template['id']}")).json["fields"]
    assert saved["name"] == "Landlord" and abs(saved["areas"][0]["y"] - (0.1 + SMALL_STEP)) < 1e-6
    SCREENS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=SCREENS / "field-editor-saved-meanwhile-1280.png")

    await page.get_by_role("button", name="Save", exact=True).click()
    await expect(status).to_have_text("Saved.")
    [saved] = (await site.get(f"/api/templates/{template['id']}")).json["fields"]
    assert saved["name"] == "Landlord's name" and abs(saved["areas"][0]["y"] - (0.1 + SMALL_STEP)) < 1e-6


async def test_a_save_from_a_page_that_has_expired_says_so_and_keeps_the_edits(site, browser: Browser):
    template = await template_with(site)
    context = await browser.new_context(viewport={"width": 360, "height": 740})
    page = await context.new_page()
    try:
        await open_editor(site, page, template)

        async def without_token(route):
            headers = {name: value for name, value in route.request.headers.items() if name != "x-csrf-token"}
            await route.continue_(headers=headers)

        await page.route("**/console/templates/*/fields", without_token)
        await page.get_by_role("button", name="Signature", exact=True).focus()
        await page.keyboard.press("Enter")
        await page.get_by_role("button", name="Save", exact=True).click()
        alert = page.get_by_role("alert")
        await expect(alert).to_have_text(re.compile(r"^Not saved: this page has expired"))
        await expect(alert).to_be_focused()
        await expect(box(page, "Signature 1")).to_have_count(1)
        SCREENS.mkdir(parents=True, exist_ok=True)
        await page.screenshot(path=SCREENS / "field-editor-expired-360.png")
        assert await page.evaluate("document.documentElement.scrollWidth") <= 360, "no sideways scrolling"
    finally:
        await context.close()
    assert (await site.get(f"/api/templates/{template['id']}")).json["fields"] == []


async def test_five_hundred_fields_on_one_page_are_shown_moved_and_saved(site, page):
    fields = [
        {
            "name": f"Box {n}",
            "type": "text",
            "areas": [{"x": (n % 20) * 0.05, "y": (n // 20) * 0.04, "w": 0.04, "h": 0.03, "page": 0}],
        }
        for n in range(500)
    ]
    template = await template_with(site, fields)
    await open_editor(site, page, template)
    await expect(page.locator(".fbox")).to_have_count(500)
    await expect(page.locator("#field-count")).to_have_text("500")
    await page.get_by_label("Every field").select_option(label="Box 250 (Text) · First Party · page 1")
    target = box(page, "Box 250")
    await expect(target).to_have_attribute("aria-current", "true")
    await target.focus()
    await page.keyboard.press("ArrowDown")
    await page.get_by_role("button", name="Save", exact=True).click()
    await expect(page.locator("#save-status")).to_have_text("Saved.")
    saved = (await site.get(f"/api/templates/{template['id']}")).json["fields"]
    assert len(saved) == 500 and abs(saved[250]["areas"][0]["y"] - (12 * 0.04 + SMALL_STEP)) < 1e-6


async def test_the_editor_fits_a_phone_and_shows_the_fields_without_script(site, browser: Browser):
    fields = [
        {"name": "Landlord", "type": "text", "areas": [{"x": 0.1, "y": 0.1, "w": 0.3, "h": 0.03, "page": 0}]},
        {
            "name": "Tenant signs",
            "type": "signature",
            "role": "Tenant",
            "areas": [{"x": 0.5, "y": 0.8, "w": 0.3, "h": 0.06, "page": 0}],
        },
    ]
    template = await template_with(site, fields, pages=2)
    SCREENS.mkdir(parents=True, exist_ok=True)
    for width, height in ((1280, 900), (360, 740)):
        context = await browser.new_context(viewport={"width": width, "height": height})
        page = await context.new_page()
        try:
            await open_editor(site, page, template)
            await box(page, "Landlord").click()
            await page.screenshot(path=SCREENS / f"field-editor-{width}.png", full_page=width == 360)
            assert await page.evaluate("document.documentElement.scrollWidth") <= width, "no sideways scrolling"
            figure = await page.locator("figure.page").first.bounding_box()
            assert figure["width"] <= width, "the pages scale to the screen"
        finally:
            await context.close()

    context = await browser.new_context(viewport={"width": 1280, "height": 900}, java_script_enabled=False)
    page = await context.new_page()
    try:
        await sign_in_browser(site, page)  # plain forms: no script needed
        await page.goto(url(site, f"/console/templates/{template['id']}"))
        await expect(page.get_by_text("Placing fields needs JavaScript.")).to_be_visible()
        tenant_signs = page.get_by_role("listitem").filter(has_text="Tenant signs")
        await expect(tenant_signs).to_contain_text("Signature · Tenant · page 1")
        await expect(page.get_by_role("button", name="Save", exact=True)).to_be_hidden()
        await expect(page.locator("svg.outlines rect")).to_have_count(2)
        await page.screenshot(path=SCREENS / "field-editor-without-script.png", full_page=True)
    finally:
        await context.close()
