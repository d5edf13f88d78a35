"""Conditions in chromium: the signing form's own rules (pages/static/conditions.js) answer every case of the table
the service's are tested with (tests/files/condition_cases.json, also read by tests/unit/test_conditions.py), and a
signer sees fields and a document appear and go as they answer, Back and Next skipping what does not apply, focus
never on a hidden field, screen readers told."""

import json
import re

from playwright.async_api import Page, expect

from tests.browser.conftest import SCREENSHOTS
from tests.support.documents import b64, pdf
from tests.support.every_field import box, field, invite
from tests.support.live_site import BROWSER_LOOP
from tests.support.paths import ROOT
from tests.support.system import CHROMIUM

pytestmark = [CHROMIUM, BROWSER_LOOP]

TABLE = json.loads((ROOT / "tests" / "files" / "condition_cases.json").read_text())
PLAN = [{"uuid": "opt-basic", "value": "Basic"}, {"uuid": "opt-pro", "value": "Pro"}]
ORDER = [
    field("Agree to the annex", "checkbox", box(1, 0.10, w=0.04), uuid="f-agree", required=False),
    field(
        "Details", "text", box(1, 0.20), uuid="f-details", conditions=[{"field_uuid": "f-agree", "action": "checked"}]
    ),
    field(
        "Plan",
        "radio",
        box(1, 0.30, w=0.04, option="Basic"),
        box(1, 0.30, x=0.3, w=0.04, option="Pro"),
        options=PLAN,
        uuid="f-plan",
    ),
    field(
        "Company",
        "text",
        box(1, 0.40),
        uuid="f-company",
        conditions=[{"field_uuid": "f-plan", "action": "equal", "value": "opt-pro"}],
    ),
    field("Full name", "text", box(1, 0.50), uuid="f-name"),
]
ANNEX = [field("Annex term", "text", box(1, 0.20), uuid="f-annex")]


async def order_template(site) -> int:
    reply = await site.post(
        "/api/templates",
        json={
            "name": "Order",
            "documents": [
                {"name": "order", "file": b64(pdf(1, text="Order form")), "fields": ORDER},
                {
                    "name": "annex",
                    "file": b64(pdf(1, text="Annex")),
                    "fields": ANNEX,
                    "conditions": [{"field_uuid": "f-agree", "action": "checked"}],
                },
            ],
        },
    )
    assert reply.status == 201, reply.json
    return reply.json["id"]


async def one_document_template(site, fields: list) -> int:
    reply = await site.post(
        "/api/templates",
        json={"name": "Order", "documents": [{"name": "order", "file": b64(pdf(1)), "fields": fields}]},
    )
    assert reply.status == 201, reply.json
    return reply.json["id"]


async def step_of(page: Page, name: str):
    current = page.locator("fieldset.current")
    await expect(current.locator("legend, label").first).to_have_text(re.compile(f"^{re.escape(name)}"))
    return current


async def test_the_signing_forms_own_rules_answer_every_shared_condition_case_as_the_service_does(site, page: Page):
    tess = await invite(site, await order_template(site))
    await page.goto(str(site.client.make_url(f"/s/{tess['slug']}")))
    await expect(page.get_by_label("Agree to the annex")).to_be_visible()
    answers = await page.evaluate(
        """async (cases) => {
        const signing = document.querySelector('script[src*="signing.js"]').src;
        const { Visibility } = await import(new URL("conditions.js", signing));
        const { shownValue } = await import(new URL("form-conditions.js", signing));
        return cases.map((c) => {
            // What a field shows is read as the form reads its box (a date in its format); else the value itself.
            const values = { ...c.values };
            for (const [uuid, text] of Object.entries(c.shown || {})) {
                const shown = c.fields.find((f) => f.uuid === uuid);
                values[uuid] = shownValue(shown.type, text, shown.preferences?.format);
            }
            const visibility = new Visibility(c.fields, values, c.documents || []);
            return { hidden: visibility.hiddenFields(), hidden_documents: visibility.hiddenDocuments() };
        });
    }""",
        TABLE["cases"],
    )
    wrong = [
        case["rule"]
        for case, answer in zip(TABLE["cases"], answers, strict=True)
        if answer != {"hidden": case["hidden"], "hidden_documents": case.get("hidden_documents", [])}
    ]
    assert wrong == [] and len(answers) == len(TABLE["cases"])


