"""signsvc: a self-hostable electronic-signature service."""

__version__ = "0.1.0"
