"""HTML rendered to PDF by WeasyPrint (an engine for paged media: CSS `@page`, margin boxes, running elements),
answering where each field tag was drawn, read from the layout of the same render that wrote the PDF.

- Field tags are the elements whose name ends in `-field` (`<text-field>`, `<signature-field>` ...). They draw
  nothing of their own: what they hold is dropped before layout. They are inline blocks, of a default size by tag
  (`FIELD_SIZES`, CSS px) unless their style says otherwise, and never split across pages. Each box laid out for
  one is answered with its page (0-based) and its border box as fractions of the page, origin top-left.
- Header and footer: HTML put in the top and bottom margins of every page (running elements); in them
  `<span class="pageNumber"></span>` shows the page's number and `<span class="totalPages"></span>` the count.
- The page size is the caller's, over any `@page { size }` of the document; margins are 0.5 in, 0.75 in at the
  top (bottom) when there is a header (footer). The document's own `@page` rules may change the margins.
- Text is drawn with the packaged fonts (Noto Sans, then the Arabic, Hebrew, Devanagari and Thai fallbacks),
  unless the document's CSS names other fonts, which are looked up on the system (fontconfig). The packaged fonts
  are given as static instances of weights 400 and 700 (`static_fonts`): other weights are drawn at the nearer.
  Their font configuration is made once per process and shared by the renders of documents that declare no font
  of their own (`@font-face`); a document that does is rendered with a configuration of its own, so that no
  document's fonts are ever seen by another's render.
- Resources: `data:` URLs, and `https:` URLs only as given in `resources` (downloaded beforehand by the caller,
  under its rules for downloads). Every other URL (`file:`, `http:`, any other scheme, relative) is refused
  and left out, as a browser leaves out a broken image. An https URL not given is answered in `wanted`, so that
  the caller can download it and render again. WeasyPrint runs no scripts.
- Bounds: at most `max_pages` pages (counted while the layout makes them) and `seconds` of work in this process
  (a timer signal); past either, a PdfError naming the bound. Images of more than `images.MAX_PIXELS` are left out
  (their header read, nothing decoded).
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing.util
import shutil
import signal
import threading
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from signsvc.pdf import font_files, images, static_fonts
from signsvc.pdf.boxes import Box, FieldTag
from signsvc.pdf.errors import PdfError

log = logging.getLogger(__name__)

POINTS_PER_PX = 0.75  # CSS px are 96 to the inch, PDF points 72
# Default sizes (width, height in CSS px, 96 to the inch) of the field tags without a width or height of their own.
FIELD_SIZES = {
    "text-field": (160, 24),
    "number-field": (120, 24),
    "date-field": (120, 24),
    "phone-field": (160, 24),
    "cells-field": (160, 24),
    "select-field": (160, 24),
    "multi-select-field": (160, 24),
    "signature-field": (160, 60),
    "initials-field": (80, 40),
    "stamp-field": (160, 80),
    "image-field": (160, 80),
    "file-field": (160, 40),
    "checkbox-field": (16, 16),
    "radio-field": (16, 16),
}
MARGIN = "0.5in"
MARGIN_BESIDE_HEADER = "0.75in"
HEADER, FOOTER = "signsvc-header", "signsvc-footer"
FONT_SCHEME = "signsvc-font"  # the packaged fonts, fetched from their files by name: no file: URL is ever opened
NOT_INSTALLED = (
    "HTML cannot be rendered: WeasyPrint's system libraries are not installed on this server "
    "(Debian: apt-get install libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0)"
)
_LAYOUT_PAGE = "Step 5 - Creating layout - Page %d"  # WeasyPrint's progress record of each page it lays out


@dataclass(frozen=True)
class Rendering:
    """The PDF and its field tags; or, when https resources are wanted that were not given, only their URLs."""

    pdf: bytes | None
    tags: list[FieldTag]
    wanted: list[str]


class _Stopped(BaseException):
    """A bound reached inside WeasyPrint: a BaseException, so that no `except Exception` of WeasyPrint's
    takes it for a failed image or stylesheet."""


class _OwnFonts(BaseException):
    """The document declares a font of its own (`@font-face`): it is rendered again with a font configuration of
    its own. A BaseException, for the reason `_Stopped` is one."""


def render(
    html: str,
    *,
    page_size: str,
    header: str | None = None,
    footer: str | None = None,
    resources: dict[str, tuple[bytes, str] | None] | None = None,
    wanting: bool = True,
    max_pages: int,
    seconds: float,
) -> Rendering:
    """`html` laid out on pages of `page_size` (a CSS size, such as `210mm 297mm`). `resources` are the https
    resources downloaded by URL, each as (content, content type), or None for one that could not be; others are
    answered in `wanted` while `wanting`, else left out."""
    weasyprint, fetcher_class = _weasyprint()
    fetcher = fetcher_class(resources or {}, wanting)
    try:
        with _deadline(seconds), _page_bound(max_pages), _image_bound():
            return _rendered(weasyprint, fetcher, html, page_size, header, footer, max_pages)
    except _Stopped as stopped:
        raise PdfError(str(stopped)) from None
    except Exception:  # WeasyPrint failing on some HTML or CSS: the HTML is refused, the failure logged
        log.warning("WeasyPrint could not render an HTML document", exc_info=True)
        raise PdfError("The HTML could not be rendered") from None


def _rendered(
    weasyprint: Any,
    fetcher: Any,
    html: str,
    page_size: str,
    header: str | None,
    footer: str | None,
    max_pages: int,
) -> Rendering:
    import cssselect2

    document = weasyprint.HTML(string=html, url_fetcher=fetcher)
    _add_running(weasyprint, document.etree_element, fetcher, header, HEADER)
    _add_running(weasyprint, document.etree_element, fetcher, footer, FOOTER)
    tags = _emptied_tags(document.etree_element)
    # The wrapper that selectors match against is made again: it may have read the tree before it changed.
    document.wrapper_element = cssselect2.ElementWrapper.from_html_root(document.etree_element)
    page = _page_stylesheet(page_size, header is not None, footer is not None)
    try:
        return _written(weasyprint, document, fetcher, page, tags, max_pages, *_packaged_fonts(weasyprint))
    except _OwnFonts:  # the document's fonts go in a configuration of its own, never in the shared one
        fonts = weasyprint.text.fonts.FontConfiguration()
        faces = weasyprint.CSS(string=_faces_stylesheet(), url_fetcher=fetcher, font_config=fonts)
        return _written(weasyprint, document, fetcher, page, tags, max_pages, fonts, faces)


def _written(
    weasyprint: Any, document: Any, fetcher: Any, page: str, tags: list[Any], max_pages: int, fonts: Any, faces: Any
) -> Rendering:
    """The document laid out and written with the fonts' stylesheet, then the page's (`page`, CSS), in the font
    configuration `fonts`."""
    stylesheet = weasyprint.CSS(string=page, url_fetcher=fetcher, font_config=fonts)
    laid_out = document.render(stylesheets=[faces, stylesheet], font_config=fonts)
    if fetcher.wanted:
        return Rendering(None, [], sorted(fetcher.wanted))
    if len(laid_out.pages) > max_pages:  # also counted while laid out (`_page_bound`), as WeasyPrint tells
        raise _Stopped(_too_many_pages(max_pages))
    found = _boxes(laid_out.pages)
    boxed = [FieldTag(element.tag, dict(element.attrib), found.get(id(element), [])) for element in tags]
    pdf = laid_out.write_pdf()
    if getattr(fonts, "refused", False):  # a font declared where WeasyPrint swallows any exception (an SVG's SVG)
        raise _OwnFonts()
    return Rendering(pdf, boxed, [])


def _weasyprint() -> tuple[Any, type]:
    """WeasyPrint, imported here (a second of imports, and its libraries loaded), and the fetcher class."""
    try:
        import weasyprint
        import weasyprint.text.fonts
        from weasyprint.urls import URLFetcher, URLFetcherResponse
    except (ImportError, OSError):  # OSError: cffi could not load Pango, HarfBuzz or fontconfig
        raise PdfError(NOT_INSTALLED) from None
    logging.getLogger("weasyprint").setLevel(logging.CRITICAL)  # refused URLs and unsupported CSS: not our log's

    class Fetcher(URLFetcher):  # type: ignore[misc]
        """data: URLs, the given https resources and the packaged fonts; refuses everything else."""

        def __init__(self, resources: dict[str, tuple[bytes, str] | None], wanting: bool) -> None:
            super().__init__(allowed_protocols=())
            self.resources, self.wanting = resources, wanting
            self.wanted: set[str] = set()

        def fetch(self, url: str, headers: Any = None) -> Any:
            scheme = url.split(":", 1)[0].lower()
            if scheme == "data":
                return _data_url(url)
            if scheme == FONT_SCHEME and (font := _font(url)):
                return URLFetcherResponse(url, font, {"Content-Type": "font/ttf"})
            if scheme == "https" and (given := self.resources.get(url)):
                return URLFetcherResponse(url, given[0], {"Content-Type": given[1]})
            if scheme == "https" and self.wanting and url not in self.resources:
                self.wanted.add(url)
            raise ValueError(f"not fetched: {url[:100]}")

    return weasyprint, Fetcher


def _data_url(url: str) -> Any:
    """A data: URL's content, as the standard library reads one."""
    from urllib.request import DataHandler, Request

    from weasyprint.urls import URLFetcherResponse

    response = DataHandler().data_open(Request(url))
    return URLFetcherResponse(url, response.read(), dict(response.headers))


