"""Where font files are looked for; light enough for the server process to check at start (the engines use it too).

Each font is looked for in the configured font directory (`SIGNSVC_FONT_DIR`, recursively) first, then in
the Debian package's directory, then in the usual system font directories (`FONT_DIRS`). The CJK font
has one more place, after all those: the `noto-cjk-sans-otc` package (`packaged_cjk_font`).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

FONT_DIRS = ("/usr/share/fonts", "/usr/local/share/fonts", "~/.local/share/fonts", "~/.fonts", "/Library/Fonts",
             "/System/Library/Fonts", "C:/Windows/Fonts")
TEXT = ("DejaVuSans.ttf",)
CJK = ("DroidSansFallbackFull.ttf", "DroidSansFallback.ttf")
# Where the Debian packages put them: looked at before walking every font directory.
PACKAGE_DIRS = ("/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/truetype/droid")
_SUFFIXES = {".ttf", ".otf"}


def locate(names: Iterable[str], font_dir: str | None = None) -> str | None:
    """The first file called one of `names`: in `font_dir`, then the package directories, then FONT_DIRS."""
    wanted = [name.lower() for name in names]
    for dirs in ([font_dir] if font_dir else [], PACKAGE_DIRS, FONT_DIRS):
        files = {path.name.lower(): path for directory in dirs for path in font_files(Path(directory).expanduser())}
        if found := next((files[name] for name in wanted if name in files), None):
            return str(found)
    return None


def packaged_cjk_font() -> str | None:
    """Noto Sans CJK (a collection, .ttc: its first font is used) from the `noto-cjk-sans-otc` package, or None."""
    try:
        from noto_cjk_sans_otc import FONT_PATH  # type: ignore[import-not-found,import-untyped,unused-ignore]
    except ImportError:
        return None
    return str(FONT_PATH) if Path(str(FONT_PATH)).is_file() else None


def no_text_font(font_dir: str | None = None) -> str | None:
    """What to install when no text font can be found (the service can't fill documents), else None."""
    if locate(TEXT, font_dir):
        return None
    where = f"{font_dir} or " if font_dir else ""
    return (f"No usable text font: put DejaVuSans.ttf in {where}a system font directory "
            "(Debian: apt-get install fonts-dejavu-core)")


def font_files(directory: Path) -> list[Path]:
    if not directory.is_dir():
        return []
    try:
        return sorted(path for path in directory.rglob("*") if path.suffix.lower() in _SUFFIXES and path.is_file())
    except OSError:  # an unreadable subdirectory: use what else there is
        return []
