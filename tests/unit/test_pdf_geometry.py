"""The displayed page and relative areas: reading and filling must agree."""

import pytest

from signsvc.pdf import geometry

BOX = (20.0, 30.0, 620.0, 830.0)  # 600 x 800, away from the origin like a CropBox


@pytest.mark.parametrize("rotate, size", [(0, (600, 800)), (90, (800, 600)), (180, (600, 800)), (270, (800, 600))])
def test_the_displayed_size_swaps_on_quarter_turns(rotate, size):
    frame = geometry.Frame(*BOX, rotate=rotate)
    assert (frame.width, frame.height) == size


@pytest.mark.parametrize("rotate", [0, 90, 180, 270])
def test_a_box_drawn_through_the_matrix_reads_back_as_the_same_area(rotate):
    """What filling draws at an area (via `matrix`) is where reading finds it (via its inverse)."""
    frame = geometry.Frame(*BOX, rotate=rotate)
    a, b, c, d, e, f = frame.matrix
    left, top, width, height = 0.1, 0.2, 0.3, 0.05  # relative, from the top-left
    corners = [
        (left * frame.width, (1 - top - height) * frame.height),
        ((left + width) * frame.width, (1 - top) * frame.height),
    ]
    (x0, y0), (x1, y1) = [(a * x + c * y + e, b * x + d * y + f) for x, y in corners]
    assert frame.relative([x0, y0, x1, y1]) == pytest.approx({"x": left, "y": top, "w": width, "h": height})


def test_rotate_90_puts_the_user_space_left_edge_at_the_top():
    frame = geometry.Frame(0, 0, 612, 792, rotate=90)
    assert frame.relative([0, 0, 10, 792]) == {"x": 0.0, "y": 0.0, "w": 1.0, "h": round(10 / 612, 6)}


def test_areas_are_clamped_to_the_page_and_vanish_outside_it():
    frame = geometry.Frame(*BOX, rotate=0)
    assert frame.relative([0, 0, 320, 830]) == {"x": 0.0, "y": 0.0, "w": 0.5, "h": 1.0}
    assert frame.relative([0, 0, 10, 10]) is None


def test_rounded_areas_never_pass_the_page_edge():
    """Template input refuses x + w > 1; rounding must not push an area touching the edge over it."""
    for size in (3, 7, 11, 595.28, 841.89):
        frame = geometry.Frame(0, 0, size, size, rotate=0)
        for start in (size / 3, size / 7, size * 0.1234565):
            place = frame.relative([start, 0, size, size - start])
            assert place["x"] + place["w"] <= 1 and place["y"] + place["h"] <= 1
