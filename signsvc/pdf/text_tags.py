"""Text tags, `{{...}}` written in a PDF's text: found with PDFium (each tag's text, page and box on the displayed
page), and removed from the pages' content streams, so that no text extraction finds them any more while the text
around them stays where it was.

Removing edits the text-showing operators of each page's own content: the glyphs from `{{` to `}}` (found in the
order the page shows its text, so a tag split over several strings or text objects is found too) are taken out of
their strings, and a TJ offset as wide as they were keeps every later glyph in place. What is not edited, and so
keeps its tag text: text in form XObjects, text in fonts `shown_fonts` cannot read (Type3, CMaps other than
Identity-H), and a tag whose glyphs are not all in such text. Annotations whose /Contents is a tag (a note placed
as a tag) are found by their rectangle and removed with the tags.
"""

from __future__ import annotations

import io
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pypdf
import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
from pypdf.generic import ArrayObject, ByteStringObject, ContentStream, FloatObject, NameObject

from signsvc.pdf import geometry, reading
from signsvc.pdf.boxes import Box, TextTag
from signsvc.pdf.errors import PdfError
from signsvc.pdf.shown_fonts import ShownFont, font_of

log = logging.getLogger(__name__)

TAG = re.compile(r"\{\{([^{}\r\n]{0,1000}?)\}\}")
MAX_TAGS = 5_000  # per document: each one becomes a field, and removal edits the content around each
_SHOWING = (b"Tj", b"TJ", b"'", b'"')


def find_tags(data: bytes) -> list[TextTag]:
    """Every tag of the document, page by page in reading order. Raises PdfError."""
    with reading.reading():
        reader = reading.open_pdf(data)
        frames = [geometry.frame(page) for page in reader.pages]
        noted = [tag for index, page in enumerate(reader.pages) for tag in _noted_tags(page, index, frames[index])]
    try:
        document = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as error:
        raise PdfError(reading.DAMAGED) from error
    try:
        found = noted[: MAX_TAGS + 1]
        for index, frame in enumerate(frames):
            for tag in _page_tags(document, index, frame):
                found.append(tag)
                if len(found) > MAX_TAGS:
                    raise PdfError(f"the document has more than {MAX_TAGS} text tags, the most a document may have")
        return found[len(noted) :] + noted
    except pdfium.PdfiumError as error:
        raise PdfError(reading.DAMAGED) from error
    finally:
        document.close()


def remove_tags(data: bytes, found: list[TextTag] | None = None) -> bytes:
    """The document without its tags (the same bytes when it has none it can remove). Only tags `find_tags` finds
    (or found: `found`) on a page are removed from it: `{{` and `}}` far apart in the content's order but not in
    the page's text are no tag. Raises PdfError."""
    seen: dict[int, set[str]] = {}
    for tag in find_tags(data) if found is None else found:
        seen.setdefault(tag.box.page, set()).add(_squeezed(tag.text))
    if not seen:
        return data
    with reading.reading():
        reader = reading.open_pdf(data)
        writer = pypdf.PdfWriter(clone_from=reader)
        changed = False
        for index, page in enumerate(writer.pages):
            if index not in seen:
                continue
            changed = _remove_noted_tags(page) | changed
            content = _rewritten(page, writer, seen[index])
            if content is not None:
                page.replace_contents(content)
                page.compress_content_streams()
                changed = True
        if not changed:
            return data
        writer.compress_identical_objects()  # also drops the replaced content streams, which still hold the tags
        output = io.BytesIO()
        writer.write(output)
        return output.getvalue()


def _page_tags(document: pdfium.PdfDocument, index: int, frame: geometry.Frame) -> Iterator[TextTag]:
    page = document[index]
    text_page = page.get_textpage()
    try:
        count = text_page.count_chars()
        if "{{" not in text_page.get_text_range(0, count):
            return
        text = "".join(chr(pdfium_c.FPDFText_GetUnicode(text_page, i) or 0xFFFD) for i in range(count))
        for match in TAG.finditer(text):
            boxes = [text_page.get_charbox(i, loose=True) for i in range(match.start(), match.end())]
            boxes = [box for box in boxes if box[2] > box[0] and box[3] > box[1]]
            if not boxes:
                continue
            rect = [
                min(b[0] for b in boxes),
                min(b[1] for b in boxes),
                max(b[2] for b in boxes),
                max(b[3] for b in boxes),
            ]
            area = frame.relative(rect)
            if area is not None:
                yield _found(match.group(0), index, area, frame)
    finally:
        text_page.close()
        page.close()


