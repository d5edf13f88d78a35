"""HTML documents, for templates (and one-off submissions): read from the request, rendered in the PDF pool
(`pdf_calls.render_html`, WeasyPrint), and taken in as any document is, with field inputs made of their field
tags, placed where the renderer drew each tag.

The https resources an HTML document names (stylesheets, images, fonts) are downloaded here, by the downloader
of every document URL (public addresses only, its size and time limits): a render answers the URLs it wants, they
are downloaded, and the HTML is rendered again with them, for at most `MAX_ROUNDS` rounds (a stylesheet may name
more) and `MAX_RESOURCES` URLs. What cannot be downloaded is left out, as a browser leaves out a broken image,
and so is a resource larger than `MAX_RESOURCE_BYTES` or past `MAX_RESOURCES_BYTES` for the request; every other
URL (file:, http:, relative) is never fetched. The renders of a request share one budget of `RENDER_SECONDS`.
"""

from __future__ import annotations

import asyncio
import logging
import uuid as uuids
from dataclasses import dataclass
from typing import Any

from signsvc.infra import downloads, errors, json_fields, pdf_calls
from signsvc.infra.pool import PdfPool
from signsvc.pdf.boxes import FieldTag
from signsvc.templates import field_tags, patterns
from signsvc.templates.documents import IngestedDocument, ingested

log = logging.getLogger(__name__)

# The page sizes a document may ask for, as CSS sizes (width, height).
PAGE_SIZES = {
    "Letter": "8.5in 11in",
    "Legal": "8.5in 14in",
    "Tabloid": "11in 17in",
    "Ledger": "17in 11in",
    "A0": "841mm 1189mm",
    "A1": "594mm 841mm",
    "A2": "420mm 594mm",
    "A3": "297mm 420mm",
    "A4": "210mm 297mm",
    "A5": "148mm 210mm",
    "A6": "105mm 148mm",
}
DEFAULT_SIZE = "Letter"
# The field tags and the field types they make.
TAG_TYPES = {
    "text-field": "text",
    "signature-field": "signature",
    "initials-field": "initials",
    "date-field": "date",
    "number-field": "number",
    "image-field": "image",
    "file-field": "file",
    "phone-field": "phone",
    "stamp-field": "stamp",
    "checkbox-field": "checkbox",
    "radio-field": "radio",
    "select-field": "select",
    "multi-select-field": "multiple",
    "cells-field": "cells",
}
# Attributes of any HTML element, which say nothing about the field.
_HTML_ATTRIBUTES = {"style", "class", "id", "lang", "dir", "tabindex", "width", "height"}
_BOOLEANS = {"required", "readonly", "hidden"}  # written alone (`<text-field readonly>`), they mean true
MAX_DOCUMENTS = 20
MAX_PAGES = 100
RENDER_SECONDS = 30.0  # of rendering for all the documents of a request, every round of each
MAX_ROUNDS = 3
MAX_RESOURCES = 20
MAX_RESOURCE_BYTES = 5 * 2**20  # each resource is sent to the pool with every render of its document
MAX_RESOURCES_BYTES = 20 * 2**20  # all the resources of a request


@dataclass(frozen=True)
class HtmlSource:
    """One HTML document of a request; `where` is its `html` in the request body, for messages."""

    html: str
    name: str
    header: str | None
    footer: str | None
    size: str
    where: errors.Location


@dataclass(frozen=True)
class HtmlDocument:
    """An HTML document taken in: its PDF and pages, and the fields of its tags as `documents[].fields[]` items
    (areas with 1-based pages)."""

    document: IngestedDocument
    fields: list[dict[str, Any]]
    where: errors.Location


@dataclass(frozen=True)
class Pages:
    """What every page of a document has: a header, a footer, a size."""

    header: str | None = None
    footer: str | None = None
    size: str = DEFAULT_SIZE


