"""The official API clients work against signsvc by changing only their base URL and key."""

import asyncio
import gc

import pytest
from docuseal import DocusealApi
from docuseal._http import ApiError

from tests.support import npm_client
from tests.support.app import LIVE_KEY
from tests.support.documents import b64, pdf
from tests.support.system import NODE, NPM_CLIENT

# The official Python client opens a connection per call and never closes it (CLIENTS.md).
pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning", "ignore::pytest.PytestUnraisableExceptionWarning")


@pytest.fixture(autouse=True)
def collect_leaked_connections():
    """Collects the client's sockets while this module's warning filter still applies."""
    yield
    gc.collect()


FIELD = {
    "name": "Full Name",
    "type": "text",
    "role": "Buyer",
    "areas": [{"x": 0.1, "y": 0.1, "w": 0.3, "h": 0.05, "page": 1}],
}


def python_client(api) -> DocusealApi:
    return DocusealApi(key=LIVE_KEY, url=f"http://{api.client.host}:{api.client.port}/api")


async def test_python_client_creates_finds_changes_clones_and_archives_templates(api):
    client = python_client(api)

    def scenario():
        created = client.create_template_from_pdf(
            {
                "name": "NDA",
                "folder_name": "Legal",
                "external_id": "crm-1",
                "shared_link": True,
                "flatten": False,
                "remove_tags": True,
                "documents": [{"name": "nda", "file": b64(pdf()), "fields": [FIELD]}],
            }
        )
        listed = client.list_templates({"q": "nda", "folder": None, "limit": 10})
        fetched = client.get_template(created["id"])
        updated = client.update_template(created["id"], {"name": "NDA v2", "roles": ["Customer"]})
        cloned = client.clone_template(created["id"], {"name": "NDA copy"})
        archived = client.archive_template(created["id"])
        deleted = client.permanently_delete_template(cloned["id"])
        return created, listed, fetched, updated, cloned, archived, deleted

    created, listed, fetched, updated, cloned, archived, deleted = await asyncio.to_thread(scenario)
    assert created["name"] == "NDA" and created["folder_name"] == "Legal"
    assert [t["id"] for t in listed["data"]] == [created["id"]]
    assert fetched["fields"][0]["name"] == "Full Name"
    assert updated["id"] == created["id"]
    assert cloned["name"] == "NDA copy"
    assert archived["id"] == created["id"] and archived["archived_at"]
    assert deleted == {"id": cloned["id"], "archived_at": None}


async def test_python_client_merges_templates_and_changes_their_documents(api):
    client = python_client(api)

    def scenario():
        first, second = (
            client.create_template_from_pdf({"name": name, "documents": [{"name": name, "file": b64(pdf())}]})
            for name in ("NDA", "Terms")
        )
        merged = client.merge_templates({"template_ids": [first["id"], second["id"]], "roles": ["Signer"]})
        changed = client.update_template_documents(
            merged["id"], {"documents": [{"name": "Annex", "file": b64(pdf()), "position": 0}], "merge": False}
        )
        return merged, changed

    merged, changed = await asyncio.to_thread(scenario)
    assert [item["name"] for item in merged["schema"]] == ["NDA", "Terms"]
    assert [item["name"] for item in changed["schema"]] == ["Annex", "NDA", "Terms"]


