"""Which addresses count as the public internet (downloads and, with SIGNSVC_WEBHOOK_PUBLIC_ONLY, webhooks)."""

import pytest

from signsvc.infra import addresses


@pytest.mark.parametrize(
    "address,public",
    [
        ("127.0.0.1", False),
        ("10.1.2.3", False),
        ("172.16.0.1", False),
        ("192.168.1.1", False),
        ("169.254.169.254", False),
        ("100.64.0.1", False),
        ("0.0.0.0", False),
        ("224.0.0.1", False),
        ("240.0.0.1", False),
        ("255.255.255.255", False),
        ("::1", False),
        ("::", False),
        ("fe80::1", False),
        ("fc00::1", False),
        ("fd12:3456::1", False),
        ("ff02::1", False),
        ("::ffff:127.0.0.1", False),
        ("::ffff:169.254.169.254", False),
        ("::ffff:10.0.0.1", False),
        ("8.8.8.8", True),
        ("1.1.1.1", True),
        ("2001:4860:4860::8888", True),
        ("::ffff:8.8.8.8", True),
    ],
)
def test_only_public_addresses_pass_the_address_check(address, public):
    assert addresses.is_public(address) is public


@pytest.mark.parametrize(
    "address,public",
    [
        ("::127.0.0.1", False),
        ("::10.0.0.1", False),
        ("::169.254.169.254", False),  # IPv4-compatible
        ("::ffff:192.168.1.1", False),
        ("::ffff:100.64.0.1", False),  # IPv4-mapped
        ("64:ff9b::127.0.0.1", False),
        ("64:ff9b::10.0.0.1", False),
        ("64:ff9b::169.254.169.254", False),  # NAT64
        ("64:ff9b:1::8.8.8.8", False),  # local-use NAT64: whatever the local translator reaches
        ("2002:7f00:1::", False),
        ("2002:a00:1::1", False),
        ("2002:a9fe:a9fe::", False),  # 6to4
        ("2001:0:4136:e378:8000:63bf:3fff:fdd2", False),  # Teredo
        ("::8.8.8.8", True),
        ("64:ff9b::8.8.8.8", True),
        ("2002:808:808::1", True),
    ],
)
def test_a_private_ipv4_address_is_not_public_in_any_ipv6_form(address, public):
    assert addresses.is_public(address) is public
