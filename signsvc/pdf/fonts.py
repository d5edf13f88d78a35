"""Fonts the PDF engines write with: Unicode text fonts for filled values, a handwriting-like one for typed signatures.

How fonts are found (`signsvc.pdf.font_files`; `check()` runs it at start): the configured font directory
first, then the fonts the service's Python packages bring (Noto Sans for Latin, Greek and Cyrillic; Noto Sans
Arabic, Heebo for Hebrew, Noto Sans Devanagari, Noto Sans Thai and Noto Sans CJK as fallbacks, each loaded into
a document only when one of its strings has a character the fonts before it lack). Text in a right-to-left or
complex script is shaped by HarfBuzz and laid out in reading order (`needs_shaping`). A character no font has
is drawn as a visible substitute (`SUBSTITUTE`, else "?"), with a warning logged; the audit log then says so
(`code_points`, in a record's note), so a document is never refused for a name.
"""

from __future__ import annotations

import functools
import logging
import unicodedata
from collections.abc import Iterable
from pathlib import Path

from signsvc.pdf import font_files as locations
from signsvc.pdf.errors import PdfError
from signsvc.pdf.font_files import FONT_DIRS, SCRIPT_SAMPLES, TEXT, font_files, locate, no_text_font

log = logging.getLogger(__name__)
SUBSTITUTE = "\u25a1"  # WHITE SQUARE (DejaVu Sans and Noto Sans CJK have it): what a character no font has is drawn as
__all__ = ["FONT_DIRS", "SCRIPT_SAMPLES", "TEXT", "locate", "no_text_font"]

# Most wanted first: DocuSeal types signatures in Dancing Script.
HANDWRITING = ("dancingscript", "script", "hand", "cursive")
FALLBACK = "dejavusans-oblique"


class MissingFont(PdfError):
    """A font the output needs is not installed; the message names it and the package that brings it."""


@functools.cache
def signature_font(extra_dir: str | None = None) -> str | None:
    """The path of the font to use, looking in `extra_dir` first; None means Pillow's own font.

    Cached: a worker walks the font directories once, not for every signature.
    """
    return find(([extra_dir] if extra_dir else []) + list(FONT_DIRS))


def find(dirs: Iterable[str]) -> str | None:
    """The best font file in `dirs`: the first handwriting kind found, else DejaVu Sans Oblique."""
    files = [path for directory in dirs for path in font_files(Path(directory).expanduser())]
    for wanted in (*HANDWRITING, FALLBACK):
        if found := next((path for path in files if wanted in _plain(path.stem)), None):
            return str(found)
    return None


def text_font(font_dir: str | None = None) -> str | None:
    """The path of the text font (DejaVu Sans from the font directory, else the packaged Noto Sans), or None."""
    return locations.text_font(font_dir)


def fallback_fonts(font_dir: str | None = None) -> tuple[str, ...]:
    """The fallback fonts in the order they are tried (`font_files.fallback_fonts`)."""
    return locations.fallback_fonts(font_dir)


@functools.cache
def coverage(path: str) -> frozenset[int]:
    """The code points a font has glyphs for; read once per process (its cmap only, by HarfBuzz)."""
    try:
        drawn = locations.coverage(path)
    except Exception as error:  # HarfBuzz raises on a file it can't open
        raise MissingFont(f"The font file {path} can't be read: {error}") from error
    if not drawn:
        raise MissingFont(f"The font file {path} can't be read: it has no characters")
    return drawn


def needs_shaping(texts: Iterable[str]) -> bool:
    """Whether some text is in a script that must be shaped and ordered (Hebrew to Myanmar, Arabic's
    presentation forms): only then is a document's text run through HarfBuzz, which costs time."""
    return any(0x0590 <= ord(char) < 0x1100 or 0xFB1D <= ord(char) <= 0xFEFC for text in texts for char in text)


def fallbacks_for(
    texts: Iterable[str], drawn: frozenset[int], font_dir: str | None
) -> tuple[list[str], frozenset[int]]:
    """The fallback fonts `texts` need beside the fonts drawing `drawn`, in the order they are tried (each only when
    it has a character the fonts before it lack), and the code points all of them draw. When some character is
    still lacking, a font that has SUBSTITUTE comes along, to draw it visibly."""
    chosen, texts = [], list(texts)
    needed = {ord(char) for char in undrawable(texts, drawn)}
    for path in fallback_fonts(font_dir):
        if needed & (coverage(path) - drawn):
            chosen.append(path)
            drawn = drawn | coverage(path)
    marking = next((path for path in fallback_fonts(font_dir) if ord(SUBSTITUTE) in coverage(path)), None)
    if undrawable(texts, drawn) and ord(SUBSTITUTE) not in drawn and marking:
        chosen.append(marking)
        drawn = drawn | coverage(marking)
    return chosen, drawn


def check(font_dir: str | None = None) -> str:
    """The text font's path once it has been read; MissingFont saying what to install when there is none.

    Run at start, so that a server without fonts fails there rather than at its first completed document.
    """
    path = text_font(font_dir)
    if path is None:
        raise MissingFont(no_text_font(font_dir))
    coverage(path)
    return path


def substitute(drawn: frozenset[int]) -> str:
    """What a character no font has is drawn as: SUBSTITUTE when the fonts have it, else "?"."""
    return SUBSTITUTE if ord(SUBSTITUTE) in drawn else "?"


def undrawable(texts: Iterable[str], drawn: frozenset[int]) -> list[str]:
    """The characters of `texts` that none of the fonts (`drawn`, their code points) has, in code point order;
    spaces, control and format characters (and lone surrogates) are not drawn, so never lacking."""
    return sorted(
        {
            char
            for text in texts
            for char in text
            if ord(char) not in drawn and not char.isspace() and unicodedata.category(char) not in ("Cc", "Cf", "Cs")
        },
        key=ord,
    )


def replaced(text: str, drawn: frozenset[int]) -> str:
    """`text` with each of its `undrawable` characters as `substitute`."""
    if not (lacking := set(undrawable([text], drawn))):
        return text
    return "".join(substitute(drawn) if char in lacking else char for char in text)


def warn_replaced(lacking: list[str], where: str) -> None:
    log.warning(
        "%s: characters no installed font can draw are drawn as a substitute: %s",
        where,
        ", ".join(f"{char} (U+{ord(char):04X})" for char in lacking),
    )


def code_points(lacking: list[str]) -> str:
    """The replaced characters as a record's note names them: by code point (the characters can't be drawn)."""
    return ", ".join(f"U+{ord(char):04X}" for char in lacking)


def drawable_scripts(font_dir: str | None = None) -> tuple[str, ...]:
    """The scripts (SCRIPT_SAMPLES) whose sample character the text font or a fallback font has; once per process."""
    return locations.scripts(font_dir)


def _plain(name: str) -> str:
    return name.lower().replace(" ", "").replace("_", "")
