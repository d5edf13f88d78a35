"""What the test tiers share: fixtures (registered by tests/conftest.py), sample documents, local servers.

No tests live here; test modules import from these modules, never from one another.
"""
