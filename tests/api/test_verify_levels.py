"""POST /tools/verify says what it found: each signature's PAdES level, its signing time and where that time
comes from, whether its chain validates offline from what the file carries (trusting only the service's
certificates), whether the service issued it, and what it lacks for long-term validity.

The service here signs with the test CA's certificate (SIGNSVC_SIGNING_P12), so that PDFs made in the test
with pyHanko at each level (tests/support/pades_levels.py) are signed by "the service's" certificate."""

from __future__ import annotations

import base64

import pytest

import storage.timestamp_authorities as stored_stampers
from signsvc.pdf import certificates, seal
from tests.support import pades_levels as levels
from tests.support import pkcs12_files as files
from tests.support.app import Api
from tests.support.documents import pdf
from tests.support.seals import SIGNED_AT

CLAIMED = ["signature_timestamp", "revocation_information", "document_timestamp", "trusted_chain"]


@pytest.fixture(scope="module")
def ca() -> levels.TestCa:
    return levels.test_ca()


@pytest.fixture(scope="module")
def made(ca, tsa) -> dict[str, bytes]:
    """A PDF at each level, and the service's seal archived (then changed). pyHanko runs here, outside the
    test's event loop: its sync API starts one of its own."""
    timestamped = levels.signed(ca, tsa["stamper"])
    long_term = levels.with_dss(timestamped, ca)
    sealed = seal.sign(pdf(), ca.chain(), reason="r", name=None, signing_time=SIGNED_AT)
    archived = levels.with_document_timestamp(levels.with_dss(sealed, ca), tsa["stamper"])
    return {
        "B-B": levels.signed(ca),
        "B-T": timestamped,
        "B-LT": long_term,
        "B-LTA": levels.with_document_timestamp(long_term, tsa["stamper"]),
        "sealed archived": archived,
        "sealed archived, retitled": levels.edited(archived, levels.retitle),
    }


@pytest.fixture
async def service(aiohttp_client, make_app, tmp_path, ca, db, tsa) -> Api:
    """The service, having stamped with the `tsa` fixture's authority (so it trusts it for timestamps)."""
    path = tmp_path / "acme.p12"
    path.write_bytes(levels.p12(ca))
    await stored_stampers.remember(db, certificates.fingerprint(tsa["cert_pem"]), tsa["cert_pem"], SIGNED_AT)
    return Api(await aiohttp_client(make_app(signing_p12=str(path), signing_p12_password=files.PASSWORD)))


async def verify(api: Api, data: bytes) -> dict:
    reply = await api.post("/api/tools/verify", json={"file": base64.b64encode(data).decode()})
    assert reply.status == 200, reply.json
    return reply.json


@pytest.mark.parametrize(
    "level, source, offline, missing",
    [
        ("B-B", "claimed", False, CLAIMED),
        ("B-T", "timestamp", False, ["revocation_information", "document_timestamp", "trusted_chain"]),
        ("B-LT", "timestamp", True, ["document_timestamp"]),
        ("B-LTA", "timestamp", True, []),
    ],
)
async def test_verify_reports_the_pades_level_time_source_offline_chain_and_what_is_missing(
    service, made, level, source, offline, missing
):
    body = await verify(service, made[level])
    signature = body["signatures"][0]
    assert (
        signature["pades_level"],
        signature["signing_time_source"],
        signature["chain_validates_offline"],
        signature["missing_for_long_term"],
    ) == (level, source, offline, missing)
    assert signature["trusted"] and signature["signer_name"] == "Acme Test Signer"
    if source == "timestamp":
        assert signature["signing_time"] == signature["timestamp"] == "2026-01-02T09:30:17.000Z"


async def test_a_document_timestamp_entry_has_no_level_and_nothing_missing(service, made):
    _, timestamp = (await verify(service, made["B-LTA"]))["signatures"]
    assert (timestamp["type"], timestamp["pades_level"], timestamp["missing_for_long_term"]) == (
        "timestamp",
        None,
        None,
    )
    assert timestamp["signing_time_source"] == "timestamp" and timestamp["issued_by_service"] is False


async def test_a_foreign_signature_is_reported_with_a_trusted_chain_missing(api, made):
    """The default service trusts only its own generated chain: the test CA's B-LTA file is foreign to it."""
    body = await verify(api, made["B-LTA"])
    signature = body["signatures"][0]
    assert (signature["pades_level"], signature["trusted"], signature["chain_validates_offline"]) == (
        "B-LTA",
        False,
        False,
    )
    # nor does it trust the test TSA: its timestamps date nothing
    assert signature["missing_for_long_term"] == ["trusted_timestamp", "trusted_chain"]
    assert body["issued_by_service"] is False


async def test_the_service_seal_archived_with_dss_and_document_timestamp_is_issued_and_any_other_change_is_not(
    service, made
):
    body = await verify(service, made["sealed archived"])
    assert (body["issued_by_service"], body["signatures"][0]["issued_by_service"]) == (True, True)
    assert body["signatures"][0]["pades_level"] == "B-LTA"
    changed = await verify(service, made["sealed archived, retitled"])
    assert (changed["issued_by_service"], changed["signatures"][0]["issued_by_service"]) == (False, False)
