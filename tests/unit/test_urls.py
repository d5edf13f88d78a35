"""The public addresses: each link under the site URL, with its path prefix if it has one, and a trailing slash of
the setting read as none."""

import pytest

from signsvc.infra.config import Config
from signsvc.infra.urls import Urls, file_path


@pytest.mark.parametrize(
    "site_url, site",
    [
        ("https://sign.example.com", "https://sign.example.com"),
        ("https://sign.example.com/", "https://sign.example.com"),
        ("https://example.com/sign", "https://example.com/sign"),
        ("https://example.com/sign/", "https://example.com/sign"),
    ],
)
def test_every_public_address_is_built_under_the_site_url(site_url, site):
    for urls in (Urls(site_url), Urls(Config(site_url=site_url).site)):
        assert urls.site == site
        assert urls.api() == f"{site}/api"
        assert urls.signing_form("Ab12") == f"{site}/s/Ab12"
        assert urls.embedded_form("Ab12") == f"{site}/apiemb/Ab12"
        assert urls.documents_page("slug.1800000000.sig") == f"{site}/e/slug.1800000000.sig"
        assert urls.file("uuid.1800000000.sig", "Contract 1.pdf") == f"{site}/file/uuid.1800000000.sig/Contract%201.pdf"
        assert urls.clickwrap("Cw34") == f"{site}/c/Cw34"
        assert urls.console_link("setup", "tok") == f"{site}/console/setup/tok"


def test_a_file_path_is_relative_to_the_site_and_quotes_the_name():
    assert file_path("uuid.1.sig", "résumé #2.pdf") == "/file/uuid.1.sig/r%C3%A9sum%C3%A9%20%232.pdf"


def test_the_host_names_the_emails_sender_and_https_marks_cookies_secure():
    assert (Urls("https://sign.example.com:8443/x").host, Urls("https://sign.example.com").secure) == (
        "sign.example.com",
        True,
    )
    assert (Urls("http://127.0.0.1:3000").host, Urls("http://127.0.0.1:3000").secure) == ("127.0.0.1", False)
