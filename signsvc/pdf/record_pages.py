"""The pages the service's records are drawn on (the audit log, the consent certificate), with fpdf2.

A record is an A4 document: a heading and title, label/value rows under section headings, an events
table whose column headings repeat on each new page; every page has a footer with the record's id and
"Page n of N", and, in test mode, a red banner "Test document, not legally binding".

Every fixed text is the record's in its language: the data's `words` (`Words`: catalogue keys to their strings,
handed over by the caller, who has the catalogues) and `language` (a code of `pages/i18n`, English when
missing), which also writes the times (Babel). Times without an offset are taken as UTC; every time is shown in
UTC, to the second, as the language writes it: `Jan 1, 2026, 12:00:00 PM UTC`, `1 sty 2026, 12:00:00 UTC`.
Text from the data is drawn as written, never as markup; tabs become spaces and other control
characters are dropped. The same data always gives the same bytes.

Fonts are found as `signsvc.pdf.fonts` says: the text font (the packaged Noto Sans, or DejaVu Sans from
the font directory), and the fallback fonts (Arabic, Hebrew, Devanagari, Thai, CJK) each added only when
some text has a character the fonts before it lack (else it would be embedded for nothing; each font is
parsed once per process, `signsvc.pdf.font_cache`); headings and labels are in DejaVu Sans Bold when the
font directory has it, else in the text font. Text in a right-to-left or complex script is shaped and
ordered by HarfBuzz (only in records that have some). A character no font found has is drawn as
`fonts.substitute`, logged, and named by `with_replacement_note` in a last event.
"""

from __future__ import annotations

import functools
import math
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime
from typing import Any

from fpdf import FPDF, bidi
from fpdf.enums import Align, TextDirection, TextEmphasis

from signsvc.pdf import font_cache, font_files, fonts
from signsvc.pdf.errors import PdfError

MARGIN, TOP, BOTTOM = 42, 46, 48
LINE, SIZE, HEADING_LINE = 12, 9, 15  # body line height and font size, a heading's line height, in points
LABEL_WIDTH = 120
TIME_GAP = 6  # points between the widest time and its event's text, beside both cells' own margins
RED, GREY, LIGHT = (190, 25, 25), (100, 100, 100), (240, 240, 240)
FAMILY, FALLBACK = "text", "fallback"
PAGES = "\0n\0"  # the page count's placeholder: no text drawn from the data can hold it, `text` drops NUL

FontPaths = tuple[str, str, tuple[str, ...]]  # the text font, its bold, the fallback fonts the text needs


class Words:
    """A record's fixed texts: `words(key, **values)` is the string of `key` with its `{name}` values filled in."""

    def __init__(self, data: dict[str, Any], record: str) -> None:
        found = data.get("words")
        if not isinstance(found, dict):
            raise PdfError(f"The {record} needs its words")
        self.found, self.record = found, record
        self.language = language = data.get("language") or "en"
        if not isinstance(language, str):
            raise PdfError(f"The {record}'s language is not a language code: {language!r}")
        from babel import Locale, UnknownLocaleError

        try:
            Locale.parse(language)  # refused here, not while the times are drawn
        except (UnknownLocaleError, ValueError, TypeError):
            raise PdfError(f"The {record}'s language is not a language code: {language!r}") from None

    def __call__(self, key: str, **values: Any) -> str:
        text = self.found.get(key)
        if not isinstance(text, str):
            raise PdfError(f"The {self.record}'s words lack {key}")
        return text.format(**values) if values else text

    def widest_times(self) -> tuple[str, ...]:
        """Times as wide as the language writes them: every month's name, in the morning and the afternoon (the
        day and hour of two digits), for the time column to be sized by."""
        return _widest_times(self.language)

    def shown(self, time: datetime) -> str:
        """The time in UTC, to the second, as the record's language writes it."""
        from babel import dates

        glue = str(dates.get_datetime_format("medium", locale=self.language)).replace("'", "")
        day = dates.format_date(time, "medium", locale=self.language)
        clock = dates.format_time(time, "medium", tzinfo=UTC, locale=self.language)
        # Without the direction marks some languages put in (no font draws them, and the text is shaped anyway), and
        # with CLDR's narrow no-break space (before "PM") as the no-break space every font has.
        return text(glue.replace("{1}", day).replace("{0}", clock) + " UTC").replace("\u202f", "\u00a0")