def sources(body: dict[str, Any]) -> list[HtmlSource]:
    """The HTML documents of a request: a top-level `html`, or `documents[]` with an `html` each. `html_header`,
    `html_footer` and `size` are a document's own, else the top level's; `name` names the top-level document."""
    documents, html = body.get("documents"), body.get("html")
    top = page_settings(body, ())
    if html is not None:
        if documents is not None and documents != []:
            raise errors.at(("documents",), "must be left out when html is given")
        return [_source(body, ("html",), json_fields.text(body, "name"), top)]
    if documents is None:
        raise errors.at(("html",), "is required: the HTML of the document, or documents[] with an html each")
    if not isinstance(documents, list) or not documents:
        raise errors.at(("documents",), "must be a non-empty array of objects with an html each")
    if len(documents) > MAX_DOCUMENTS:
        raise errors.at(("documents",), f"has {len(documents)} documents: at most {MAX_DOCUMENTS}")
    return [item_source(document, ("documents", index), top) for index, document in enumerate(documents)]


def item_source(given: Any, where: errors.Location, defaults: Pages | None = None) -> HtmlSource:
    """One HTML document of a list (`{html, name, html_header, html_footer, size}` at `where`), its header, footer
    and size its own, else `defaults`'."""
    if not isinstance(given, dict):
        raise errors.at(where, errors.must_be(dict))
    pages = page_settings(given, where, defaults)
    return _source(given, (*where, "html"), json_fields.text(given, "name", where=where), pages)


def page_settings(given: dict[str, Any], where: errors.Location, defaults: Pages | None = None) -> Pages:
    """Header, footer and page size given at `where`, else `defaults` (the top level's): 422 naming a bad one."""
    defaults = defaults or Pages()
    header, footer, size = (json_fields.text(given, key, where=where) for key in ("html_header", "html_footer", "size"))
    if size is not None and size not in PAGE_SIZES:
        raise errors.at((*where, "size"), f"must be one of: {', '.join(PAGE_SIZES)}")
    return Pages(
        header if header is not None else defaults.header,
        footer if footer is not None else defaults.footer,
        size or defaults.size,
    )


def _source(given: dict[str, Any], where: errors.Location, name: str | None, pages: Pages) -> HtmlSource:
    html = given.get("html")
    if not isinstance(html, str) or not html.strip():
        raise errors.at(where, "is required: the HTML of the document, a non-empty string")
    name = (name or "").strip() or str(uuids.uuid4())
    return HtmlSource(html, name, pages.header, pages.footer, pages.size, where)


class HtmlRenderer:
    """Renders HTML documents in the PDF pool, downloading what they name over https between renders."""

    def __init__(self, pool: PdfPool, downloader: downloads.Downloader) -> None:
        self.pool, self.downloader = pool, downloader

    async def documents(self, sources: list[HtmlSource], *, image_pages: int | None = None) -> list[HtmlDocument]:
        """Each source rendered, taken in as a document, and its field tags read into field inputs. `image_pages`:
        the images of only so many first pages are made (the rest later: `page_images`); None: every page's."""
        budget = _Budget()
        return [await self._document(source, budget, image_pages) for source in sources]

    async def _document(self, source: HtmlSource, budget: _Budget, image_pages: int | None) -> HtmlDocument:
        rendered = await self._rendered(source, budget, image_pages)
        assert rendered.prepared is not None  # the last render wants nothing more
        document = ingested(rendered.prepared, source.name)
        # Compiled off the event loop before the tags are read, which then finds each pattern compiled.
        await patterns.prepare(tag.attributes["pattern"] for tag in rendered.tags if tag.attributes.get("pattern"))
        return HtmlDocument(document, tag_fields(rendered.tags, source.where), source.where)

    async def _rendered(self, source: HtmlSource, budget: _Budget, image_pages: int | None) -> pdf_calls.RenderedHtml:
        resources: dict[str, tuple[bytes, str] | None] = {}
        for round in range(MAX_ROUNDS + 1):
            rendered = await self._render(source, resources, budget, image_pages, wanting=round < MAX_ROUNDS)
            if not rendered.wanted:
                return rendered
            room = max(MAX_RESOURCES - len(resources), 0)
            resources.update(budget.taken(await self._downloads(rendered.wanted[:room])))
            resources.update({url: None for url in rendered.wanted[room:]})
        raise AssertionError("the last render wants no resources")

    async def _render(
        self,
        source: HtmlSource,
        resources: dict[str, tuple[bytes, str] | None],
        budget: _Budget,
        image_pages: int | None,
        *,
        wanting: bool,
    ) -> pdf_calls.RenderedHtml:
        if budget.seconds <= 0:
            raise budget.spent(source.where)
        try:
            rendered = await self.pool.run(
                pdf_calls.render_html,
                source.html,
                PAGE_SIZES[source.size],
                source.header,
                source.footer,
                resources,
                wanting,
                MAX_PAGES,
                budget.seconds,
                image_pages,
            )
        except pdf_calls.EngineError as exc:
            if str(exc).startswith(_TIMED_OUT):
                raise budget.spent(source.where) from None
            raise errors.Invalid(f"{errors.written(source.where)}: {exc}", location=source.where) from None
        budget.seconds -= rendered.took
        return rendered

    async def _downloads(self, urls: list[str]) -> dict[str, tuple[bytes, str] | None]:
        found = await asyncio.gather(*(self._download(url) for url in urls))
        return dict(zip(urls, found, strict=True))

    async def _download(self, url: str) -> tuple[bytes, str] | None:
        try:
            download = await self.downloader.download(url, max_bytes=MAX_RESOURCE_BYTES)
        except downloads.DownloadError as exc:
            log.info("an HTML document's resource is left out: %s: %s", url[:200], exc.message)
            return None
        return download.data, download.content_type


