"""A link as a QR code (error correction H, as the reference's), an SVG data URI: tens of milliseconds of pure
Python (segno tries each of the eight masks), so it is made in the pool."""

from __future__ import annotations

import segno


def svg_data_uri(text: str) -> str:
    return str(segno.make(text, error="h", micro=False).svg_data_uri(scale=4, border=2))
