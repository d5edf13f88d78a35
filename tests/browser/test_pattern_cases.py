"""The signing form's pattern check in chromium (pages/static/patterns.js), on the cases the service's is
tested with (tests/files/pattern_cases.json, also read by tests/unit/test_patterns.py): the two cannot
drift. And a pattern that would hold chromium's own RegExp for minutes is checked at once."""

import json

from playwright.async_api import Page, expect

from tests.support.every_field import box, every_field_template, field, invite
from tests.support.live_site import BROWSER_LOOP
from tests.support.paths import ROOT
from tests.support.system import CHROMIUM

pytestmark = [CHROMIUM, BROWSER_LOOP]

TABLE = json.loads((ROOT / "tests" / "files" / "pattern_cases.json").read_text())
CODE = field("Code", "text", box(1, 0.1), validation={"pattern": "(a|aa)+", "message": "Only a"})


async def test_the_signing_forms_own_check_answers_every_shared_case_as_the_service_does(site, page: Page):
    tess = await invite(site, await every_field_template(site, [CODE]))
    await page.goto(str(site.client.make_url(f"/s/{tess['slug']}")))
    await expect(page.get_by_label("Code")).to_be_visible()
    # The module the page's script imports (the same instance: a module is evaluated once per page).
    answers = await page.evaluate(
        """async (cases) => {
        const signing = document.querySelector('script[src*="signing.js"]').src;
        const { matches } = await import(new URL("patterns.js", signing));
        return cases.map((c) => matches(c.pattern, c.text));
    }""",
        TABLE["cases"],
    )
    wrong = [case for case, answer in zip(TABLE["cases"], answers, strict=True) if answer is not case["match"]]
    assert wrong == [] and len(answers) == len(TABLE["cases"])


async def test_a_backtracking_pattern_holds_the_signer_with_its_message_and_the_page_stays_responsive(site, page: Page):
    tess = await invite(site, await every_field_template(site, [CODE]))
    await page.goto(str(site.client.make_url(f"/s/{tess['slug']}")))
    code = page.get_by_label("Code")
    await code.fill("a" * 40 + "!")
    await code.press("Enter")
    await expect(page.get_by_text("Only a")).to_be_visible()
    await code.fill("a" * 40)
    await code.press("Enter")
    await expect(page.get_by_text("Only a")).to_be_hidden()
