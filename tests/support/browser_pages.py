"""A page in a browser context of its own, for a test that opens a second one beside its `page` (a phone, another
width): script errors on it fail the test, as they do on the `page` fixture's."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from playwright.async_api import Browser, Page


@asynccontextmanager
async def own_page(browser: Browser, **context: Any) -> AsyncIterator[Page]:
    """A new page in a new context made with `context` (viewport, has_touch ...), closed after the block; then an
    assertion that no script error happened on it."""
    made = await browser.new_context(**context)
    opened = await made.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    try:
        yield opened
    finally:
        await made.close()
    assert errors == [], f"script errors on the page: {errors}"
