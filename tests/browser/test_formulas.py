"""Formula fields in chromium: the signing form's own reader and calculator (pages/static/formulas.js) answer every
shared case as the service does (tests/files/formula_cases.json, also read by tests/unit/test_formulas.py) and every
example of docs/formulas.md as it shows; a signer sees (and a screen reader hears) a formula's result live and
read-only, on the form and on the page, and completion stores the results."""

from playwright.async_api import Page, expect

from tests.support.every_field import box, every_field_template, field, invite
from tests.support.formula_cases import TABLE, documented_examples, expected
from tests.support.live_site import BROWSER_LOOP
from tests.support.screens import screen
from tests.support.system import CHROMIUM

pytestmark = [CHROMIUM, BROWSER_LOOP]

ORDER = [
    field("Quantity", "number", box(1, 0.10, w=0.1)),
    field("Price", "number", box(1, 0.15, w=0.1)),
    field("Total", "number", box(1, 0.20, w=0.15), preferences={"formula": "{{Quantity}} * {{Price}}"}),
    field(
        "Summary",
        "text",
        box(1, 0.25, w=0.5),
        preferences={"formula": "{{Quantity}} pieces at {{Price}} make {{Total}}"},
    ),
    field("Share", "number", box(1, 0.30, w=0.1), preferences={"formula": "round(100 / {{Quantity}}, 2)"}),
]
CASES_SCRIPT = """async ([table, examples]) => {
    const signing = document.querySelector('script[src*="signing.js"]').src;
    const { calculate, compute } = await import(new URL("formulas.js", signing));
    const answer = (run) => { try { return { value: run() }; } catch (error) { return { error: error.message }; } };
    const result = (c) => ({ uuid: "result", name: "Result", type: c.type, preferences: { formula: c.formula } });
    return {
        calculations: table.calculations.map((c) => answer(() => calculate(c.expression))),
        formulas: table.formulas.map((c) => answer(() => compute([...table.fields, ...(c.extra ?? []), result(c)],
            c.values, "result"))),
        examples: examples.map((formula) => answer(() => calculate(formula))),
    };
}"""


async def test_the_signing_forms_calculator_answers_every_shared_case_as_the_service_does(site, page: Page):
    tess = await invite(site, await every_field_template(site, ORDER))
    await page.goto(str(site.client.make_url(f"/s/{tess['slug']}")))
    await expect(page.get_by_label("Quantity")).to_be_visible()
    examples = documented_examples()
    answers = await page.evaluate(CASES_SCRIPT, [TABLE, [formula for formula, _ in examples]])
    assert answers["examples"] == [shown for _, shown in examples]
    for kind in ("calculations", "formulas"):
        wrong = [
            (case["rule"], answer)
            for case, answer in zip(TABLE[kind], answers[kind], strict=True)
            if answer != expected(case)
        ]
        assert wrong == []


async def test_a_signer_sees_and_hears_formulas_computed_live_and_read_only_and_completion_stores_them(
    site, page: Page, browser
):
    template_id = await every_field_template(site, ORDER)
    tess = await invite(site, template_id)
    fields = {f["name"]: f["uuid"] for f in (await site.get(f"/api/templates/{template_id}")).json["fields"]}
    await page.goto(str(site.client.make_url(f"/s/{tess['slug']}")))
    total, summary, share = (page.locator(f"#f-{fields[name]}") for name in ("Total", "Summary", "Share"))
    quantity = page.get_by_label("Quantity")
    await quantity.fill("4")
    await expect(total).to_have_value("0")  # an empty price counts as 0
    await quantity.press("Enter")
    await page.get_by_label("Price").fill("2.5")
    await expect(total).to_have_value("10")
    await expect(summary).to_have_value("4 pieces at 2.5 make 10")
    await expect(page.locator(f'.box[data-field="{fields["Total"]}"] .value')).to_have_text("10")
    await expect(page.locator(f"#step-{fields['Total']} output[role=status]")).to_have_text("Total: 10")
    await page.get_by_label("Price").press("Enter")
    await expect(total).to_be_visible()
    await expect(total).to_have_attribute("readonly", "")
    await expect(page.locator(f"#d-{fields['Total']}")).to_have_text(
        "Computed from the other answers as you fill them in."
    )
    await page.screenshot(path=screen("formulas-1280.png"), full_page=True)

    await page.get_by_role("button", name="Back").click()
    await page.get_by_role("button", name="Back").click()
    await quantity.fill("0")
    share_error = page.locator(f"#e-{fields['Share']}")
    await expect(share_error).to_have_text("This value cannot be computed from the answers so far.")
    await expect(share_error).to_have_attribute("role", "alert")
    await expect(share).to_have_attribute("aria-invalid", "true")
    await expect(share).to_have_value("")
    await quantity.fill("3")
    await expect(share).to_have_value("33.33")
    await expect(share_error).to_be_hidden()
    await expect(share).to_have_attribute("aria-invalid", "false")
    await expect(summary).to_have_value("3 pieces at 2.5 make 7.5")
    await quantity.press("Enter")

    small = await browser.new_context(viewport={"width": 360, "height": 740})
    phone = await small.new_page()
    await phone.goto(str(site.client.make_url(f"/s/{tess['slug']}")))
    await expect(phone.locator(f"#f-{fields['Total']}")).to_have_value("7.5")  # from the saved values
    await phone.get_by_role("button", name="Next").click()
    await phone.get_by_role("button", name="Next").click()
    await expect(phone.locator(f"#f-{fields['Total']}")).to_be_visible()
    await phone.screenshot(path=screen("formulas-360.png"), full_page=True)
    await small.close()

    for _ in range(3):
        await page.get_by_role("button", name="Next").click()
    await page.get_by_role("button", name="Complete").click()
    await expect(page.get_by_role("heading", name="Thank you")).to_be_visible()
    found = (await site.get(f"/api/submissions/{tess['submission_id']}")).json
    values = {item["field"]: item["value"] for item in found["submitters"][0]["values"]}
    assert values == {
        "Quantity": 3,
        "Price": 2.5,
        "Total": 7.5,
        "Summary": "3 pieces at 2.5 make 7.5",
        "Share": 33.33,
    }
