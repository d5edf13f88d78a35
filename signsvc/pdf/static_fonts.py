"""Static instances of the packaged variable fonts, for the HTML engine.

Given a variable font, WeasyPrint turns each weight a document uses into a static font with fontTools' instancer
every time it writes a PDF (about 100 ms a render for the packaged Noto Sans). Given static instances, it has
nothing to turn. HarfBuzz's instancer (uharfbuzz, a dependency for the fonts already) makes one in about 25 ms, so
they are made in memory, once per process and font and weight (the pool's forkserver makes them ahead for its
workers: `signsvc.pdf.preload`), rather than kept on disk.

Only `WEIGHTS` are made, at the fonts' normal width. CSS font matching gives a document asking for another weight
the nearest of them: 100 to 500 are drawn at 400, 600 to 900 at 700.
"""

from __future__ import annotations

import functools

WEIGHTS = (400, 700)
NORMAL_WIDTH = 100


@functools.cache
def instance(path: str, weight: int) -> bytes:
    """The font file at `path` with its weight axis pinned at `weight` and every other axis at its default (its
    normal width), every character, glyph feature and name kept."""
    import uharfbuzz as hb  # type: ignore[import-untyped,unused-ignore]

    face = hb.Face(hb.Blob.from_file_path(path))
    keep = hb.SubsetInput()
    for kept in (hb.SubsetInputSets.UNICODE, hb.SubsetInputSets.LAYOUT_FEATURE_TAG, hb.SubsetInputSets.NAME_ID):
        every = keep.sets(kept)
        every.clear()  # some hold defaults (the usual features, the first names)
        every.invert()  # the empty set inverted: all of them
    keep.pin_all_axes_to_default(face)
    axes = {axis.tag for axis in face.axis_infos}
    if "wght" in axes:
        keep.pin_axis_location(face, "wght", weight)
    if "wdth" in axes:
        keep.pin_axis_location(face, "wdth", NORMAL_WIDTH)
    made = hb.subset(face, keep)
    if made is None:
        raise ValueError(f"HarfBuzz made no instance of {path} at weight {weight}")
    return bytes(made.blob.data)
