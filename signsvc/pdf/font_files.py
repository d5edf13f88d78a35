"""Where font files are found and what they draw; light enough for the server process to use at start (the
engines use it too).

The fonts come with the Python packages the service depends on, so a machine without system fonts (a slim
container image) draws every script the documents need:
- text: Noto Sans (`fontpkg-noto-sans`: Latin, Greek, Cyrillic);
- fallbacks, in this order, each added to a document only when its text needs it: Noto Sans Arabic
  (`fontpkg-noto-sans-arabic`), Heebo (`fontpkg-heebo`: Hebrew), Noto Sans Devanagari
  (`fontpkg-noto-sans-devanagari`), Noto Sans Thai (`fontpkg-noto-sans-thai`) and Noto Sans CJK
  (`noto-cjk-sans-otc`, a collection whose first font is used).

The configured font directory (`SIGNSVC_FONT_DIR`, searched recursively) comes first: DejaVu Sans there
(`DejaVuSans.ttf`, with `DejaVuSans-Bold.ttf`) is the text font, Droid Sans Fallback there
(`DroidSansFallbackFull.ttf`) the CJK font. System fonts are used only that way (`SIGNSVC_FONT_DIR=/usr/share/fonts`),
so the documents look the same on every machine by default. Typed signatures also look for a handwriting
font in the system font directories (`FONT_DIRS`).
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Iterable
from pathlib import Path

FONT_DIRS = (
    "/usr/share/fonts",
    "/usr/local/share/fonts",
    "~/.local/share/fonts",
    "~/.fonts",
    "/Library/Fonts",
    "/System/Library/Fonts",
    "C:/Windows/Fonts",
)
TEXT = ("DejaVuSans.ttf",)
BOLD = ("DejaVuSans-Bold.ttf",)
CJK = ("DroidSansFallbackFull.ttf", "DroidSansFallback.ttf")
# (module, file under its files/ folder): the packaged text font, then the fallbacks in the order they are tried.
PACKAGED_TEXT = ("fontpkg_noto_sans", "NotoSans[wdth,wght].ttf")
PACKAGED_FALLBACKS = (
    ("fontpkg_noto_sans_arabic", "NotoSansArabic[wdth,wght].ttf"),
    ("fontpkg_heebo", "Heebo[wght].ttf"),
    ("fontpkg_noto_sans_devanagari", "NotoSansDevanagari[wdth,wght].ttf"),
    ("fontpkg_noto_sans_thai", "NotoSansThai[wdth,wght].ttf"),
)
# The distributions that bring them (setup.cfg's install_requires must name each).
FONT_PACKAGES = (
    "fontpkg-noto-sans",
    "fontpkg-noto-sans-arabic",
    "fontpkg-heebo",
    "fontpkg-noto-sans-devanagari",
    "fontpkg-noto-sans-thai",
    "noto-cjk-sans-otc",
    "uharfbuzz",
)
# One character of each script a name or value may be written in: the scripts the fonts can draw.
SCRIPT_SAMPLES = {
    "Latin": "Ł",
    "Greek": "Ω",
    "Cyrillic": "Ж",
    "Armenian": "Ա",
    "Georgian": "ა",
    "Hebrew": "א",
    "Arabic": "م",
    "Devanagari": "क",
    "Bengali": "অ",
    "Thai": "ก",
    "Hangul": "한",
    "CJK": "山",
    "Kana": "あ",
    "Ethiopic": "አ",
    "Emoji": "\U0001f600",
}
_SUFFIXES = {".ttf", ".otf"}


def locate(names: Iterable[str], font_dir: str | None = None) -> str | None:
    """The first file called one of `names` in `font_dir` (recursively), or None."""
    if not font_dir:
        return None
    wanted = [name.lower() for name in names]
    files = {path.name.lower(): path for path in font_files(Path(font_dir).expanduser())}
    return next((str(files[name]) for name in wanted if name in files), None)


@functools.cache
def text_font(font_dir: str | None = None) -> str | None:
    """DejaVu Sans from the font directory, else the packaged Noto Sans; None when neither is there."""
    return locate(TEXT, font_dir) or packaged(*PACKAGED_TEXT)


@functools.cache
def bold_font(font_dir: str | None = None) -> str | None:
    """DejaVu Sans Bold from the font directory, else None: the packaged Noto Sans is a variable font, and
    making its bold instance takes seconds, so the regular face stands in for it."""
    return locate(BOLD, font_dir)


@functools.cache
def fallback_fonts(font_dir: str | None = None) -> tuple[str, ...]:
    """The fallback fonts in the order they are tried: Arabic, Hebrew, Devanagari, Thai, then CJK (Droid Sans
    Fallback from the font directory, else the packaged Noto Sans CJK)."""
    found = [packaged(module, name) for module, name in PACKAGED_FALLBACKS]
    found.append(locate(CJK, font_dir) or packaged_cjk_font())
    return tuple(path for path in found if path)


def packaged(module: str, name: str) -> str | None:
    """The file `name` of a font package (`files/` beside its module), or None when it is not installed."""
    try:
        root = Path(importlib.import_module(module).__file__ or "").parent
    except ImportError:
        return None
    path = root / "files" / name
    return str(path) if path.is_file() else None


def packaged_cjk_font() -> str | None:
    """Noto Sans CJK (a collection, .ttc: its first font is used) from the `noto-cjk-sans-otc` package, or None."""
    try:
        from noto_cjk_sans_otc import FONT_PATH  # type: ignore[import-not-found,import-untyped,unused-ignore]
    except ImportError:
        return None
    return str(FONT_PATH) if Path(str(FONT_PATH)).is_file() else None


def no_text_font(font_dir: str | None = None) -> str | None:
    """What to install when no text font can be found (the service can't fill documents), else None."""
    if text_font(font_dir):
        return None
    where = f"put DejaVuSans.ttf in {font_dir}, or " if font_dir else ""
    return f"No usable text font: {where}install the fontpkg-noto-sans package (pip install fontpkg-noto-sans)"


@functools.cache
def coverage(path: str) -> frozenset[int]:
    """The code points a font (the first of a collection) has glyphs for, read by HarfBuzz: a millisecond even
    for a CJK font. Empty for a file that is not a font."""
    import uharfbuzz  # type: ignore[import-untyped,unused-ignore]

    return frozenset(uharfbuzz.Face(uharfbuzz.Blob.from_file_path(path), 0).unicodes)


@functools.cache
def scripts(font_dir: str | None = None) -> tuple[str, ...]:
    """The scripts (SCRIPT_SAMPLES) whose sample character the text font or a fallback font has: HarfBuzz looks
    each sample up in each font's cmap (well under a millisecond, so the server works it out before its ready
    line)."""
    import uharfbuzz  # type: ignore[import-untyped,unused-ignore]

    paths = [path for path in (text_font(font_dir), *fallback_fonts(font_dir)) if path]
    faces = [uharfbuzz.Font(uharfbuzz.Face(uharfbuzz.Blob.from_file_path(path), 0)) for path in paths]
    return tuple(
        script
        for script, sample in SCRIPT_SAMPLES.items()
        if any(face.get_nominal_glyph(ord(sample)) for face in faces)
    )


def font_files(directory: Path) -> list[Path]:
    if not directory.is_dir():
        return []
    try:
        return sorted(path for path in directory.rglob("*") if path.suffix.lower() in _SUFFIXES and path.is_file())
    except OSError:  # an unreadable subdirectory: use what else there is
        return []