async def test_fields_and_a_document_appear_and_go_as_the_signer_answers(site, page: Page):
    tess = await invite(site, await order_template(site))
    await page.goto(str(site.client.make_url(f"/s/{tess['slug']}")))
    live = page.locator("#conditions-live")
    annex_page = page.locator("figure.page").nth(1)
    await expect(page.locator("#progress")).to_have_text("0 of 2 filled")  # Plan and Full name apply
    await expect(annex_page).to_be_hidden()
    await expect(page.locator('.box[data-field="f-details"]')).to_be_hidden()

    # Ticking the box shows Details and the annex (with its field), and says so.
    agree = page.get_by_label("Agree to the annex")
    await agree.check()
    await expect(live).to_have_text("Details, Annex term now apply and were added to the form.")
    await expect(annex_page).to_be_visible()
    await expect(page.locator("#progress")).to_have_text("0 of 4 filled")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    await page.set_viewport_size({"width": 360, "height": 780})
    await page.screenshot(path=SCREENSHOTS / "conditions-shown-360.png", full_page=True)
    await page.set_viewport_size({"width": 1280, "height": 900})
    await page.get_by_role("button", name="Next").click()
    await step_of(page, "Details")
    await expect(page.get_by_label("Details")).to_be_focused()
    await page.get_by_label("Details").fill("Blue ones")
    await page.get_by_label("Details").press("Enter")

    # Choosing Pro shows Company; Basic takes it away again, and Next then skips it.
    await step_of(page, "Plan")
    await page.get_by_label("Pro").check()
    await expect(live).to_have_text("Company now applies and was added to the form.")
    await page.get_by_role("button", name="Next").click()
    await step_of(page, "Company")
    await page.get_by_label("Company").fill("Acme")
    await page.get_by_role("button", name="Back").click()
    await step_of(page, "Plan")
    await page.get_by_label("Basic").check()
    await expect(live).to_have_text("Company no longer applies and was removed from the form.")
    await expect(page.locator('.box[data-field="f-company"]')).to_be_hidden()
    await page.get_by_role("button", name="Next").click()
    await step_of(page, "Full name")
    await expect(page.get_by_label("Full name")).to_be_focused()
    await page.get_by_label("Full name").fill("Tess Tenant")

    # Back to the box, untick: Details and the annex go; Next skips Details.
    for name in ("Plan", "Details", "Agree to the annex"):
        await page.get_by_role("button", name="Back").click()
        await step_of(page, name)
    await expect(page.get_by_role("button", name="Back")).to_be_disabled()
    await agree.uncheck()
    await expect(live).to_have_text("Details, Annex term no longer apply and were removed from the form.")
    await expect(annex_page).to_be_hidden()
    await page.get_by_role("button", name="Next").click()
    await step_of(page, "Plan")
    await expect(page.get_by_label("Basic")).to_be_checked()

    await page.screenshot(path=SCREENSHOTS / "conditions-1280.png", full_page=True)
    await page.set_viewport_size({"width": 360, "height": 780})
    await page.screenshot(path=SCREENSHOTS / "conditions-360.png", full_page=True)
    await page.set_viewport_size({"width": 1280, "height": 900})

    await page.get_by_role("button", name="Next").click()
    await step_of(page, "Full name")
    await expect(page.get_by_role("button", name="Complete")).to_be_visible()
    await page.get_by_role("button", name="Complete").click()
    await expect(page.get_by_text("You have completed the form.")).to_be_visible()

    reply = await site.get(f"/api/submitters/{tess['id']}")
    values = {v["field"]: v["value"] for v in reply.json["values"]}
    assert values["Full name"] == "Tess Tenant" and values["Plan"] == "Basic" and values["Agree to the annex"] is False
    assert values["Details"] is None and values["Company"] is None and values["Annex term"] is None


async def test_a_condition_on_a_formula_field_follows_its_live_result_and_no_step_left_focuses_complete(
    site, page: Page
):
    fields = [
        field("Quantity", "number", box(1, 0.10, w=0.1), uuid="f-qty", required=False),
        field(
            "Total",
            "number",
            box(1, 0.20, w=0.1),
            uuid="f-total",
            readonly=True,
            preferences={"formula": "{{f-qty}} * 10"},
        ),
        field(
            "Reason",
            "text",
            box(1, 0.30),
            uuid="f-reason",
            conditions=[{"field_uuid": "f-total", "action": "greater_than", "value": "100"}],
        ),
    ]
    template_id = await one_document_template(site, fields)
    tess = await invite(site, template_id)
    await page.goto(str(site.client.make_url(f"/s/{tess['slug']}")))
    live = page.locator("#conditions-live")
    await expect(page.locator('.box[data-field="f-reason"]')).to_be_hidden()
    await page.get_by_label("Quantity").fill("20")
    await expect(live).to_have_text("Reason now applies and was added to the form.")
    await expect(page.locator('.box[data-field="f-reason"]')).to_be_visible()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=SCREENSHOTS / "conditions-formula-1280.png", full_page=True)
    await page.set_viewport_size({"width": 360, "height": 780})
    await page.screenshot(path=SCREENSHOTS / "conditions-formula-360.png", full_page=True)
    await page.set_viewport_size({"width": 1280, "height": 900})
    await page.get_by_label("Quantity").fill("5")
    await expect(live).to_have_text("Reason no longer applies and was removed from the form.")
    await page.get_by_label("Quantity").fill("30")
    await expect(live).to_have_text("Reason now applies and was added to the form.")
    await page.get_by_label("Quantity").fill("3")
    # The same words again are said again: the region is cleared first.
    await expect(live).to_have_text("Reason no longer applies and was removed from the form.")


