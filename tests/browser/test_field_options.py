"""The field options in chromium: the first field focused as the form opens, a Markdown title and description, a
date read and shown in its field's format with its min, a checkbox shown on its own step only, a masked value on the
page's box, the title wrapped between words at 360 px, a box's text at its field's font size scaled with the page,
and a number field on a phone: a number input whose keyboard fits its values."""

import re

from playwright.async_api import Page, expect

from tests.support.browser_pages import own_page
from tests.support.every_field import box, every_field_template, field, invite
from tests.support.live_site import BROWSER_LOOP
from tests.support.screens import screen
from tests.support.system import CHROMIUM

pytestmark = [CHROMIUM, BROWSER_LOOP]

FIELDS = [
    field(
        "Full name",
        "text",
        box(1, 0.10),
        title="Your **full** name",
        description="As in your passport: see [the rules](https://example.com/rules).\n\n- no titles\n- <b>no</b> HTML",
        preferences={"font": "Times", "font_type": "bold", "align": "right", "color": "#c00"},
    ),
    field("I agree", "checkbox", box(1, 0.15, w=0.04)),
    field(
        "Start",
        "date",
        box(1, 0.20),
        validation={"min": "{{date}}"},
        preferences={"format": "DD/MM/YYYY"},
    ),
    field("IBAN", "text", box(1, 0.25), preferences={"mask": -4}, required=False),
]
TITLE = "Service agreement for the apartment"


def url(site, path: str) -> str:
    return str(site.client.make_url(path))


async def words_broken(page: Page) -> list[str]:
    """The words of the page's title that are split over two lines."""
    return await page.evaluate(
        """() => {
          const text = document.querySelector("h1").firstChild;
          const broken = [];
          for (const match of text.textContent.matchAll(/\\S+/g)) {
            const range = document.createRange();
            range.setStart(text, match.index);
            range.setEnd(text, match.index + match[0].length);
            const lines = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top)));
            if (lines.size > 1) broken.push(match[0]);
          }
          return broken;
        }"""
    )


async def test_field_options_in_the_form_focus_markdown_date_format_checkbox_step_mask_and_title_at_360(site, page):
    tess = await invite(site, await every_field_template(site, FIELDS, name=TITLE))
    await page.goto(url(site, f"/s/{tess['slug']}"))

    name = page.get_by_label("Your full name")
    await expect(name).to_be_focused()  # the first field has the focus as the form opens
    current = page.locator("fieldset.current")
    await expect(current.locator("label strong")).to_have_text("full")
    await expect(current.get_by_role("link", name="the rules")).to_have_attribute("href", "https://example.com/rules")
    await expect(current.get_by_text("<b>no</b> HTML")).to_be_visible()
    await expect(page.get_by_label("I agree")).to_be_hidden()  # a checkbox step shows only on its turn
    await page.screenshot(path=screen("field-options-1280.png"), full_page=True)
    await name.fill("Tess Tenant")
    await name.press("Enter")
    await expect(page.locator(".box.text.font-times.bold.align-right .value").first).to_have_text("Tess Tenant")

    await expect(page.get_by_label("I agree")).to_be_visible()
    await expect(name).to_be_hidden()
    await page.get_by_label("I agree").check()
    await page.get_by_role("button", name="Next").click()

    start = page.get_by_label("Start")
    await expect(start).to_have_attribute("placeholder", "DD/MM/YYYY")
    await start.fill("31/12/2020")
    await start.press("Enter")
    await expect(page.get_by_text(re.compile(r"^The earliest date allowed is \d{2}/\d{2}/\d{4}\.$"))).to_be_visible()
    await page.screenshot(path=screen("field-options-date-1280.png"))
    await start.fill("2099-02-03")
    await start.press("Enter")
    await expect(page.locator(".box.date .value")).to_have_text("03/02/2099")  # the field's format, not the browser's

    iban = page.get_by_label("IBAN")
    await iban.fill("DE89 3704 0044")
    await iban.press("Tab")
    await expect(page.locator(".box.text .value").nth(1)).to_have_text("XXXX XXXX 0044")
    await expect(page.get_by_text("Saved")).to_be_visible()
    values = {
        value["field"]: value["value"] for value in (await site.get(f"/api/submitters/{tess['id']}")).json["values"]
    }
    assert (values["Start"], values["IBAN"]) == ("2099-02-03", "DE89 3704 0044")

    await page.set_viewport_size({"width": 360, "height": 740})
    await page.reload()
    await expect(page.get_by_label("Your full name")).to_be_focused()
    assert await words_broken(page) == []
    await page.screenshot(path=screen("field-options-360.png"), full_page=True)