def _found(text: str, page: int, area: dict[str, float], frame: geometry.Frame) -> TextTag:
    return TextTag(text, text[2:-2], Box(page, area["x"], area["y"], area["w"], area["h"], frame.width, frame.height))


def _noted_tags(page: Any, index: int, frame: geometry.Frame) -> Iterator[TextTag]:
    for annotation in _annotations(page):
        contents = annotation.get("/Contents")
        rect = geometry.numbers(annotation.get("/Rect"))
        if isinstance(contents, str) and rect and (match := TAG.fullmatch(contents.strip())):
            area = frame.relative(rect)
            if area is not None:
                yield _found(match.group(0), index, area, frame)


def _remove_noted_tags(page: Any) -> bool:
    annotations = page.get("/Annots")
    kept = [ref for ref in annotations or [] if not _is_noted_tag(ref.get_object())]
    if annotations is None or len(kept) == len(annotations):
        return False
    page[NameObject("/Annots")] = ArrayObject(kept)
    return True


def _annotations(page: Any) -> list[Any]:
    annotations = page.get("/Annots")
    annotations = annotations.get_object() if annotations is not None else []
    return [ref.get_object() for ref in annotations] if isinstance(annotations, list) else []


def _is_noted_tag(annotation: Any) -> bool:
    contents = annotation.get("/Contents") if isinstance(annotation, dict) else None
    return isinstance(contents, str) and TAG.fullmatch(contents.strip()) is not None


# Removal from the content stream.


@dataclass
class _State:
    font: ShownFont | None = None
    size: float = 0.0
    char_spacing: float = 0.0
    word_spacing: float = 0.0


@dataclass
class _Glyph:
    operation: int  # index in the page's operations
    part: int  # index of the string in the operator's TJ array (0 for the other operators)
    position: int  # index of the code in that string
    code: int
    text: str
    font: ShownFont | None
    advance: float  # in thousandths of the font size: what a TJ offset takes to stand in for it


def _rewritten(page: Any, writer: pypdf.PdfWriter, tags: set[str]) -> ContentStream | None:
    """`_without_tags`, or None (the page kept as it is) when its content cannot be read for rewriting: a PDF
    viewers show is never refused for its tags."""
    try:
        return _without_tags(page, writer, tags)
    except (RecursionError, MemoryError):
        raise
    except Exception as error:
        log.warning("text tags left on a page whose content could not be rewritten: %r", error)
        return None


def _without_tags(page: Any, writer: pypdf.PdfWriter, tags: set[str]) -> ContentStream | None:
    """The page's content without the glyphs of `tags` (as `_squeezed`); None when it has none to remove."""
    if page.get("/Contents") is None:
        return None
    content = ContentStream(page.get_contents(), writer)
    operations = content.operations
    glyphs = list(_glyphs(operations, _fonts(page)))
    removed = _tag_glyphs(glyphs, tags)
    if not removed:
        return None
    by_operation: dict[int, list[_Glyph]] = {}
    for glyph in removed:
        by_operation.setdefault(glyph.operation, []).append(glyph)
    advances: dict[int, dict[tuple[int, int], float]] = {}  # grouped once: a page may hold thousands of tags
    for glyph in glyphs:
        if glyph.operation in by_operation:
            advances.setdefault(glyph.operation, {})[(glyph.part, glyph.position)] = glyph.advance
    rewritten: list[tuple[Any, bytes]] = []
    for index, (operands, operator) in enumerate(operations):
        if index in by_operation:
            rewritten += _shown_without(operands, operator, by_operation[index], advances[index])
        else:
            rewritten.append((operands, operator))
    content.operations = rewritten
    return content


def _fonts(page: Any) -> dict[str, ShownFont | None]:
    resources = page.get("/Resources")
    fonts = resources.get_object().get("/Font") if resources is not None else None
    fonts = fonts.get_object() if fonts is not None else {}
    found: dict[str, ShownFont | None] = {}
    for name, ref in fonts.items():
        try:
            found[name] = font_of(ref.get_object())
        except (KeyError, TypeError, ValueError, AttributeError):
            found[name] = None
    return found


