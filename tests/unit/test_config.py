"""Configuration from SIGNSVC_* variables."""

import pytest

from signsvc.infra.config import Config, ConfigError, from_env


def test_defaults_follow_the_operational_contract():
    config = from_env({})
    assert (config.host, config.port, config.database_url) == ("127.0.0.1", 3000, "sqlite:///data/signsvc.sqlite3")
    assert (config.rate_limit_per_key, config.rate_limit_per_ip) == (600, 1200)
    assert config.site == "http://127.0.0.1:3000"


def test_variables_are_read():
    config = from_env(
        {
            "SIGNSVC_PORT": "8080",
            "SIGNSVC_SITE_URL": "https://sign.example.com/",
            "SIGNSVC_RATE_LIMIT_PER_KEY": "0",
            "SIGNSVC_TRUSTED_PROXIES": "10.0.0.1, 10.0.0.2",
            "SIGNSVC_API_KEY": "k",
        }
    )
    assert config.port == 8080 and config.site == "https://sign.example.com"
    assert config.rate_limit_per_key == 0 and config.api_key == "k"
    assert config.trusted_proxies == frozenset({"10.0.0.1", "10.0.0.2"})


def test_empty_variables_count_as_unset():
    assert from_env({"SIGNSVC_PORT": "", "SIGNSVC_API_KEY": " "}) == Config()


@pytest.mark.parametrize(
    "variable,value",
    [
        ("SIGNSVC_PORT", "http"),
        ("SIGNSVC_RATE_LIMIT_PER_IP", "-1"),
        ("SIGNSVC_MAX_BODY_BYTES", "1e6"),
        ("SIGNSVC_PDF_WARM_UP", "later"),
    ],
)
def test_invalid_values_name_the_variable(variable, value):
    with pytest.raises(ConfigError, match=variable):
        from_env({variable: value})


def test_the_pdf_pool_warms_up_at_start_unless_told_not_to():
    assert from_env({}).pdf_warm_up and not from_env({"SIGNSVC_PDF_WARM_UP": "false"}).pdf_warm_up


def test_flags_replace_only_what_they_set():
    config = from_env({"SIGNSVC_PORT": "8080"}).replace(host="0.0.0.0", port=None)
    assert (config.host, config.port) == ("0.0.0.0", 8080)


def test_an_smtp_url_that_cannot_be_used_stops_the_start_naming_the_variable():
    with pytest.raises(ConfigError, match=r"^SIGNSVC_SMTP_URL must start with smtp:// or smtps://"):
        from_env({"SIGNSVC_SMTP_URL": "ftp://mail.example.com"})
    assert from_env({"SIGNSVC_SMTP_URL": "smtps://u:p@mail.example.com"}).smtp_url == "smtps://u:p@mail.example.com"


def test_workers_default_to_one_process_and_must_be_at_least_one():
    assert from_env({}).workers == 1 and from_env({"SIGNSVC_WORKERS": "4"}).workers == 4
    with pytest.raises(ConfigError, match=r"^SIGNSVC_WORKERS must be at least 1"):
        from_env({"SIGNSVC_WORKERS": "0"})


def test_files_live_in_the_directory_by_default_in_the_database_in_memory_and_in_object_storage_when_named():
    assert from_env({}).content_store == "directory"
    assert from_env({"SIGNSVC_DATABASE_URL": "sqlite:///:memory:"}).content_store == "database"
    assert from_env({"SIGNSVC_FILE_STORE": "database"}).content_store == "database"
    assert from_env({"SIGNSVC_STORAGE_URL": "s3://files/signsvc"}).content_store == "s3://files/signsvc"


@pytest.mark.parametrize(
    "environ,message",
    [
        (
            {"SIGNSVC_STORAGE_URL": "https://files.example.com"},
            "^SIGNSVC_STORAGE_URL='https://files.example.com' is not an"
            " object store: use s3://bucket or s3://bucket/prefix$",
        ),
        ({"SIGNSVC_STORAGE_URL": "s3://"}, "^SIGNSVC_STORAGE_URL='s3://' is not an object store"),
        (
            {"SIGNSVC_STORAGE_URL": "s3://My_Files/x"},
            r"^SIGNSVC_STORAGE_URL='s3://My_Files/x': 'My_Files' is not a "
            r"bucket name \(3 to 63 lowercase letters",
        ),
        (
            {"SIGNSVC_STORAGE_URL": "s3://files", "SIGNSVC_FILE_STORE": "database"},
            "^SIGNSVC_STORAGE_URL and SIGNSVC_FILE_STORE name two places for files: set one$",
        ),
        ({"SIGNSVC_STORAGE_PRESIGNED_LINKS": "true"}, "^SIGNSVC_STORAGE_PRESIGNED_LINKS needs files in object storage"),
        ({"SIGNSVC_RETENTION_DAYS": "-1"}, "^SIGNSVC_RETENTION_DAYS must not be negative$"),
        ({"SIGNSVC_PUBLIC_STARTS_PER_LINK": "-1"}, "^SIGNSVC_PUBLIC_STARTS_PER_LINK must not be negative$"),
        ({"SIGNSVC_PUBLIC_STARTS_PER_ADDRESS": "-1"}, "^SIGNSVC_PUBLIC_STARTS_PER_ADDRESS must not be negative$"),
        ({"SIGNSVC_CONSENTS_PER_CLICKWRAP": "-1"}, "^SIGNSVC_CONSENTS_PER_CLICKWRAP must not be negative$"),
        ({"SIGNSVC_CONSENTS_PER_ADDRESS": "-1"}, "^SIGNSVC_CONSENTS_PER_ADDRESS must not be negative$"),
        ({"SIGNSVC_EMAILS_PER_RECIPIENT_HOUR": "-1"}, "^SIGNSVC_EMAILS_PER_RECIPIENT_HOUR must not be negative$"),
        ({"SIGNSVC_JOB_LEASE_SECONDS": "1"}, r"^SIGNSVC_JOB_LEASE_SECONDS must be 3 to 86400 \(seconds\)$"),
    ],
)
def test_settings_for_several_hosts_that_cannot_be_used_stop_the_start_naming_the_variable(environ, message):
    with pytest.raises(ConfigError, match=message):
        from_env(environ)


