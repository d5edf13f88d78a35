"""Fixture: a timestamp server (RFC 3161) for PAdES B-T, pyHanko's test TSA behind a real local HTTP server.

Registered for every tier by tests/conftest.py (`pytest_plugins`).
"""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from asn1crypto import keys as asn1_keys
from asn1crypto import tsp
from asn1crypto import x509 as asn1_x509
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import ExtendedKeyUsageOID
from pyhanko.sign import timestamps

from tests.support.seals import SIGNED_AT, self_signed


@pytest.fixture(scope="module")
def tsa() -> Iterator[dict[str, Any]]:
    """The server's `url`, the pyHanko `stamper` behind it and its certificate (`cert_pem`); every
    timestamp it gives is SIGNED_AT plus two seconds."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    certificate = self_signed(
        key, "signsvc test TSA", (x509.ExtendedKeyUsage([ExtendedKeyUsageOID.TIME_STAMPING]), True)
    )
    stamper = timestamps.DummyTimeStamper(
        tsa_cert=asn1_x509.Certificate.load(certificate.public_bytes(serialization.Encoding.DER)),
        tsa_key=asn1_keys.PrivateKeyInfo.load(
            key.private_bytes(
                serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            )
        ),
        fixed_dt=SIGNED_AT + timedelta(seconds=2),
    )

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            assert self.headers["Content-Type"] == "application/timestamp-query"
            request = tsp.TimeStampReq.load(self.rfile.read(int(self.headers["Content-Length"])))
            reply = stamper.request_tsa_response(request).dump()
            self.send_response(200)
            self.send_header("Content-Type", "application/timestamp-reply")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield {
        "url": f"http://127.0.0.1:{server.server_address[1]}/tsa",
        "stamper": stamper,
        "cert_pem": certificate.public_bytes(serialization.Encoding.PEM).decode(),
    }
    server.shutdown()
    server.server_close()
    thread.join()
