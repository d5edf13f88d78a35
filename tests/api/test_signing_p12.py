"""Bring your own certificate through the app's start: `SIGNSVC_SIGNING_P12` loads legacy and modern files
and their chain travels in every signature; each unusable file stops the start with one error naming its
problem. The pure loading is in tests/pdf/test_pdf_pkcs12.py, a real `python run.py` process in
tests/process/test_signing_p12.py."""

from __future__ import annotations

import base64
import io
import re

import pytest
from aiohttp import web
from cryptography.hazmat.primitives import serialization
from pyhanko.pdf_utils.reader import PdfFileReader

from signsvc.http.appkeys import WORKER
from signsvc.infra.config import ConfigError
from signsvc.pdf import p12_diagnosis
from tests.support import pkcs12_files as files
from tests.support.app import START, Api
from tests.support.results import completed_submission, fetch
from tests.support.system import CJK_FONT


def broken(kind: str, tmp_path) -> bytes:
    chain = files.acme_chain()
    return {
        "not_pkcs12": lambda: b"%PDF-1.7 not a certificate",
        "broken_mac": lambda: files.broken_mac(files.modern(chain)),
        "no_key": lambda: files.certificates_only(chain),
        "encipher_only": lambda: files.modern(files.acme_chain(files.ENCIPHER_ONLY_USAGE)),
        "tls_server_only": lambda: files.modern(files.acme_chain(files.SIGNING_USAGE, files.TLS_SERVER_ONLY)),
        "expired": lambda: files.modern(files.acme_chain(valid=(START.replace(year=2024), START.replace(year=2025)))),
        "not_yet_valid": lambda: files.modern(
            files.acme_chain(valid=(START.replace(year=2027), START.replace(year=2030)))
        ),
    }[kind]()


@pytest.mark.parametrize(
    "kind, password, message",
    [
        ("not_pkcs12", files.PASSWORD, p12_diagnosis.NOT_PKCS12),
        ("broken_mac", files.PASSWORD, p12_diagnosis.BROKEN_MAC),
        ("broken_mac", "wrong", p12_diagnosis.UNREADABLE),
        ("no_key", files.PASSWORD, "The PKCS#12 file holds no private key (export it with its private key)"),
        ("encipher_only", files.PASSWORD, "The PKCS#12 certificate's key usage does not allow signing documents"),
        ("tls_server_only", files.PASSWORD, "The PKCS#12 certificate's extended key usage (serverAuth) does not"),
        ("expired", files.PASSWORD, "The PKCS#12 certificate has expired: its validity ended 2025-01-01 12:00 UTC"),
        ("not_yet_valid", files.PASSWORD, "The PKCS#12 certificate is not valid yet: its validity starts 2027-01-01"),
    ],
)
async def test_each_unusable_pkcs12_stops_the_start_with_one_error_naming_its_problem(
    make_app, tmp_path, kind, password, message
):
    path = tmp_path / "acme.p12"
    path.write_bytes(broken(kind, tmp_path))
    runner = web.AppRunner(make_app(signing_p12=str(path), signing_p12_password=password))
    try:
        with pytest.raises(ConfigError) as refusal:
            await runner.setup()
    finally:
        await runner.cleanup()
    assert str(refusal.value).startswith(f"SIGNSVC_SIGNING_P12={path}: {message}")
    assert "\n" not in str(refusal.value)


def legacy_or_modern(kind: str, chain: list[files.Issued], tmp_path) -> bytes:
    if kind == "rc2":
        return files.rc2(chain, tmp_path)
    return files.triple_des(chain) if kind == "3des" else files.modern(chain)


@CJK_FONT
@pytest.mark.parametrize("kind", ["3des", pytest.param("rc2", marks=files.OPENSSL)])  # modern: test_signing_identity
async def test_a_legacy_or_modern_pkcs12_signs_and_its_intermediate_is_in_the_signature(
    aiohttp_client, make_app, tmp_path, kind
):
    path = tmp_path / "acme.p12"
    chain = files.acme_chain()
    path.write_bytes(legacy_or_modern(kind, chain, tmp_path))
    api = Api(await aiohttp_client(make_app(signing_p12=str(path), signing_p12_password=files.PASSWORD)))
    found = await completed_submission(api, api.app[WORKER])
    data = await fetch(api, found["documents"][0]["url"])
    [signature] = PdfFileReader(io.BytesIO(data)).embedded_signatures
    carried = {c.chosen.dump() for c in signature.signed_data["certificates"]}
    leaf, intermediate, _ = chain
    assert intermediate.certificate.public_bytes(serialization.Encoding.DER) in carried
    assert leaf.certificate.public_bytes(serialization.Encoding.DER) in carried
    reply = await api.post("/api/tools/verify", json={"file": base64.b64encode(data).decode()})
    [report] = reply.json["signatures"]
    assert (report["trusted"], report["issued_by_service"]) == (True, True)
    assert re.fullmatch(r"[0-9a-f]{64}", report["certificate_sha256"])