def test_the_public_pages_caps_default_far_below_the_apis_limits_and_are_read_from_the_environment():
    default = from_env({})
    assert (
        default.public_starts_per_link,
        default.public_starts_per_address,
        default.consents_per_clickwrap,
        default.consents_per_address,
        default.emails_per_recipient_hour,
    ) == (20, 10, 60, 10, 10)
    changed = from_env(
        {
            "SIGNSVC_PUBLIC_STARTS_PER_LINK": "5",
            "SIGNSVC_PUBLIC_STARTS_PER_ADDRESS": "0",
            "SIGNSVC_CONSENTS_PER_CLICKWRAP": "7",
            "SIGNSVC_CONSENTS_PER_ADDRESS": "2",
            "SIGNSVC_EMAILS_PER_RECIPIENT_HOUR": "3",
        }
    )
    assert (
        changed.public_starts_per_link,
        changed.public_starts_per_address,
        changed.consents_per_clickwrap,
        changed.consents_per_address,
        changed.emails_per_recipient_hour,
    ) == (5, 0, 7, 2, 3)


def test_slow_clients_get_15_s_for_a_request_head_and_must_send_a_body_at_1024_bytes_a_second_over_10_s():
    config = from_env({})
    assert (config.header_timeout_seconds, config.body_min_rate, config.body_rate_window_seconds) == (15, 1024, 10)
    config = from_env(
        {
            "SIGNSVC_HEADER_TIMEOUT_SECONDS": "0.5",
            "SIGNSVC_BODY_MIN_RATE": "0",
            "SIGNSVC_BODY_RATE_WINDOW_SECONDS": "60",
        }
    )
    assert (config.header_timeout_seconds, config.body_min_rate, config.body_rate_window_seconds) == (0.5, 0, 60)


@pytest.mark.parametrize(
    "variable,value,message",
    [
        (
            "SIGNSVC_HEADER_TIMEOUT_SECONDS",
            "0",
            r"^SIGNSVC_HEADER_TIMEOUT_SECONDS must be more than 0 and at most 3600",
        ),
        (
            "SIGNSVC_HEADER_TIMEOUT_SECONDS",
            "nan",
            r"^SIGNSVC_HEADER_TIMEOUT_SECONDS must be more than 0 and at most 3600",
        ),
        (
            "SIGNSVC_BODY_RATE_WINDOW_SECONDS",
            "3601",
            r"^SIGNSVC_BODY_RATE_WINDOW_SECONDS must be more than 0 and at most",
        ),
        ("SIGNSVC_BODY_MIN_RATE", "-1", "^SIGNSVC_BODY_MIN_RATE must not be negative$"),
        ("SIGNSVC_BODY_MIN_RATE", "1.5", r"^SIGNSVC_BODY_MIN_RATE='1.5' is not a valid value$"),
    ],
)
def test_slow_client_settings_that_cannot_be_used_stop_the_start_naming_the_variable(variable, value, message):
    with pytest.raises(ConfigError, match=message):
        from_env({variable: value})


def test_the_site_url_scheme_is_read_in_lower_case():
    assert from_env({"SIGNSVC_SITE_URL": "HTTPS://Sign.Example.com/"}).site == "https://Sign.Example.com"
    assert Config(site_url="Http://sign.example.com").site == "http://sign.example.com"


@pytest.mark.parametrize(
    "environ,public_only",
    [
        ({}, False),  # the site is http://127.0.0.1:3000
        ({"SIGNSVC_SITE_URL": "https://sign.example.com"}, True),
        ({"SIGNSVC_HOST": "0.0.0.0"}, True),
        ({"SIGNSVC_SITE_URL": "http://localhost:8080"}, False),
        ({"SIGNSVC_SITE_URL": "http://[::1]:8080"}, False),
        ({"SIGNSVC_SITE_URL": "https://sign.example.com", "SIGNSVC_TESTING": "1"}, False),
        ({"SIGNSVC_SITE_URL": "https://sign.example.com", "SIGNSVC_WEBHOOK_PUBLIC_ONLY": "false"}, False),
        ({"SIGNSVC_WEBHOOK_PUBLIC_ONLY": "true"}, True),
    ],
)
def test_webhooks_go_only_to_public_addresses_unless_the_site_is_on_a_loopback_address_or_testing(environ, public_only):
    assert from_env(environ).public_webhooks_only is public_only
