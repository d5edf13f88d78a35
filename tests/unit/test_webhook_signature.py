"""Webhook signatures: the verification function receivers use, and the published test
vectors in docs/webhooks.md."""

import re

import pytest
from multidict import CIMultiDict

from signsvc.webhooks.signature import InvalidSignature, sign, verify
from tests.support.paths import ROOT

DOC = ROOT / "docs" / "webhooks.md"


def vectors() -> list[dict[str, str]]:
    """The test vectors as docs/webhooks.md publishes them."""
    blocks = re.findall(r"#### Test vector \d+[^\n]*\n\n```text\n(.*?)\n```", DOC.read_text(), re.DOTALL)
    return [dict(line.split(None, 1) for line in block.splitlines()) for block in blocks]


def headers(vector, **changes):
    return {"X-Service-Timestamp": vector["timestamp"], "X-Service-Signature": vector["signature"], **changes}


def test_the_docs_publish_two_vectors():
    assert len(vectors()) == 2


@pytest.mark.parametrize("vector", vectors())
def test_the_published_vectors_are_what_signsvc_signs_and_verifies(vector):
    body = vector["body"].encode()
    assert sign(vector["secret"], int(vector["timestamp"]), body) == vector["signature"]
    assert verify(vector["secret"], body, headers(vector), now=int(vector["timestamp"])) == int(vector["timestamp"])


def test_the_timestamp_tolerance_is_five_minutes_either_way():
    vector = vectors()[0]
    body, timestamp = vector["body"].encode(), int(vector["timestamp"])
    for now in (timestamp + 300, timestamp - 300):
        verify(vector["secret"], body, headers(vector), now=now)
    for now in (timestamp + 301, timestamp - 301):
        with pytest.raises(InvalidSignature, match="more than 300 seconds from now"):
            verify(vector["secret"], body, headers(vector), now=now)


@pytest.mark.parametrize("change", ["body", "secret", "timestamp", "signature"])
def test_any_change_fails_verification(change):
    vector = vectors()[0]
    body, secret, timestamp = vector["body"].encode(), vector["secret"], int(vector["timestamp"])
    given = headers(vector)
    if change == "body":
        body = body.replace(b'"id":55', b'"id":56')
    elif change == "secret":
        secret = secret[:-1] + "x"
    elif change == "timestamp":
        given["X-Service-Timestamp"] = str(timestamp + 1)
    else:
        given["X-Service-Signature"] = "v1=" + "0" * 64
    with pytest.raises(InvalidSignature, match="does not match"):
        verify(secret, body, given, now=timestamp)


def test_headers_are_found_in_any_case_and_one_matching_signature_of_several_is_enough():
    vector = vectors()[0]
    given = {
        "x-service-timestamp": vector["timestamp"],
        "x-service-signature": "v1=" + "0" * 64 + ", " + vector["signature"],
    }
    assert verify(vector["secret"], vector["body"].encode(), given, now=int(vector["timestamp"]))
    assert verify(vector["secret"], vector["body"].encode(), CIMultiDict(given), now=int(vector["timestamp"]))


@pytest.mark.parametrize(
    "given,message",
    [
        ({}, "are required"),
        ({"X-Service-Timestamp": "1767268800"}, "are required"),
        ({"X-Service-Timestamp": "soon", "X-Service-Signature": "v1=00"}, "not a Unix time"),
    ],
)
def test_missing_or_malformed_headers_fail(given, message):
    with pytest.raises(InvalidSignature, match=message):
        verify("secret", b"{}", given, now=1767268800)