def _font(url: str) -> bytes | None:
    """The packaged font `signsvc-font:<index>-<weight>` names, as a static instance of that weight."""
    index, _, weight = url.split(":", 1)[1].partition("-")
    fonts = _fonts()
    if not (index.isdigit() and int(index) < len(fonts) and weight.isdigit()):
        return None
    if int(weight) not in static_fonts.WEIGHTS:
        return None
    return static_fonts.instance(fonts[int(index)], int(weight))


def prepare_fonts() -> None:
    """Makes the static instances of the packaged fonts ahead of the first render (a quarter of a second)."""
    for path in _fonts():
        for weight in static_fonts.WEIGHTS:
            static_fonts.instance(path, weight)


def _fonts() -> list[str]:
    """The packaged text font, then its fallbacks (without the CJK collection: tens of MB to read per render)."""
    found = [font_files.packaged(*font_files.PACKAGED_TEXT)]
    found += [font_files.packaged(module, name) for module, name in font_files.PACKAGED_FALLBACKS]
    return [path for path in found if path]


_shared: tuple[Any, Any] | None = None  # this process's packaged fonts: their configuration and stylesheet


def _packaged_fonts(weasyprint: Any) -> tuple[Any, Any]:
    """The font configuration with the packaged fonts, and the stylesheet declaring them, made once per process (in
    the worker, not the forkserver: its font files are removed when the process that made them ends) and shared by
    every render; a render whose document declares a font of its own raises _OwnFonts (or, where WeasyPrint
    swallows that, finds the configuration `refused` once written)."""
    global _shared
    if _shared is None:

        class PackagedFonts(weasyprint.text.fonts.FontConfiguration):  # type: ignore[misc]
            sealed = refused = False

            def add_font_face(self, rule_descriptors: Any, url_fetcher: Any) -> Any:
                if self.sealed:
                    self.refused = True
                    raise _OwnFonts()
                return super().add_font_face(rule_descriptors, url_fetcher)

        fonts = PackagedFonts()
        _, fetcher_class = _weasyprint()
        faces = weasyprint.CSS(string=_faces_stylesheet(), url_fetcher=fetcher_class({}, False), font_config=fonts)
        fonts.sealed = True
        # WeasyPrint removes its font files when the configuration is collected, which a process's end never does.
        multiprocessing.util.Finalize(None, _remove_font_files, (fonts,), exitpriority=1)
        _shared = fonts, faces
    _shared[0].refused = False
    return _shared