@functools.cache
def _widest_times(language: str) -> tuple[str, ...]:
    words = Words({"words": {}, "language": language}, "record")
    return tuple(
        words.shown(datetime(2026, month, 28, hour, 59, 59, tzinfo=UTC)) for month in range(1, 13) for hour in (10, 22)
    )


def fonts_for(data: Any, font_dir: str | None) -> FontPaths:
    """The text font, its bold (the text font when there is none), and the fallback fonts some text of `data`
    needs. Characters no font has (drawn as a substitute) are logged as a warning."""
    regular = fonts.check(font_dir)
    bold = font_files.bold_font(font_dir) or regular
    paths = regular, bold, tuple(fonts.fallbacks_for(_texts(data), drawn((regular, bold, ())), font_dir)[0])
    if lacking := fonts.undrawable(_texts(data), drawn(paths)):
        fonts.warn_replaced(lacking, "a record's text")
    return paths


def every_font(font_dir: str | None) -> list[str]:
    """The files of every font a record or a filled value may be drawn in: the text font, its bold, the fallbacks."""
    regular = fonts.check(font_dir)
    return list(
        dict.fromkeys(
            path for path in (regular, font_files.bold_font(font_dir), *fonts.fallback_fonts(font_dir)) if path
        )
    )


def drawn(font_paths: FontPaths) -> frozenset[int]:
    """The code points the record's fonts draw: both styles of the text font have them, or a fallback font has."""
    regular, bold, fallbacks = font_paths
    return (fonts.coverage(regular) & fonts.coverage(bold)).union(*(fonts.coverage(path) for path in fallbacks))


def with_replacement_note(
    events: list[tuple[datetime, str]], data: Any, font_paths: FontPaths, generated_at: datetime, words: Words
) -> list[tuple[datetime, str]]:
    """The events, and last, when some characters of `data` can't be drawn, a line naming them."""
    if lacking := fonts.undrawable(_texts(data), drawn(font_paths)):
        note = words(
            "record.replaced",
            substitute=fonts.substitute(drawn(font_paths)),
            characters=fonts.code_points(lacking),
        )
        return [*events, (generated_at, note)]
    return events


def needs_shaping(data: Any) -> bool:
    """Whether some text of `data` is in a script that must be shaped and ordered (`fonts.needs_shaping`)."""
    return fonts.needs_shaping(_texts(data))


def _texts(data: Any) -> Iterator[str]:
    return (text(string) for string in _strings(data))


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


class RecordPdf(FPDF):
    """fpdf2's document with a record's page furniture: the test-mode banner, the footer, and the events
    table's column headings repeated on each new page."""

    id_label, record_id, test_mode, with_fallback = "", "", False, False
    time_width = 0.0  # the events table's time column, once the table starts (`time_width`)
    words: Words
    table_heading: Callable[[RecordPdf], None] | None = None
    drawn: frozenset[int] | None = None  # the fonts' code points; others are drawn as `fonts.substitute`

    def normalize_text(self, text: str) -> str:
        """The text with the characters no font has replaced, for measuring and drawing alike."""
        return super().normalize_text(fonts.replaced(text, self.drawn) if self.drawn is not None else text)

    def set_font(self, family: str | None = None, style: str | TextEmphasis = "", size: float = 0) -> None:
        super().set_font(family, style, size)
        # fpdf2 (2.8.9) puts a font on the page with the first text drawn in it, but inside that text's q/Q when
        # the text starts with a fallback-font character: the text after it would be drawn in the font the page
        # had before (garbled, or not at all). Putting it on the page at once avoids that.
        font = self.current_font
        if self.with_fallback and self.page and font and not self.current_font_is_set_on_page:
            self._out(self._set_font_for_page(font, self.font_size_pt))

    def header(self) -> None:
        if self.test_mode:
            self.set_fill_color(*RED)
            self.set_text_color(255)
            self.set_font(FAMILY, "B", 10)
            self.set_xy(MARGIN, 14)
            self.cell(self.epw, 20, self.words("record.test_mode"), align="C", fill=True)
            self.set_text_color(0)
            self.set_xy(MARGIN, TOP)
        if self.table_heading:
            self.table_heading(self)

    def footer(self) -> None:
        self.set_text_color(*GREY)
        self.set_font(FAMILY, "", 8)
        self.set_xy(MARGIN, self.h - BOTTOM + 16)
        self.cell(self.epw / 2, LINE, f"{self.id_label}: {self.record_id}")
        page_of = self.words("record.page", page=self.page_no(), pages=PAGES)
        # fpdf2 keeps the room of PAGES for the count and draws the count at one side of it; the count ends the
        # sentence in every catalogue, so the room it does not fill goes after it as the sentence reads: to its
        # right in a left-to-right one, to its left in a right-to-left one, and never between it and the words.
        rtl = self.text_shaping and bidi.auto_detect_base_direction(page_of) == TextDirection.RTL
        self.alias_nb_pages_align = Align.R if rtl else Align.L
        self.cell(self.epw / 2, LINE, page_of, align="R")
        self.set_text_color(0)