_TIMED_OUT = "The HTML took longer than"  # how the renderer says it ran out of the seconds it was given


class _Budget:
    """What the renders of one request may still spend: seconds of rendering, bytes of resources."""

    def __init__(self) -> None:
        self.seconds, self.bytes = RENDER_SECONDS, MAX_RESOURCES_BYTES

    def spent(self, where: errors.Location) -> errors.Invalid:
        problem = f"The HTML documents took longer than {RENDER_SECONDS:g} seconds to render, the most for a request"
        return errors.Invalid(f"{errors.written(where)}: {problem}", location=where)

    def taken(self, found: dict[str, tuple[bytes, str] | None]) -> dict[str, tuple[bytes, str] | None]:
        """The downloads, but those past the request's bytes, left out (as a broken image is)."""
        kept: dict[str, tuple[bytes, str] | None] = {}
        for url, download in found.items():
            if download is not None and len(download[0]) > self.bytes:
                log.info("an HTML document's resource is left out: %s: past the request's resource bytes", url[:200])
                download = None
            self.bytes -= len(download[0]) if download else 0
            kept[url] = download
        return kept


def tag_fields(tags: list[FieldTag], where: errors.Location) -> list[dict[str, Any]]:
    """Field inputs (`documents[].fields[]` items, pages from 1) of a document's field tags, in document order:
    same-name tags of a role are one field with an area each (`field_tags.fields_of_tags`); a tag drawn nowhere
    (`display: none`), of a name no drawn tag has, is a field without areas."""
    placed, undrawn = [], []
    for tag in tags:
        attributes = _attributes(tag, where)
        written = _written(tag)
        if not tag.boxes:
            undrawn.append({**field_tags.field_input(attributes, tag=written, where=where), field_tags.SOURCE: written})
        placed += [field_tags.PlacedTag(written, attributes, box) for box in tag.boxes]
    fields = field_tags.fields_of_tags(placed, where=where)
    drawn = {(field["name"].casefold(), field.get("role", "").casefold()) for field in fields}
    for field in undrawn:
        if (field["name"].casefold(), field.get("role", "").casefold()) not in drawn:
            fields.append({**field, "areas": []})
    return fields


def _attributes(tag: FieldTag, where: errors.Location) -> dict[str, str]:
    """A field tag's attributes as `field_tags` reads them: its type from its element name, boolean attributes
    written alone as true, and HTML's own attributes (style, class, data-*, aria-* ...) left out."""
    kind = TAG_TYPES.get(tag.tag)
    if kind is None:
        raise field_tags.refused(_written(tag), tag.tag, f"is not a field tag: use {', '.join(TAG_TYPES)}", where)
    found = {"type": kind}
    for key, value in tag.attributes.items():
        if key in _HTML_ATTRIBUTES or key.startswith(("data-", "aria-")) or key == "type":
            continue
        found[key] = "true" if key in _BOOLEANS and value == "" else value
    return found


def _written(tag: FieldTag) -> str:
    """The tag as its messages quote it: `<text-field name="Full Name" role="Tenant">`."""
    attributes = "".join(f' {key}="{value}"' for key, value in tag.attributes.items() if key != "style")
    return f"<{tag.tag}{attributes}>"
