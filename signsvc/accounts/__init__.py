"""Accounts, users, API keys, authentication and rate limits."""
