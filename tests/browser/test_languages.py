"""The signing form in the signer's language, in chromium: Arabic mirrored right to left with the documents
kept as they are, French fitting a 360 px screen."""

from playwright.async_api import Browser, Page, expect

from tests.support.every_field import every_field_template, invite
from tests.support.live_site import BROWSER_LOOP
from tests.support.system import CHROMIUM

pytestmark = [CHROMIUM, BROWSER_LOOP]

# Where a box sits across its page, and where the panel sits: the page mirrors, the documents do not.
GEOMETRY = """() => {
  const page = document.querySelector(".page").getBoundingClientRect();
  const box = document.querySelector(".box");
  return {
    boxX: (box.getBoundingClientRect().left - page.left) / page.width, dataX: Number(box.dataset.x),
    panelLeftOfPages: document.querySelector(".panel").getBoundingClientRect().right <= page.left,
  };
}"""


async def test_an_arabic_signers_form_is_rtl_in_arabic_and_a_french_one_fits_360_px(site, page: Page, browser: Browser):
    template_id = await every_field_template(site)
    arabic = await invite(site, template_id, language="ar")
    french = await invite(site, template_id, language="fr")

    await page.goto(str(site.client.make_url(f"/s/{arabic['slug']}")))
    assert await page.evaluate("[document.documentElement.lang, document.documentElement.dir]") == ["ar", "rtl"]
    await expect(page.get_by_role("button", name="رفض")).to_be_visible()
    await expect(page.get_by_role("button", name="التالي")).to_be_visible()
    geometry = await page.evaluate(GEOMETRY)
    assert geometry["panelLeftOfPages"]
    assert abs(geometry["boxX"] - geometry["dataX"]) < 0.01

    context = await browser.new_context(viewport={"width": 360, "height": 740}, has_touch=True, is_mobile=True)
    try:
        small = await context.new_page()
        await small.goto(str(site.client.make_url(f"/s/{french['slug']}")))
        assert await small.evaluate("[document.documentElement.lang, document.documentElement.dir]") == ["fr", ""]
        await expect(small.get_by_role("button", name="Suivant")).to_be_visible()
        assert await small.evaluate("document.documentElement.scrollWidth") <= 360
    finally:
        await context.close()
