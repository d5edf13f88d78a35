"""The service's signing identity: a chain generated once and kept in the
database, old certificates still trusted after a rotation, or a PKCS#12 given by configuration.

The `signing` commands and the server process's start with a PKCS#12 are in tests/process/test_signing_identity.py."""

import base64

import pytest
from aiohttp import web
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.serialization import pkcs12

import storage.results as stored
from signsvc.http.appkeys import RESULTS, WORKER
from signsvc.infra.config import ConfigError
from signsvc.pdf import certificates
from tests.support.app import START, Api
from tests.support.results import completed_submission, fetch
from tests.support.system import CJK_FONT


async def signing_certificate(api, worker) -> str:
    """The fingerprint of the certificate that signed a new completed submission's document."""
    found = await completed_submission(api, worker)
    data = await fetch(api, found["documents"][0]["url"])
    reply = await api.post("/api/tools/verify", json={"file": base64.b64encode(data).decode()})
    [signature] = reply.json["signatures"]
    assert signature["issued_by_service"], signature
    return signature["certificate_sha256"]


def p12(password: bytes | None) -> bytes:
    chain = certificates.generate("Acme Signing", "Acme", now=START)
    key = serialization.load_pem_private_key(chain["key_pem"].encode(), None)
    load = lambda pem: x509.load_pem_x509_certificate(pem.encode())  # noqa: E731
    encryption = serialization.BestAvailableEncryption(password) if password else serialization.NoEncryption()
    return pkcs12.serialize_key_and_certificates(
        b"acme", key, load(chain["cert_pem"]), [load(pem) for pem in chain["chain_pems"]], encryption
    )


@CJK_FONT
async def test_the_chain_is_generated_once_kept_in_the_database_and_used_by_every_process(
    api, worker, db, aiohttp_client, make_app
):
    assert await stored.certificates(db) == []  # nothing is generated before it is needed: a fast start
    first = await signing_certificate(api, worker)
    other = Api(await aiohttp_client(make_app()))  # another process on the same database
    assert await signing_certificate(other, worker) == first
    [kept] = await stored.certificates(db)
    assert (kept.sha256, kept.source, kept.key_pem is not None) == (first, "generated", True)


@CJK_FONT
async def test_after_a_rotation_new_documents_use_a_new_certificate_and_old_ones_still_verify(api, worker):
    before = await completed_submission(api, worker)
    old = await fetch(api, before["documents"][0]["url"])
    old_certificate = (await api.post("/api/tools/verify", json={"file": base64.b64encode(old).decode()})).json[
        "signatures"
    ][0]["certificate_sha256"]
    await api.app[RESULTS].identity.rotate()
    assert await signing_certificate(api, worker) != old_certificate
    body = (await api.post("/api/tools/verify", json={"file": base64.b64encode(old).decode()})).json
    assert body["issued_by_service"] and body["signatures"][0]["trusted"]


@CJK_FONT
async def test_a_configured_pkcs12_signs_and_is_trusted(aiohttp_client, make_app, tmp_path, db):
    path = tmp_path / "acme.p12"
    path.write_bytes(p12(b"s3cret"))
    configured = Api(await aiohttp_client(make_app(signing_p12=str(path), signing_p12_password="s3cret")))
    used = await signing_certificate(configured, configured.app[WORKER])
    [kept] = await stored.certificates(db)
    assert (kept.sha256, kept.source, kept.key_pem) == (used, "p12", None)  # its key stays in the file


@pytest.mark.parametrize(
    "contents, password, error",
    [
        (None, None, r"SIGNSVC_SIGNING_P12=.*missing\.p12 can't be read: No such file or directory"),
        (b"s3cret", "wrong", "SIGNSVC_SIGNING_P12=.*: The PKCS#12 file can't be read: the password is wrong"),
        (b"", None, "SIGNSVC_SIGNING_P12=.*: The PKCS#12 file can't be read"),
    ],
)
async def test_a_pkcs12_that_cannot_be_read_stops_the_start_with_a_clear_message(
    make_app, tmp_path, contents, password, error
):
    path = tmp_path / "missing.p12"
    if contents is not None:
        path.write_bytes(p12(contents) if contents else b"not a pkcs12 file")
    runner = web.AppRunner(make_app(signing_p12=str(path), signing_p12_password=password))
    try:
        with pytest.raises(ConfigError, match=error):
            await runner.setup()
    finally:
        await runner.cleanup()


async def test_one_generated_certificate_is_current_even_when_two_processes_make_one_at_once(db):
    first, second = (certificates.generate(name, "signsvc", now=START) for name in ("one", "two"))
    for chain in (first, second):
        async with db.transaction() as tx:
            await stored.insert_certificate(
                tx,
                sha256=certificates.fingerprint(chain["cert_pem"]),
                cert_pem=chain["cert_pem"],
                chain_pems=chain["chain_pems"],
                key_pem=chain["key_pem"],
                source="generated",
                now=START,
            )
    [kept] = await stored.certificates(db)
    assert kept.cert_pem == first["cert_pem"] and (await stored.current_generated(db)).id == kept.id
