"""Clickwraps and the consents recorded against their versions."""
