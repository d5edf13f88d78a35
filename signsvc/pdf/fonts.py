"""The font typed signatures are written in: a handwriting-like one when installed, else a plain oblique."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Iterable

FONT_DIRS = ("/usr/share/fonts", "/usr/local/share/fonts", "~/.local/share/fonts", "~/.fonts", "/Library/Fonts",
             "/System/Library/Fonts", "C:/Windows/Fonts")
# Most wanted first: DocuSeal types signatures in Dancing Script.
HANDWRITING = ("dancingscript", "script", "hand", "cursive")
FALLBACK = "dejavusans-oblique"
_SUFFIXES = {".ttf", ".otf"}


@functools.cache
def signature_font(extra_dir: str | None = None) -> str | None:
    """The path of the font to use, looking in `extra_dir` first; None means Pillow's own font.

    Cached: a worker walks the font directories once, not for every signature.
    """
    return find(([extra_dir] if extra_dir else []) + list(FONT_DIRS))


def find(dirs: Iterable[str]) -> str | None:
    """The best font file in `dirs`: the first handwriting kind found, else DejaVu Sans Oblique."""
    files = [path for directory in dirs for path in _font_files(Path(directory).expanduser())]
    for wanted in (*HANDWRITING, FALLBACK):
        if found := next((path for path in files if wanted in _plain(path.stem)), None):
            return str(found)
    return None


def _font_files(directory: Path) -> list[Path]:
    if not directory.is_dir():
        return []
    try:
        return sorted(path for path in directory.rglob("*") if path.suffix.lower() in _SUFFIXES and path.is_file())
    except OSError:  # an unreadable subdirectory: use what else there is
        return []


def _plain(name: str) -> str:
    return name.lower().replace(" ", "").replace("_", "")
