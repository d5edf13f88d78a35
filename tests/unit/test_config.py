"""Configuration from SIGNSVC_* variables."""

import pytest

from signsvc.infra.config import Config, ConfigError, from_env


def test_defaults_follow_the_operational_contract():
    config = from_env({})
    assert (config.host, config.port, config.database_url) == ("127.0.0.1", 3000, "sqlite:///data/signsvc.sqlite3")
    assert (config.rate_limit_per_key, config.rate_limit_per_ip) == (600, 1200)
    assert config.site == "http://127.0.0.1:3000"


def test_variables_are_read():
    config = from_env({"SIGNSVC_PORT": "8080", "SIGNSVC_SITE_URL": "https://sign.example.com/",
                       "SIGNSVC_RATE_LIMIT_PER_KEY": "0", "SIGNSVC_TRUSTED_PROXIES": "10.0.0.1, 10.0.0.2",
                       "SIGNSVC_API_KEY": "k"})
    assert config.port == 8080 and config.site == "https://sign.example.com"
    assert config.rate_limit_per_key == 0 and config.api_key == "k"
    assert config.trusted_proxies == frozenset({"10.0.0.1", "10.0.0.2"})


def test_empty_variables_count_as_unset():
    assert from_env({"SIGNSVC_PORT": "", "SIGNSVC_API_KEY": " "}) == Config()


@pytest.mark.parametrize("variable,value", [("SIGNSVC_PORT", "http"), ("SIGNSVC_RATE_LIMIT_PER_IP", "-1"),
                                            ("SIGNSVC_MAX_BODY_BYTES", "1e6")])
def test_invalid_values_name_the_variable(variable, value):
    with pytest.raises(ConfigError, match=variable):
        from_env({variable: value})


def test_flags_replace_only_what_they_set():
    config = from_env({"SIGNSVC_PORT": "8080"}).replace(host="0.0.0.0", port=None)
    assert (config.host, config.port) == ("0.0.0.0", 8080)


def test_an_smtp_url_that_cannot_be_used_stops_the_start_naming_the_variable():
    with pytest.raises(ConfigError, match="^SIGNSVC_SMTP_URL must start with smtp:// or smtps://"):
        from_env({"SIGNSVC_SMTP_URL": "ftp://mail.example.com"})
    assert from_env({"SIGNSVC_SMTP_URL": "smtps://u:p@mail.example.com"}).smtp_url == "smtps://u:p@mail.example.com"


def test_workers_default_to_one_process_and_must_be_at_least_one():
    assert from_env({}).workers == 1 and from_env({"SIGNSVC_WORKERS": "4"}).workers == 4
    with pytest.raises(ConfigError, match=r"^SIGNSVC_WORKERS must be at least 1"):
        from_env({"SIGNSVC_WORKERS": "0"})
