"""Page geometry: the displayed page (CropBox clipped to the MediaBox, turned by /Rotate) and relative areas.

Areas are relative (0..1) to the displayed page, from its top-left corner, as pdfium and pdf.js show it.
`Frame.matrix` maps an upright page of the displayed size into the page's user space;
filling draws through it, and reading fields goes back through its inverse.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

LETTER = (0.0, 0.0, 612.0, 792.0)  # what viewers assume when a page has no usable MediaBox


@dataclass(frozen=True)
class Frame:
    llx: float
    lly: float
    urx: float
    ury: float
    rotate: int  # 0, 90, 180 or 270, clockwise as displayed

    @property
    def width(self) -> float:
        return self.ury - self.lly if self.rotate in (90, 270) else self.urx - self.llx

    @property
    def height(self) -> float:
        return self.urx - self.llx if self.rotate in (90, 270) else self.ury - self.lly

    @property
    def matrix(self) -> tuple[float, float, float, float, float, float]:
        """(a, b, c, d, e, f) from displayed points (origin bottom-left) to the page's user space."""
        return {
            0: (1.0, 0.0, 0.0, 1.0, self.llx, self.lly),
            90: (0.0, 1.0, -1.0, 0.0, self.urx, self.lly),
            180: (-1.0, 0.0, 0.0, -1.0, self.urx, self.ury),
            270: (0.0, -1.0, 1.0, 0.0, self.llx, self.ury),
        }[self.rotate]

    def relative(self, rect: list[float]) -> dict[str, float] | None:
        """A user-space rect as `{x, y, w, h}` on the displayed page, clamped; None when none of it shows."""
        a, b, c, d, e, f = self.matrix
        corners = [(x, y) for x in (rect[0], rect[2]) for y in (rect[1], rect[3])]
        # A quarter-turn matrix is orthonormal: its inverse is its transpose.
        xs = [a * (x - e) + b * (y - f) for x, y in corners]
        ys = [c * (x - e) + d * (y - f) for x, y in corners]
        # Edges are rounded before the sizes are taken, so x + w and y + h never pass 1.
        left, right = _unit(min(xs) / self.width), _unit(max(xs) / self.width)
        top, bottom = _unit(1 - max(ys) / self.height), _unit(1 - min(ys) / self.height)
        if right <= left or bottom <= top:
            return None
        return {"x": left, "y": top, "w": round(right - left, 6), "h": round(bottom - top, 6)}


def frame(page: Any) -> Frame:
    """The displayed frame of a pypdf page (pypdf has already pushed inherited boxes and /Rotate down)."""
    media = _box(page.get("/MediaBox")) or LETTER
    crop = _intersection(_box(page.get("/CropBox")) or media, media) or media
    return Frame(*crop, rotate=_quarter_turns(page.get("/Rotate")) * 90)


def numbers(value: Any, count: int = 4) -> list[float] | None:
    """`count` finite numbers from a PDF array, or None when it isn't one."""
    value = value.get_object() if value is not None else None
    if not isinstance(value, list) or len(value) != count:
        return None
    try:
        result = [float(item.get_object()) for item in value]
    except (TypeError, ValueError, AttributeError):
        return None
    return result if all(math.isfinite(n) for n in result) else None


def _box(value: Any) -> tuple[float, float, float, float] | None:
    rect = numbers(value)
    if rect is None:
        return None
    box = (min(rect[0], rect[2]), min(rect[1], rect[3]), max(rect[0], rect[2]), max(rect[1], rect[3]))
    return box if box[2] > box[0] and box[3] > box[1] else None


def _intersection(a: tuple[float, ...], b: tuple[float, ...]) -> tuple[float, float, float, float] | None:
    box = (max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3]))
    return box if box[2] > box[0] and box[3] > box[1] else None


def _quarter_turns(value: Any) -> int:
    """/Rotate as 0..3 quarter turns; like pdfium, truncate odd angles and wrap negative ones."""
    try:
        return int(float(value.get_object()) / 90) % 4 if value is not None else 0
    except (TypeError, ValueError, AttributeError, OverflowError):
        return 0


def _unit(value: float) -> float:
    return round(min(max(value, 0.0), 1.0), 6)