def open_document(
    title: str,
    id_label: str,
    record_id: str,
    words: Words,
    *,
    test_mode: bool,
    font_paths: FontPaths,
    generated_at: datetime,
    shaped: bool = False,
) -> RecordPdf:
    """A document with its first page added; `title` is its metadata title, `id_label` and `record_id` the footer's;
    `shaped` (`needs_shaping`) runs its text through HarfBuzz, for right-to-left and complex scripts."""
    pdf = RecordPdf(unit="pt", format="A4")
    pdf.id_label, pdf.record_id, pdf.test_mode, pdf.words = id_label, record_id, test_mode, words
    pdf.alias_nb_pages(PAGES)
    pdf.set_margins(MARGIN, TOP, MARGIN)
    pdf.set_auto_page_break(True, BOTTOM)
    regular, bold, fallbacks = font_paths
    font_cache.add_font(pdf, FAMILY, regular)
    font_cache.add_font(pdf, FAMILY, bold, "B")
    for number, path in enumerate(fallbacks):
        font_cache.add_font(pdf, f"{FALLBACK}{number}", path)
    if fallbacks:
        pdf.set_fallback_fonts([f"{FALLBACK}{number}" for number in range(len(fallbacks))], exact_match=False)
        pdf.with_fallback = True
    if shaped:
        pdf.set_text_shaping(True)
    pdf.drawn = drawn(font_paths)
    pdf.set_title(line(title))
    pdf.set_creator("signsvc")
    pdf.set_creation_date(generated_at)
    pdf.add_page()
    return pdf