async def font_sizes(page) -> list[float]:
    """Of each text box with a value: its text's size as a share of its page's width, in points of that page."""
    return await page.evaluate(
        """() => [...document.querySelectorAll(".box.text.filled")].map((box) => {
          const figure = box.closest(".page");
          const size = parseFloat(getComputedStyle(box.querySelector(".value")).fontSize);
          return Math.round(size / figure.clientWidth * Number(figure.dataset.width) * 10) / 10;
        })"""
    )


async def test_a_fields_font_size_draws_its_box_text_scaled_with_the_page_at_1280_and_360(site, page):
    fields = [
        field("Large", "text", box(1, 0.10, h=0.05), preferences={"font_size": 20}),
        field("Small", "text", box(1, 0.20), preferences={"font_size": 8}),
        field("Taller than its box", "text", box(1, 0.30, h=0.01), preferences={"font_size": 30}),
    ]
    tess = await invite(site, await every_field_template(site, fields))
    for name, value in (("Large", "Twenty"), ("Small", "Eight"), ("Taller than its box", "Capped")):
        reply = await site.put(f"/api/submitters/{tess['id']}", json={"values": {name: value}})
        assert reply.status == 200, reply.json
    await page.goto(url(site, f"/s/{tess['slug']}"))
    # In points of the page, as the documents draw them: the box's own size, never taller than its box (an A4
    # page is 842 points high: 1% of it leaves 8.42 points, 65% of which the documents fill).
    expected = [20.0, 8.0, round(0.01 * 841.89 * 0.65, 1)]
    await expect(page.locator(".box.text.filled")).to_have_count(3)
    assert await font_sizes(page) == expected
    await page.screenshot(path=screen("field-font-size-1280.png"))
    await page.set_viewport_size({"width": 360, "height": 740})
    assert await font_sizes(page) == expected  # scaled with the page: the same share of its width
    await page.screenshot(path=screen("field-font-size-360.png"))


async def test_a_number_field_is_a_number_input_with_a_phones_keyboard_and_keeps_what_is_typed(site, browser):
    fields = [
        field("Amount", "number", box(1, 0.10), validation={"min": 0}, preferences={"format": "comma"}),
        field("Balance", "number", box(1, 0.20)),
    ]
    tess = await invite(site, await every_field_template(site, fields))
    phone = {"viewport": {"width": 360, "height": 740}, "has_touch": True, "is_mobile": True}
    async with own_page(browser, **phone) as page:
        await page.goto(url(site, f"/s/{tess['slug']}"))
        amount = page.get_by_label("Amount")
        await expect(amount).to_have_attribute("type", "number")
        await expect(amount).to_have_attribute("inputmode", "decimal")  # digits and a point: no negative amount
        await amount.fill("1234.5")
        await amount.press("Enter")
        await expect(page.locator(".box.number .value").first).to_have_text("1,234.5")
        balance = page.get_by_label("Balance")
        await expect(balance).to_have_attribute("type", "number")
        assert await balance.get_attribute("inputmode") is None  # the number keyboard, which has a minus sign
        await balance.fill("-20")
        await page.screenshot(path=screen("field-number-360.png"))
        await balance.press("Enter")  # the last step: Enter completes
        await expect(page.get_by_role("heading", name="Thank you")).to_be_visible()
    values = {v["field"]: v["value"] for v in (await site.get(f"/api/submitters/{tess['id']}")).json["values"]}
    assert (values["Amount"], values["Balance"]) == (1234.5, -20)