async def test_when_no_step_applies_focus_goes_to_complete(site, page: Page):
    # The landlord ticked Gate before; the tenant's only field applies only while it is not ticked.
    fields = [
        {**field("Gate", "checkbox", box(1, 0.10, w=0.04), uuid="f-gate", required=False), "role": "Landlord"},
        field(
            "Only step",
            "text",
            box(1, 0.30),
            uuid="f-only",
            conditions=[{"field_uuid": "f-gate", "action": "unchecked"}],
        ),
    ]
    template_id = await one_document_template(site, fields)
    people = [{"role": "Landlord", "email": "lee@example.com"}, {"role": "Tenant", "email": "tess@example.com"}]
    reply = await site.post(
        "/api/submissions", json={"template_id": template_id, "send_email": False, "submitters": people}
    )
    landlord, tess = reply.json
    done = await site.put(f"/api/submitters/{landlord['id']}", json={"values": {"Gate": True}, "completed": True})
    assert done.status == 200, done.json
    await page.goto(str(site.client.make_url(f"/s/{tess['slug']}")))
    await expect(page.get_by_role("button", name="Complete")).to_be_focused()
    await expect(page.get_by_role("button", name="Next")).to_be_hidden()


async def test_the_signing_forms_rules_decide_a_long_chain_of_conditions_without_recursion(site, page: Page):
    # Each field shown only while the next has a value, dependents first: far deeper than the script's stack.
    tess = await invite(site, await order_template(site))
    await page.goto(str(site.client.make_url(f"/s/{tess['slug']}")))
    hidden = await page.evaluate(
        """async (count) => {
        const signing = document.querySelector('script[src*="signing.js"]').src;
        const { Visibility } = await import(new URL("conditions.js", signing));
        const fields = Array.from({ length: count }, (_, i) => ({
            uuid: `f-${i}`, type: "text",
            conditions: i + 1 < count ? [{ field_uuid: `f-${i + 1}`, action: "not_empty" }] : [],
        }));
        return new Visibility(fields, {}).hiddenFields().length;
    }""",
        20000,
    )
    assert hidden == 19999


async def test_a_condition_on_a_date_shown_in_its_own_format_compares_the_day_as_the_service_does(site, page: Page):
    fields = [
        field("Start", "date", box(1, 0.10), uuid="f-start", preferences={"format": "DD/MM/YYYY"}),
        field(
            "Handover notes",
            "text",
            box(1, 0.20),
            uuid="f-notes",
            conditions=[{"field_uuid": "f-start", "action": "equal", "value": "2026-11-28"}],
        ),
    ]
    template_id = await one_document_template(site, fields)
    tess = await invite(site, template_id)
    await page.goto(str(site.client.make_url(f"/s/{tess['slug']}")))
    live = page.locator("#conditions-live")
    start = page.get_by_label("Start")
    await start.fill("27/11/2026")
    await expect(page.locator('.box[data-field="f-notes"]')).to_be_hidden()
    await start.fill("28/11/2026")  # the field shows DD/MM/YYYY; the condition compares the day, 2026-11-28
    await expect(live).to_have_text("Handover notes now applies and was added to the form.")
    await page.screenshot(path=SCREENSHOTS / "conditions-date-1280.png", full_page=True)
    await page.get_by_role("button", name="Next").click()
    await page.get_by_label("Handover notes").fill("Keys at the desk")
    await page.get_by_role("button", name="Complete").click()
    await expect(page.get_by_text("You have completed the form.")).to_be_visible()
    values = {v["field"]: v["value"] for v in (await site.get(f"/api/submitters/{tess['id']}")).json["values"]}
    assert (values["Start"], values["Handover notes"]) == ("2026-11-28", "Keys at the desk")
