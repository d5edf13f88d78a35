"""Submissions and submitters: sending a template, signing it, following it to its end."""
