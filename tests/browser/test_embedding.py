"""The form framed in another site's page: `<service-embed>` from /js/embed.js, its events, and the
framing rules (only /apiemb/ may be framed)."""

from playwright.async_api import Page, expect

from tests.support.every_field import ONE_FIELD, every_field_template, invite
from tests.support.live_site import BROWSER_LOOP
from tests.support.system import CHROMIUM

pytestmark = [CHROMIUM, BROWSER_LOOP]

EMBEDDING = """<!doctype html><html><head><title>Host</title></head><body>
<h1>Host application</h1>
<script src="{site}/js/embed.js"></script>
<service-embed id="signing" src="{site}/apiemb/{slug}" width="100%" height="auto"></service-embed>
<script>
  window.seen = [];
  for (const name of ["load", "completed", "declined"]) {{
    document.addEventListener(name, (event) => {{
      if (event.target.id === "signing") window.seen.push({{ name, detail: event.detail }});
    }});
  }}
  // A message the host page sends itself must not pass for the form's.
  window.postMessage({{ source: "service", type: "completed", payload: {{ timestamp: "forged" }} }}, "*");
</script>
</body></html>"""

FRAMING = """<!doctype html><html><body>
<iframe id="plain" src="{site}/s/{slug}" width="600" height="300"></iframe>
<iframe id="embedded" src="{site}/apiemb/{slug}" width="600" height="300"></iframe>
</body></html>"""


async def events(page: Page, names: list[str]) -> None:
    """Waits until the host page has seen exactly these events of the element, in this order."""
    await page.wait_for_function("(names) => window.seen.map((e) => e.name).join() === names.join()", arg=names)


def site_url(site) -> str:
    return str(site.client.make_url("")).rstrip("/")


async def test_an_embedded_form_tells_the_host_page_load_and_completed_and_never_navigates(site, host, page: Page):
    tess = await invite(
        site, await every_field_template(site, ONE_FIELD), completed_redirect_url="https://example.com/thanks"
    )
    host["/sign"] = EMBEDDING.format(site=site_url(site), slug=tess["slug"])
    await page.goto(host["origin"] + "/sign")
    frame = page.frame_locator("service-embed iframe")
    await frame.get_by_label("Full name").fill("Tess Tenant")
    await events(page, ["load"])
    load = (await page.evaluate("window.seen"))[0]["detail"]
    assert load == {"path": f"/apiemb/{tess['slug']}", "query": ""}
    height = await page.locator("service-embed iframe").evaluate("(frame) => frame.style.height")
    assert height.endswith("px") and height != "600px"  # height="auto" follows the form's resize messages

    await frame.get_by_role("button", name="Complete").click()
    await expect(frame.get_by_role("heading", name="Thank you")).to_be_visible()
    await events(page, ["load", "completed"])
    completed = (await page.evaluate("window.seen"))[1]["detail"]
    assert completed["redirect_url"] == "https://example.com/thanks?event=completed"
    assert completed["timestamp"].endswith("Z")
    assert page.url == host["origin"] + "/sign"
    assert [f.url for f in page.frames[1:]] == [f"{site_url(site)}/apiemb/{tess['slug']}"]
    assert (await site.get(f"/api/submitters/{tess['id']}")).json["status"] == "completed"


async def test_an_embedded_decline_sends_declined_to_the_host_page(site, host, page: Page):
    tess = await invite(site, await every_field_template(site, ONE_FIELD))
    host["/sign"] = EMBEDDING.format(site=site_url(site), slug=tess["slug"])
    await page.goto(host["origin"] + "/sign")
    frame = page.frame_locator("service-embed iframe")
    await frame.get_by_role("button", name="Decline").click()
    await frame.get_by_label("Reason").fill("Wrong rent")
    await frame.get_by_role("dialog").get_by_role("button", name="Decline").click()
    await events(page, ["load", "declined"])
    assert (await page.evaluate("window.seen"))[1]["detail"]["redirect_url"] is None
    assert (await site.get(f"/api/submitters/{tess['id']}")).json["status"] == "declined"


async def test_only_the_embeddable_form_may_be_framed_by_another_site(site, host, page: Page):
    tess = await invite(site, await every_field_template(site, ONE_FIELD))
    host["/frames"] = FRAMING.format(site=site_url(site), slug=tess["slug"])
    await page.goto(host["origin"] + "/frames")
    await expect(page.frame_locator("#embedded").get_by_role("heading", name="Lease")).to_be_visible()
    await page.wait_for_load_state("load")  # every frame has loaded, or failed to
    plain = page.frame(url=lambda url: "/s/" in url or url.startswith("chrome-error:"))
    assert plain is None or plain.url.startswith("chrome-error:") or await plain.locator("#main").count() == 0
