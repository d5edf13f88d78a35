"""Fonts the PDF engines write with: Unicode text fonts for filled values, a handwriting-like one for typed signatures.

How fonts are found (documented for installers; `check()` runs it at start):
- text: DejaVu Sans (`DejaVuSans.ttf`; Debian `fonts-dejavu-core`), for Latin, Greek and Cyrillic;
- fallback: Droid Sans Fallback (`DroidSansFallbackFull.ttf`; Debian `fonts-droid-fallback`), for CJK,
  loaded into a document only when one of its strings has a character DejaVu lacks;
- each is looked for as `signsvc.pdf.font_files` says: the configured font directory first, then the Debian
  package's directory, then the system font directories. Copying the files into the configured
  directory makes the output independent of the system.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from pathlib import Path

from signsvc.pdf.errors import PdfError
from signsvc.pdf.font_files import CJK, FONT_DIRS, TEXT, font_files, locate, no_text_font

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
    """The path of the CJK fallback font, or None."""
    return locate(CJK, font_dir)


@functools.cache
def coverage(path: str) -> frozenset[int]:
    """The code points a font has glyphs for; read once per process (its cmap only, not the whole font)."""
    from fontTools.ttLib import TTFont

    try:
        with open(path, "rb") as file:
            return frozenset(TTFont(file, lazy=True).getBestCmap() or {})
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


def missing_cjk(char: str, font_dir: str | None = None) -> MissingFont:
    """The error for text with a character DejaVu lacks (`char`) when the CJK fallback font isn't installed."""
    where = f"{font_dir} or " if font_dir else ""
    return MissingFont(f"The text has characters DejaVu Sans lacks (U+{ord(char):04X}) and no fallback font is "
                       f"installed: put DroidSansFallbackFull.ttf in {where}a system font directory "
                       "(Debian: apt-get install fonts-droid-fallback)")


def _plain(name: str) -> str:
    return name.lower().replace(" ", "").replace("_", "")