def _remove_font_files(fonts: Any) -> None:
    folder, fonts._folder = fonts._folder, None  # and its own removal, late in the interpreter's end, does nothing
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


def _faces_stylesheet() -> str:
    """The packaged fonts declared, and made the document's first choice."""
    fonts = _fonts()
    faces = "".join(
        f'@font-face {{ font-family: "signsvc {index}"; font-weight: {weight}; '
        f'src: url("{FONT_SCHEME}:{index}-{weight}"); }}\n'
        for index in range(len(fonts))
        for weight in static_fonts.WEIGHTS
    )
    families = "".join(f'"signsvc {index}", ' for index in range(len(fonts)))
    return f"{faces}html {{ font-family: {families}sans-serif; }}\n"


def _page_stylesheet(page_size: str, header: bool, footer: bool) -> str:
    """The defaults, as a user stylesheet: the document's own CSS overrides them, but for the page size."""
    tags = ", ".join(FIELD_SIZES)
    sizes = "".join(f"{tag} {{ width: {w}px; height: {h}px; }}\n" for tag, (w, h) in FIELD_SIZES.items())
    # Margin boxes and running elements only for a header or footer given: WeasyPrint lays out each margin box
    # declared on every page, and a document's own element of those classes otherwise stays where it is written.
    top = f"@top-center {{ content: element({HEADER}); width: 100%; }}" if header else ""
    bottom = f"@bottom-center {{ content: element({FOOTER}); width: 100%; }}" if footer else ""
    running = "".join(
        f".{name} {{ position: running({name}); }}\n" for name, given in ((HEADER, header), (FOOTER, footer)) if given
    )
    return f"""
@page {{
  size: {page_size} !important;
  margin: {MARGIN_BESIDE_HEADER if header else MARGIN} {MARGIN} {MARGIN_BESIDE_HEADER if footer else MARGIN};
  {top}
  {bottom}
}}
{running}.{HEADER} .pageNumber::after, .{FOOTER} .pageNumber::after {{ content: counter(page); }}
.{HEADER} .totalPages::after, .{FOOTER} .totalPages::after {{ content: counter(pages); }}
{tags} {{ display: inline-block; box-sizing: border-box; break-inside: avoid; overflow: hidden; }}
{sizes}"""