def title_block(pdf: FPDF, heading: str, title: str) -> None:
    """The record's heading ("Audit Log") and, when there is one, its title below."""
    pdf.set_font(FAMILY, "B", 18)
    pdf.cell(0, 24, heading, new_x="LMARGIN", new_y="NEXT")
    if title:
        pdf.set_font(FAMILY, "", 12)
        pdf.multi_cell(0, 16, title, align="L", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(4)


def section(pdf: FPDF, heading: str, room: float = 3 * LINE) -> None:
    """A section heading, underlined; on a new page unless `room` is left below it."""
    pdf.ln(8)
    pdf.set_font(FAMILY, "B", 11)
    if pdf.will_page_break(_height(pdf, pdf.epw, heading, HEADING_LINE) + room):
        pdf.add_page()
    pdf.multi_cell(0, HEADING_LINE, heading, align="L", new_x="LMARGIN", new_y="NEXT")
    pdf.set_draw_color(*GREY)
    pdf.line(pdf.l_margin, pdf.y, pdf.l_margin + pdf.epw, pdf.y)
    pdf.ln(3)


def row(
    pdf: FPDF,
    label: str,
    value: str,
    *,
    label_width: float = LABEL_WIDTH,
    bold_label: bool = True,
    fill: bool = False,
    link: str | None = None,
) -> None:
    """A label and its value side by side, both wrapped; kept on one page unless taller than one."""
    label_style, value_width = "B" if bold_label else "", pdf.epw - label_width
    pdf.set_font(FAMILY, label_style, SIZE)
    label_height = _height(pdf, label_width, label)
    pdf.set_font(FAMILY, "", SIZE)
    value_height = _height(pdf, value_width, value)
    if pdf.will_page_break(max(label_height, value_height)):
        pdf.add_page()
    top, page = pdf.y, pdf.page
    if fill:
        pdf.set_fill_color(*LIGHT)
        pdf.rect(pdf.l_margin, top, pdf.epw, max(label_height, value_height), style="F")
    pdf.set_font(FAMILY, label_style, SIZE)
    _text_box(pdf, label_width, label, label_height)
    pdf.set_xy(pdf.l_margin + label_width, top)
    pdf.set_font(FAMILY, "", SIZE)
    _text_box(pdf, value_width, value, value_height, link)
    if pdf.page == page:
        pdf.set_y(top + max(label_height, value_height))
    pdf.set_x(pdf.l_margin)


def rows(pdf: FPDF, details: Iterable[tuple[str, Any]]) -> None:
    """A row for each (label, value) whose value isn't empty, the value on one line."""
    for label, value in details:
        if value := line(value):
            row(pdf, label, value)


def events_table(pdf: RecordPdf, events: list[tuple[datetime, str]]) -> None:
    """The "Event Log" section: a row per event, its time in UTC beside its text."""
    section(pdf, pdf.words("record.event_log"), room=2 * LINE + 8)
    pdf.time_width = time_width(pdf)
    _event_columns(pdf)
    pdf.table_heading = _event_columns
    for number, (time, event) in enumerate(events):
        shown = pdf.words.shown(time)
        row(pdf, shown, event or "-", label_width=pdf.time_width, bold_label=False, fill=number % 2 == 1)
    pdf.table_heading = None


def time_width(pdf: RecordPdf) -> float:
    """The time column's width: its widest time in the record's language (`Words.widest_times`) or its heading,
    measured in the record's fonts, with the cells' margins and `TIME_GAP`, so a time stays on one line and apart
    from its event."""
    pdf.set_font(FAMILY, "", SIZE)
    widest = max(pdf.get_string_width(time) for time in pdf.words.widest_times())
    pdf.set_font(FAMILY, "B", SIZE)
    widest = max(widest, pdf.get_string_width(pdf.words("record.time")))
    return math.ceil(widest + 2 * pdf.c_margin + TIME_GAP)


def _event_columns(pdf: RecordPdf) -> None:
    pdf.set_font(FAMILY, "B", SIZE)
    pdf.set_fill_color(*LIGHT)
    pdf.cell(pdf.time_width, LINE + 4, pdf.words("record.time"), fill=True)
    pdf.cell(0, LINE + 4, pdf.words("record.event"), fill=True, new_x="LMARGIN", new_y="NEXT")


def _text_box(pdf: FPDF, width: float, value: str, height: float, link: str | None = None) -> None:
    """`value` wrapped to `width`; a single line as a cell, which costs a third of a multi_cell."""
    if height == LINE:
        pdf.cell(width, LINE, value, link=link or "")
    else:
        pdf.multi_cell(width, LINE, value, align="L", link=link, new_x="LMARGIN", new_y="NEXT")


def _height(pdf: FPDF, width: float, value: str, line_height: float = LINE) -> float:
    """The height `value` takes wrapped to `width` in the current font; one line needs no trial run."""
    if "\n" not in value and pdf.get_string_width(value) <= width - 2 * pdf.c_margin:
        return line_height
    return float(
        pdf.multi_cell(
            width,
            line_height,
            value,
            align="L",
            dry_run=True,  # type: ignore[arg-type]
            output="HEIGHT",
        )
    )


def read_events(events: Any, record: str) -> list[tuple[datetime, str]]:
    """The events (`[{"time": ISO 8601, "text": str}]`) in time order; those of the same time keep their order."""
    return sorted(
        (
            (utc(event.get("time"), f"events[{number}].time", record), text(event.get("text")))
            for number, event in enumerate(events or [])
        ),
        key=lambda item: item[0],
    )


def utc(value: Any, where: str, record: str) -> datetime:
    """The ISO 8601 time at `where` in the record's data, in UTC; PdfError naming `where` when it isn't one."""
    try:
        time = value if isinstance(value, datetime) else datetime.fromisoformat(value)
    except (TypeError, ValueError):
        raise PdfError(f"The {record}'s {where} is not an ISO 8601 time: {value!r}") from None
    return time.replace(tzinfo=UTC) if time.tzinfo is None else time.astimezone(UTC)


def text(value: Any) -> str:
    """The value as text that draws: tabs as spaces, other control and format characters dropped."""
    if value is None:
        return ""
    drawn = str(value).replace("\r\n", "\n").replace("\t", " ")
    return "".join(char for char in drawn if char == "\n" or unicodedata.category(char) not in ("Cc", "Cf", "Cs"))


def line(value: Any) -> str:
    """The value as text on one line: runs of whitespace, line breaks included, as one space."""
    return " ".join(text(value).split())
