"""Fonts the PDF engines write with: Unicode text fonts for filled values, a handwriting-like one for typed signatures.

How fonts are found (documented for installers; `check()` runs it at start):
- text: DejaVu Sans (`DejaVuSans.ttf`; Debian `fonts-dejavu-core`), for Latin, Greek and Cyrillic;
- fallback: Droid Sans Fallback (`DroidSansFallbackFull.ttf`; Debian `fonts-droid-fallback`), else Noto Sans
  CJK from the `noto-cjk-sans-otc` package (a dependency, so a default install draws CJK), for CJK,
  loaded into a document only when one of its strings has a character DejaVu lacks;
- a character no font found has is drawn as a visible substitute (`SUBSTITUTE`, else "?"), with a warning
  logged; the audit log then says so (`replacement_note`), so a document is never refused for a name;
- each is looked for as `signsvc.pdf.font_files` says: the configured font directory first, then the Debian
  package's directory, then the system font directories. Copying the files into the configured
  directory makes the output independent of the system.
"""

from __future__ import annotations

import functools
import logging
import unicodedata
from collections.abc import Iterable
from pathlib import Path

from signsvc.pdf.errors import PdfError
from signsvc.pdf.font_files import CJK, FONT_DIRS, TEXT, font_files, locate, no_text_font, packaged_cjk_font

log = logging.getLogger(__name__)
SUBSTITUTE = "\u25a1"  # WHITE SQUARE, in DejaVu Sans: what a character no font has is drawn as
# One character of each script a name or value may be written in: the scripts the fonts can draw.
SCRIPT_SAMPLES = {"Latin": "Ł", "Greek": "Ω", "Cyrillic": "Ж", "Armenian": "Ա", "Georgian": "ა", "Hebrew": "א",
                  "Arabic": "م", "Devanagari": "क", "Bengali": "অ", "Thai": "ก", "Hangul": "한", "CJK": "山",
                  "Kana": "あ", "Ethiopic": "አ", "Emoji": "\U0001f600"}

# Most wanted first: DocuSeal types signatures in Dancing Script.
HANDWRITING = ("dancingscript", "script", "hand", "cursive")
FALLBACK = "dejavusans-oblique"


class MissingFont(PdfError):
    """A font the output needs is not installed; the message names it and its Debian package."""


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


@functools.cache
def text_font(font_dir: str | None = None) -> str | None:
    """The path of DejaVu Sans, or None; cached per process like the walk it makes."""
    return locate(TEXT, font_dir)


@functools.cache
def fallback_font(font_dir: str | None = None) -> str | None:
    """The path of the CJK fallback font: Droid Sans Fallback when installed, else the packaged Noto Sans CJK."""
    return locate(CJK, font_dir) or packaged_cjk_font()


@functools.cache
def coverage(path: str) -> frozenset[int]:
    """The code points a font has glyphs for; read once per process (its cmap only, not the whole font)."""
    from fontTools.ttLib import TTFont

    try:
        with open(path, "rb") as file:
            # fontNumber: the first font of a collection (.ttc); ignored for a single font.
            return frozenset(TTFont(file, lazy=True, fontNumber=0).getBestCmap() or {})
    except Exception as error:  # fontTools raises many types on a file that is not a font
        raise MissingFont(f"The font file {path} can't be read: {error}") from error


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
    return sorted({char for text in texts for char in text if ord(char) not in drawn and not char.isspace()
                   and unicodedata.category(char) not in ("Cc", "Cf", "Cs")}, key=ord)


def replaced(text: str, drawn: frozenset[int]) -> str:
    """`text` with each of its `undrawable` characters as `substitute`."""
    if not (lacking := set(undrawable([text], drawn))):
        return text
    return "".join(substitute(drawn) if char in lacking else char for char in text)


def warn_replaced(lacking: list[str], where: str) -> None:
    log.warning("%s: characters no installed font can draw are drawn as a substitute: %s", where,
                ", ".join(f"{char} (U+{ord(char):04X})" for char in lacking))


def replacement_note(lacking: list[str], drawn: frozenset[int]) -> str:
    """The audit log's line naming the replaced characters by code point (the characters themselves can't be drawn)."""
    return (f"Characters that no installed font can draw were replaced with {substitute(drawn)}: "
            + ", ".join(f"U+{ord(char):04X}" for char in lacking))


@functools.cache
def drawable_scripts(font_dir: str | None = None) -> tuple[str, ...]:
    """The scripts (SCRIPT_SAMPLES) whose sample character DejaVu Sans or the fallback font has; once per process."""
    paths = [path for path in (text_font(font_dir), fallback_font(font_dir)) if path]
    drawn = frozenset[int]().union(*(coverage(path) for path in paths))
    return tuple(script for script, sample in SCRIPT_SAMPLES.items() if ord(sample) in drawn)


def _plain(name: str) -> str:
    return name.lower().replace(" ", "").replace("_", "")