def _emptied_tags(root: Any) -> list[Any]:
    """The field tags' elements in document order, each emptied: a field tag draws nothing of its own."""
    tags = [element for element in root.iter() if _is_field_tag(element.tag)]
    for element in tags:
        element.text = None
        for child in list(element):
            element.remove(child)
    return tags


def _add_running(weasyprint: Any, root: Any, fetcher: Any, html: str | None, name: str) -> None:
    """The header or footer HTML as the first element of the document's body, running into its margin box."""
    if html is None:
        return
    part = weasyprint.HTML(string=html, url_fetcher=fetcher).etree_element
    head, body = part.find("head"), part.find("body")
    running = root.makeelement("div", {"class": name})
    running.extend(list(head) if head is not None else [])  # its <style> and <link> elements
    if body is not None:
        if len(running):
            running[-1].tail = (running[-1].tail or "") + (body.text or "")
        else:
            running.text = body.text
        running.extend(list(body))
    root.find("body").insert(0, running)


def _is_field_tag(tag: Any) -> bool:
    return isinstance(tag, str) and tag.endswith("-field")


def _boxes(pages: list[Any]) -> dict[int, list[Box]]:
    """The boxes laid out for each field tag's element (by `id`), page by page."""
    found: dict[int, list[Box]] = {}
    for number, page in enumerate(pages):
        for box in _field_boxes(page._page_box):
            found.setdefault(id(box.element), []).append(_box(number, box, page.width, page.height))
    return found


def _field_boxes(box: Any) -> Iterator[Any]:
    """The outermost boxes of field tags under `box` (a field tag's box holds nothing else of interest)."""
    for child in getattr(box, "children", ()):
        if _is_field_tag(getattr(child, "element_tag", None)):
            yield child
        else:
            yield from _field_boxes(child)


def _box(page: int, box: Any, width: float, height: float) -> Box:
    """The border box of a field tag's `box` on a page `width` by `height` CSS pixels."""
    left, top = _within(box.border_box_x() / width), _within(box.border_box_y() / height)
    return Box(
        page,
        left,
        top,
        min(_within(box.border_width() / width), 1 - left),
        min(_within(box.border_height() / height), 1 - top),
        width * POINTS_PER_PX,
        height * POINTS_PER_PX,
    )


def _within(value: float) -> float:
    return min(max(value, 0.0), 1.0)


@contextlib.contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    """Stops the work after `seconds` (a real-time timer: this process's main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    message = f"The HTML took longer than {seconds:g} seconds to render"
    fired: list[bool] = []

    def stop(signum: int, frame: Any) -> None:
        fired.append(True)
        raise _Stopped(message)

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    if fired:  # raised where it was swallowed (inside a C library's callback): the render is refused all the same
        raise _Stopped(message)


class _PageCounter(logging.Handler):
    """Hears WeasyPrint's progress record of each page it lays out, and stops the layout past the bound."""

    def __init__(self, max_pages: int) -> None:
        super().__init__(logging.INFO)
        self.max_pages = max_pages

    def emit(self, record: logging.LogRecord) -> None:
        page = record.args[0] if record.msg == _LAYOUT_PAGE and isinstance(record.args, tuple) else 0
        if isinstance(page, int) and page > self.max_pages:
            raise _Stopped(_too_many_pages(self.max_pages))


@contextlib.contextmanager
def _image_bound() -> Iterator[None]:
    """Images of more than `images.MAX_PIXELS` are refused from their header, before they are decoded: WeasyPrint
    leaves them out, as images it cannot read."""
    from PIL import Image

    limit, Image.MAX_IMAGE_PIXELS = Image.MAX_IMAGE_PIXELS, images.MAX_PIXELS
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            yield
    finally:
        Image.MAX_IMAGE_PIXELS = limit


def _too_many_pages(max_pages: int) -> str:
    return f"The HTML makes more than {max_pages} pages: a document has at most {max_pages}"


@contextlib.contextmanager
def _page_bound(max_pages: int) -> Iterator[None]:
    progress = logging.getLogger("weasyprint.progress")
    counter, level, propagate = _PageCounter(max_pages), progress.level, progress.propagate
    progress.addHandler(counter)
    progress.setLevel(logging.INFO)
    progress.propagate = False
    try:
        yield
    finally:
        progress.removeHandler(counter)
        progress.setLevel(level)
        progress.propagate = propagate
