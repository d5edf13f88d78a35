"""Drawing on the signing form's signature pad in chromium, as a hand does: a zigzag stroke."""

from playwright.async_api import Locator, Page


async def draw(page: Page, canvas: Locator) -> None:
    box = await canvas.bounding_box()
    assert box is not None, "the pad is on the page"
    await page.mouse.move(box["x"] + box["width"] * 0.1, box["y"] + box["height"] * 0.6)
    await page.mouse.down()
    for step in range(1, 12):
        await page.mouse.move(
            box["x"] + box["width"] * (0.1 + step * 0.07), box["y"] + box["height"] * (0.6 - 0.3 * (step % 2)), steps=3
        )
    await page.mouse.up()
