"""The kit for test suites that use signsvc in place of the hosted e-signature service.

    from signsvc.testing import running

    with running() as service:          # in this process: SQLite in memory, fixed keys, webhooks captured
        docuseal.url, docuseal.key = service.api_url, service.key
        ...
        service.sign_as(submitter, {"Full Name": "Ann"})
        service.wait_for_webhook("submission.completed")

With pytest the `signsvc` fixture gives such a service, started once per session and reset before each
test (`signsvc.testing.plugin`, loaded by pytest on its own once signsvc is installed). `connect(url,
key)` drives a signsvc started elsewhere with SIGNSVC_TESTING=1.
"""

from signsvc.testing.service import LIVE_KEY, TEST_KEY, Service, TestingError, connect, running

__all__ = ["LIVE_KEY", "TEST_KEY", "Service", "TestingError", "connect", "running"]
