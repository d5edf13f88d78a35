"""The translation catalogue of the pages, emails and records: every language has every string, every string is
used, and the language is chosen as the submitter and the browser ask."""

import re
import string
from pathlib import Path

import pytest
from aiohttp.test_utils import make_mocked_request

import pages
import signsvc
from signsvc.http.web import catalogue, signing
from signsvc.submissions import signing_form

ENGLISH = catalogue.strings("en")
SOURCES = [
    *Path(pages.TEMPLATES_DIR).rglob("*.html"),
    *Path(pages.EMAILS_DIR).glob("*.*"),
    *Path(signing.__file__).parent.rglob("*.py"),
    *Path(pages.STATIC_DIR).glob("*.js"),
]
# Where else keys are used: the modules that compose emails and records (whose other dotted names, job kinds and
# webhook events, are no keys).
USERS = [*SOURCES, *(path for path in Path(signsvc.__file__).parent.rglob("*.py") if path not in SOURCES)]
# Keys a page builds from a value: the signing form's states, the documents page's statuses.
BUILT = {
    f"{state}.{part}"
    for state in (
        signing_form.AWAITING,
        signing_form.COMPLETED,
        signing_form.DECLINED,
        signing_form.EXPIRED,
        signing_form.ARCHIVED,
    )
    for part in ("title", "body")
} | {f"documents.status.{status}" for status in ("pending", "completed", "declined", "expired")}
# Prefixes of keys the console builds from a value: what a post did (`?done=`), why a link is unusable.
BUILT_PREFIXES = ("console.done.", "console.link.")


def placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_there_is_a_catalogue_for_each_of_the_nine_languages():
    assert catalogue.languages() == {"en", "de", "fr", "es", "it", "pt", "nl", "pl", "ar"}


@pytest.mark.parametrize("language", sorted(catalogue.languages() - {"en"}))
def test_every_catalogue_has_every_english_string_with_the_same_placeholders(language):
    translated = catalogue.own(language)
    assert translated.keys() == ENGLISH.keys()
    assert {key: placeholders(text) for key, text in translated.items()} == {
        key: placeholders(text) for key, text in ENGLISH.items()
    }


def quoted_keys(sources: list[Path]) -> set[str]:
    text = "\n".join(path.read_text() for path in sources)
    return set(re.findall(r"""["'`]([a-z_]+(?:\.[a-z0-9_]+)+)["'`]""", text))


def test_every_string_of_the_catalogue_is_used_and_every_string_used_is_in_it():
    quoted = quoted_keys(USERS)
    assert {
        key for key in ENGLISH if key not in BUILT and not key.startswith(BUILT_PREFIXES) and key not in quoted
    } == set()
    families = {key.split(".")[0] for key in ENGLISH}
    used = {
        key
        for key in quoted_keys(SOURCES)
        if key.split(".")[0] in families and not key.endswith((".html", ".js", ".css"))
    }
    assert used - ENGLISH.keys() == set()


# The families of the keys the emails and records use, which the modules composing them quote as they are.
COMPOSED = ("email.", "audit_log.", "record.", "consent_certificate.")
COMPOSERS = [
    Path(signsvc.__file__).parent / area
    for area in ("results", "clickwraps", "accounts", "submissions", "pdf", "infra")
]


def test_every_key_of_an_email_or_a_record_used_outside_the_pages_is_in_the_catalogue():
    used = {
        key
        for key in quoted_keys([path for area in COMPOSERS for path in area.rglob("*.py")])
        if key.startswith(COMPOSED)
    }
    assert len(used) > 80  # the audit log's sentences, the certificate's, every email's
    assert used - ENGLISH.keys() == set()


@pytest.mark.parametrize(
    "preferred,accept,expected",
    [
        (("de",), "en", "de"),
        ((None, "de-AT"), "", "de"),
        ((), "ja;q=0.9, de;q=0.8", "de"),
        ((), "ja, en;q=0.5, de;q=0.7", "de"),
        ((), "de;q=0, ja", "en"),
        (("xx",), "", "en"),
    ],
)
def test_the_language_is_the_submitters_then_the_browsers_by_weight_then_english(preferred, accept, expected):
    request = make_mocked_request("GET", "/s/x", headers={"Accept-Language": accept})
    assert catalogue.language(request, preferred) == expected