async def test_python_client_sends_lists_finds_updates_completes_and_archives_submissions(api):
    client = python_client(api)

    def scenario():
        template = client.create_template_from_pdf(
            {"name": "NDA", "documents": [{"name": "nda", "file": b64(pdf()), "fields": [FIELD]}]}
        )
        created = client.create_submission(
            {
                "template_id": template["id"],
                "send_email": False,
                "order": "preserved",
                "submitters": [
                    {
                        "role": "buyer",
                        "email": "ann@example.com",
                        "external_id": "crm-7",
                        "values": {"Full Name": "Ann"},
                        "metadata": {"deal": 7},
                    }
                ],
            }
        )
        listed = client.list_submissions({"template_id": template["id"], "status": "pending", "q": None, "limit": 10})
        fetched = client.get_submission(created["id"])
        submitters = client.list_submitters({"submission_id": created["id"], "external_id": "crm-7"})
        submitter = client.get_submitter(created["submitters"][0]["id"])
        updated = client.update_submitter(submitter["id"], {"name": "Ann Smith", "completed": True})
        emailed = client.create_submission_from_emails(
            {"template_id": template["id"], "emails": "bob@example.com", "send_email": False}
        )
        renamed = client.update_submission(emailed[0]["submission_id"], {"name": "For Bob"})
        archived = client.archive_submission(created["id"])
        return created, listed, fetched, submitters, submitter, updated, emailed, renamed, archived

    created, listed, fetched, submitters, submitter, updated, emailed, renamed, archived = await asyncio.to_thread(
        scenario
    )
    assert set(created) == {"id", "submitters", "expire_at", "created_at"}
    assert created["submitters"][0]["role"] == "Buyer" and created["submitters"][0]["metadata"] == {"deal": 7}
    assert [s["id"] for s in listed["data"]] == [created["id"]]
    assert fetched["status"] == "pending" and fetched["submitters"][0]["values"] == [
        {"field": "Full Name", "value": "Ann"}
    ]
    assert [s["id"] for s in submitters["data"]] == [submitter["id"]] and submitter["external_id"] == "crm-7"
    assert (updated["name"], updated["status"]) == ("Ann Smith", "completed")
    assert emailed[0]["email"] == "bob@example.com" and renamed["name"] == "For Bob"
    assert archived["id"] == created["id"] and archived["archived_at"]


async def test_python_client_gets_previews_then_the_signed_documents(api, worker):
    client = python_client(api)
    template = await asyncio.to_thread(
        client.create_template_from_pdf,
        {"name": "NDA", "documents": [{"name": "nda", "file": b64(pdf()), "fields": [FIELD]}]},
    )
    created = await asyncio.to_thread(
        client.create_submission,
        {"template_id": template["id"], "send_email": False, "submitters": [{"email": "ann@example.com"}]},
    )
    preview = await asyncio.to_thread(client.get_submission_documents, created["id"])
    await asyncio.to_thread(
        client.update_submitter, created["submitters"][0]["id"], {"values": {"Full Name": "Ann"}, "completed": True}
    )
    await worker.drain()
    signed = await asyncio.to_thread(client.get_submission_documents, created["id"], {"merge": "true"})
    assert preview["id"] == signed["id"] == created["id"]
    assert [d["name"] for d in preview["documents"]] == [d["name"] for d in signed["documents"]] == ["nda"]
    assert preview["documents"][0]["url"] != signed["documents"][0]["url"]


async def test_python_client_errors_carry_the_json_error(api):
    client = python_client(api)
    client.key = "wrong"
    error = await asyncio.to_thread(lambda: _raised(client.list_templates))
    assert str(error) == 'API Error 401: {"error":"Not authenticated"}'


def _raised(call):
    try:
        call()
    except ApiError as error:
        return error
    raise AssertionError("no error raised")


@NODE
@NPM_CLIENT
async def test_npm_client_sends_finds_completes_and_archives_a_submission(api):
    """The official npm client (`@docuseal/api`) given the API base without a trailing slash."""
    seen = await npm_client.run(api, "scenario.mjs")
    created = seen["created"]
    assert set(created) == {"id", "submitters", "expire_at", "created_at"}
    assert created["submitters"][0]["role"] == "Buyer" and created["submitters"][0]["status"] == "awaiting"
    assert [s["id"] for s in seen["listed"]["data"]] == [created["id"]]
    assert seen["fetched"]["submitters"][0]["values"] == [{"field": "Full Name", "value": "Ann"}]
    assert seen["signers"]["pagination"]["count"] == 1
    assert seen["updated"]["status"] == "completed" and seen["signer"]["completed_at"]
    assert seen["archived"]["id"] == created["id"] and seen["archived"]["archived_at"]
    assert seen["error"].startswith("HTTP Error: 401") and "Not authenticated" in seen["error"]