def _glyphs(operations: list[tuple[Any, bytes]], fonts: dict[str, ShownFont | None]) -> Iterator[_Glyph]:
    """Every glyph the page's own content shows, in order, with its font and advance."""
    state, saved = _State(), []
    for index, (operands, operator) in enumerate(operations):
        if operator == b"q":
            saved.append(_State(**vars(state)))
        elif operator == b"Q" and saved:
            state = saved.pop()
        elif operator == b"Tf" and len(operands) == 2:
            state.font, state.size = fonts.get(str(operands[0])), _float(operands[1])
        elif operator == b"Tc" and operands:
            state.char_spacing = _float(operands[0])
        elif operator == b"Tw" and operands:
            state.word_spacing = _float(operands[0])
        elif operator == b'"' and len(operands) == 3:
            state.word_spacing, state.char_spacing = _float(operands[0]), _float(operands[1])
        if operator in _SHOWING and operands:
            parts = operands[0] if operator == b"TJ" else [operands[-1]]
            for part_index, part in enumerate(parts if isinstance(parts, list) else []):
                yield from _part_glyphs(index, part_index, part, state)


def _part_glyphs(operation: int, part_index: int, part: Any, state: _State) -> Iterator[_Glyph]:
    if not isinstance(part, (str, bytes)):
        return
    raw = _bytes(part)
    font = state.font if state.size else None  # at size 0 no offset can stand in for a glyph
    if font is None:
        for position in range(len(raw)):
            yield _Glyph(operation, part_index, position, raw[position], "\ufffd", None, 0.0)
        return
    for position, code in enumerate(font.codes(raw)):
        spacing = state.char_spacing + (state.word_spacing if font.is_space(code) else 0.0)
        advance = font.width(code) + 1000 * spacing / state.size
        yield _Glyph(operation, part_index, position, code, font.unicode(code), font, advance)


def _tag_glyphs(glyphs: list[_Glyph], tags: set[str]) -> list[_Glyph]:
    """The glyphs of the content's tags that are among `tags`, and whose glyphs are all in fonts that can be
    edited."""
    owner = [index for index, glyph in enumerate(glyphs) for _ in glyph.text]
    removed: list[_Glyph] = []
    for match in TAG.finditer("".join(glyph.text for glyph in glyphs)):
        tag = glyphs[owner[match.start()] : owner[match.end() - 1] + 1]
        if _squeezed(match.group(0)) in tags and all(glyph.font is not None for glyph in tag):
            removed += tag
    return removed


def _squeezed(text: str) -> str:
    """A tag without its white space: PDFium adds spaces between pieces of text set apart."""
    return "".join(text.split())


def _shown_without(
    operands: list[Any], operator: bytes, removed: list[_Glyph], advances: dict[tuple[int, int], float]
) -> list[Any]:
    """A text-showing operation as a TJ without the removed glyphs, each run of them replaced by an offset (as wide
    as `advances`, the operation's glyphs' by part and position); `'` and `"` keep their line move and spacing as
    operators of their own."""
    gone = {(glyph.part, glyph.position) for glyph in removed}
    font = removed[0].font
    assert font is not None  # _tag_glyphs removes glyphs of known fonts only
    parts = operands[0] if operator == b"TJ" else [operands[-1]]
    shown: list[Any] = []
    for part_index, part in enumerate(parts):
        if not isinstance(part, (str, bytes)):
            shown.append(part)
            continue
        codes = font.codes(_bytes(part))
        run: list[int] = []
        for position, code in enumerate(codes):
            if (part_index, position) in gone:
                if run:
                    shown.append(ByteStringObject(font.encoded(run)))
                    run = []
                _offset(shown, -advances[(part_index, position)])
            else:
                run.append(code)
        if run:
            shown.append(ByteStringObject(font.encoded(run)))
    result: list[tuple[Any, bytes]] = []
    if operator == b'"':
        result += [([operands[0]], b"Tw"), ([operands[1]], b"Tc")]
    if operator in (b"'", b'"'):
        result.append(([], b"T*"))
    return [*result, ([ArrayObject(shown)], b"TJ")]


def _offset(shown: list[Any], amount: float) -> None:
    """Adds a TJ offset, merged into one just before it."""
    if shown and isinstance(shown[-1], (int, float)) and not isinstance(shown[-1], bool):
        shown[-1] = FloatObject(round(float(shown[-1]) + amount, 4))
    else:
        shown.append(FloatObject(round(amount, 4)))


def _bytes(part: Any) -> bytes:
    """A string operand's bytes as written (pypdf reads some as text, keeping the bytes it read)."""
    if isinstance(part, bytes):
        return part
    original = getattr(part, "original_bytes", None)
    return original if isinstance(original, bytes) else str(part).encode("latin-1", errors="replace")


def _float(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return 0.0
