"""Hosted pages (HTML), rendered from the Jinja2 templates in `pages/`."""
