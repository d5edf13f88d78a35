"""Whether an IP address belongs to the public internet: what downloads and webhook deliveries may connect to
when private networks are refused (server-side request forgery)."""

from __future__ import annotations

import ipaddress

_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
# RFC 8215's local-use NAT64 prefix translates to whatever the local network's translator reaches.
_LOCAL_NAT64 = ipaddress.IPv6Network("64:ff9b:1::/48")


def is_public(address: str) -> bool:
    """Whether an IP address belongs to the public internet (not loopback, private, link-local and so on),
    judged also by the IPv4 address an IPv6 form carries, which is where a connection to it goes."""
    ip = ipaddress.ip_address(address)
    if isinstance(ip, ipaddress.IPv6Address):
        carried = _carried_ipv4(ip)
        if ip in _LOCAL_NAT64 or (carried is not None and not _is_global(carried)):
            return False
    return _is_global(ip)


def _carried_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address in an IPv6 form that carries one: IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible
    (::a.b.c.d, deprecated), NAT64 (64:ff9b::a.b.c.d), 6to4 (2002:aabb:ccdd::) and Teredo (its client)."""
    if ip.packed[:12] == bytes(12) or ip in _NAT64:
        return ipaddress.IPv4Address(ip.packed[12:])
    if ip.teredo:
        return ip.teredo[1]
    return ip.ipv4_mapped or ip.sixtofour


def _is_global(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    # is_global leaves out loopback, RFC 1918, fc00::/7, link-local (so cloud metadata at
    # 169.254.169.254), unspecified, reserved, documentation and CGNAT 100.64/10; not multicast.
    return ip.is_global and not ip.is_multicast


def is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True
