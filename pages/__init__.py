"""Jinja2 templates of the hosted pages and emails, and the pages' static assets.

The template environments are made on first use, once per process: a service that renders no page or email (a
fake in a test suite, say) never loads Jinja2. The app registers both with aiohttp-jinja2
(signsvc/http/web/templating.py); the mailer composes with the emails' one.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import jinja2

TEMPLATES_DIR = Path(__file__).parent / "templates"
EMAILS_DIR = Path(__file__).parent / "emails"
STATIC_DIR = Path(__file__).parent / "static"
CATALOGUE_DIR = Path(__file__).parent / "i18n"


@functools.cache
def page_templates() -> jinja2.Environment:
    """The pages' templates, every value escaped."""
    import jinja2

    return jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES_DIR), autoescape=True)


@functools.cache
def email_templates() -> jinja2.Environment:
    """The emails' templates: text and HTML, values escaped in HTML; an unknown variable is an error."""
    import jinja2

    return jinja2.Environment(loader=jinja2.FileSystemLoader(EMAILS_DIR), autoescape=jinja2.select_autoescape(["html"]),
                              undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
