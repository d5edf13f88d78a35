"""What counts as an email address (`signsvc.submissions.inputs.is_email`): one bare address that mail headers
read as exactly that address."""

import pytest

from signsvc.submissions.inputs import is_email


@pytest.mark.parametrize(
    "address",
    [
        "ann@example.com",
        "Ann.Smith@Example.COM",
        "ann+contracts@example.com",
        "first.middle.last@example.com",
        "o'brien@example.ie",
        "user_name-1@mail.sub-domain.example.co.uk",
        "x@xn--bcher-kva.example",
        "jörg@bücher.example",
        "用户@例子.广告",
        "अजय@उदाहरण.भारत",
        "ann@1.2.3.4",
        "abc..def@docomo.ne.jp",
        "abc.@ezweb.ne.jp",  # dots as Japanese carriers issued them
    ],
)
def test_real_addresses_pass(address):
    assert is_email(address)


@pytest.mark.parametrize(
    "address",
    [
        "grp:evil@evil.test",  # a group named grp, in a header
        '"ann@evil.test"@example.com',
        "ann(comment)@example.com",
        "<ann@example.com>",
        "Ann <ann@example.com>",
        "ann@example.com,bob@example.com",
        "ann;bob@example.com",
        "ann\\bob@example.com",
        "ann@example.com\n",
        "ann@example.com\r\nBcc: eve@evil.test",
        "ann smith@example.com",
        "ann\u00a0smith@example.com",
        "ann\u202e@example.com",
        "ann\u200b@example.com",
        "ann@example",
        "ann@",
        "@example.com",
        "ann@@example.com",
        "ann@bob@example.com",
        "ann@[127.0.0.1]",
        "ann@-example.com",
        "ann@example-.com",
        "ann@example..com",
        "ann@example.com.",
        "ann@exa_mple.com",
        "a" * 245 + "@example.com",
    ],
)
def test_anything_else_is_not_an_email_address(address):
    assert not is_email(address)
