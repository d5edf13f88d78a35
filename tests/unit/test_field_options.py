"""Field options as pure rules: the mask, the Markdown of titles and descriptions, placeholders, date bounds."""

import json
import re
from datetime import UTC, date, datetime

import pytest

from signsvc.app import OPENAPI_PATH
from signsvc.http.web import field_display
from signsvc.infra import errors
from signsvc.pdf import colors, masks, value_text
from signsvc.submissions import field_options
from signsvc.templates import field_option_rules

SIGNER = field_options.Signer(7, "Ann Lee", "ann@example.com", "+49 30 1", "Buyer")
NOW = datetime(2026, 3, 5, 14, 7, 9, tzinfo=UTC)


@pytest.mark.parametrize(
    ("mask", "shown"),
    [
        (True, "XXXX-XXXX (XX)"),
        (4, "AB12-XXXX (XX)"),
        (-3, "XXXX-XXXX (Z9)"),
        (99, "XXXX-XXXX (XX)"),
        (False, "AB12-CD34 (Z9)"),
        (0, "AB12-CD34 (Z9)"),
    ],
)
def test_mask_keeps_spaces_and_punctuation_and_the_first_or_last_n_characters(mask, shown):
    assert masks.masked("AB12-CD34 (Z9)", mask) == shown


def test_placeholders_of_a_default_are_filled_for_the_signer_and_unknown_names_stay():
    text = field_options.placeholders(
        {"uuid": "u", "type": "text", "preferences": {"format": "MMMM D, YYYY"}},
        "{{name}} <{email}> {{role}} #{{id}} {{date}} {{time}} {{day}}.{{month}}.{{year}} {{hour}}:{{minute}} {{nope}}",
        SIGNER,
        NOW,
    )
    assert text == "Ann Lee <ann@example.com> Buyer #7 March 5, 2026 14:07:09 UTC 5.3.2026 14:7 {{nope}}"


def test_a_date_fields_today_placeholder_is_the_day_itself():
    assert field_options.resolved_default({"uuid": "u", "type": "date"}, "{date}", SIGNER, NOW) == "2026-03-05"


def test_date_bounds_read_today_placeholders_and_iso_dates():
    today = date(2026, 3, 5)
    rules = {"min": "{{date}}", "max": "2026-12-31"}
    date_field = {"uuid": "u", "type": "date", "validation": rules}
    assert field_options.bound_problem(date_field, "2026-03-03", today) == "must be on or after 04/03/2026"
    assert field_options.bound_problem(date_field, "2027-01-01", today) == "must be on or before 31/12/2026"
    assert field_options.bound_problem(date_field, "2026-03-04", today) is None, "a day's slack: the signer's today"
    assert field_options.bound_problem({**date_field, "validation": {"max": "{date}"}}, "2026-03-07", today) == (
        "must be on or before 06/03/2026"
    )


def test_markdown_renders_the_small_subset_and_escapes_any_html():
    assert str(field_display.inline("**a** *b* `c` <i>d</i>")) == (
        "<strong>a</strong> <em>b</em> <code>c</code> &lt;i&gt;d&lt;/i&gt;"
    )
    assert str(field_display.inline("[x](javascript:alert(1))")) == "[x](javascript:alert(1))"
    assert str(field_display.inline('[x](https://a.b/_c_?"q")')) == (
        '<a href="https://a.b/_c_?&#34;q&#34;" target="_blank" rel="noopener noreferrer">x</a>'
    )
    assert str(field_display.block("one\ntwo\n\n- a\n- b")) == "<p>one<br>two</p><ul><li>a</li><li>b</li></ul>"


def test_date_format_tokens_are_read_in_capitals_only_so_words_and_time_letters_are_kept():
    assert value_text.format_date("2026-03-05", "DD de MMMM de YYYY") == "05 de March de 2026"
    assert value_text.format_date("2026-03-05", "D.M.YY, mm") == "5.3.26, mm"


def test_color_names_resolve_to_the_hex_the_documents_draw():
    assert (colors.hex_of("Blue"), colors.hex_of("#C00"), colors.hex_of("orange")) == ("#1d4ed8", "#cc0000", None)
    assert field_display.color({"uuid": "u", "type": "text", "preferences": {"color": "red"}}) == "#dc2626"


def test_markdown_is_read_in_one_pass_and_its_marks_always_nest():
    assert str(field_display.inline("***a***")) == "<em><strong>a</strong></em>"
    assert str(field_display.inline("*a **b** c* and **unclosed *x")) == (
        "<em>a <strong>b</strong> c</em> and **unclosed *x"
    )
    assert str(field_display.inline("snake_case_name ``a`")) == "snake_case_name `<code>a</code>"
    # What a backtracking reading took seconds over (quadratic): read once, each mark left as written.
    assert str(field_display.block("*a " * 5_000)) == "<p>" + ("*a " * 5_000).strip() + "</p>"
    assert str(field_display.inline("[" * 5_000 + "`" * 5_000)) == "[" * 5_000 + "`" * 5_000


@pytest.mark.parametrize(
    ("format", "valid"),
    [
        ("DD/MM/YYYY", True),
        ("MMMM D, YY", True),
        ("YYYY-MM-DD", True),
        ("MMMM YYYY", False),
        ("dd/mm/yyyy", False),
        ("D M Y", False),
        ("", False),
    ],
)
def test_the_openapi_document_refuses_exactly_the_date_formats_the_service_refuses(format, valid):
    document = json.loads(OPENAPI_PATH.read_text())
    pattern = document["components"]["schemas"]["DatePreferences"]["properties"]["format"]["pattern"]
    assert pattern == field_option_rules.DATE_FORMAT_PATTERN
    refused = None
    try:
        field_option_rules.check_preferences({"format": format}, "date", ("preferences",))
    except errors.Invalid as error:
        refused = error
    assert (refused is None) is valid is bool(re.search(pattern, format))
