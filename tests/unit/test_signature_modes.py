"""The formats table of signature fields, and where a signature's caption goes beside or below it."""

import pytest

from signsvc.pdf import fill
from signsvc.pdf.fill import Box, Mark
from signsvc.submissions import signature_modes
from signsvc.templates import signature_preferences


def signature(**preferences) -> dict:
    return {"uuid": "u", "name": "Signature", "type": "signature", "preferences": preferences}


@pytest.mark.parametrize(
    ("format", "offered", "without_typing"),
    [
        (None, ("drawn", "typed", "upload"), ("drawn", "upload")),
        ("drawn", ("drawn",), ("drawn",)),
        ("typed", ("typed",), ("typed",)),
        ("drawn_or_typed", ("drawn", "typed"), ("drawn",)),
        ("drawn_or_upload", ("drawn", "upload"), ("drawn", "upload")),
        ("upload", ("upload",), ("upload",)),
        ("typed_or_upload", ("typed", "upload"), ("typed", "upload")),
    ],
)
def test_each_format_offers_the_modes_of_the_table_and_the_account_setting_only_removes_typing_among_others(
    format, offered, without_typing
):
    field = signature(**({"format": format} if format else {}))
    assert signature_modes.modes(field) == offered
    assert signature_modes.modes(field, typed_allowed=False) == without_typing
    assert signature_modes.offers_phone(field) == ("drawn" in offered)


def test_the_formats_the_templates_accept_are_the_tables():
    assert set(signature_preferences.FORMATS) == {key for key in signature_modes.FORMATS if key}


def test_initials_take_every_mode_whatever_their_format():
    initials = {**signature(format="drawn"), "type": "initials"}
    assert signature_modes.modes(initials, typed_allowed=False) == ("drawn", "typed", "upload")


def test_a_caption_goes_beside_the_signature_in_a_wide_area_and_below_it_otherwise():
    wide = fill._captioned(Mark("image", Box(0, 0, 100, 20), "file"), ["ID: x"])
    assert [mark.box for mark in wide] == [Box(0, 0, 50, 20), Box(50, 0, 50, 20)]
    narrow = fill._captioned(Mark("image", Box(0, 0, 80, 20), "file"), ["ID: x"])
    assert [mark.box for mark in narrow] == [Box(0, 0, 80, 10), Box(0, 10, 80, 10)]
    assert narrow[1].content == "ID: x"
    assert fill._captioned(Mark("image", Box(0, 0, 80, 20), "file"), None) == [Mark("image", Box(0, 0, 80, 20), "file")]
