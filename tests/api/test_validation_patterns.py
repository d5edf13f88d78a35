"""Text fields' validation patterns over HTTP: refused where they are saved (templates created, changed,
cloned, the field editor, a submission's `fields`) with a 422 naming the field, checked in linear time
when a signer saves, and a pattern stored before it was refused treated as no pattern by the page and
the service alike. The syntax itself is tests/unit/test_patterns.py's."""

import json
import time
import uuid

import pytest

import storage.submissions as stored_submissions
import storage.templates as stored_templates
from signsvc.templates import patterns
from tests.support.console import signed_in
from tests.support.documents import b64, pdf
from tests.support.every_field import box, field, invite
from tests.support.signing import act

SLOW = "(a|aa)+"  # exponential in a backtracking engine on "a" * 40 + "!"
REFUSED = "(?i)abc"  # RE2 reads it, a browser does not


def code(pattern: str, name: str = "Code", **more) -> dict:
    return field(name, "text", box(1, 0.1), validation={"pattern": pattern, "message": "Not a code"}, **more)


def template_body(*fields: dict) -> dict:
    return {"name": "Codes", "documents": [{"name": "codes", "file": b64(pdf(1)), "fields": list(fields)}]}


async def created(api, *fields: dict) -> dict:
    reply = await api.post("/api/templates", json=template_body(*fields))
    assert reply.status == 201, reply.json
    return reply.json


@pytest.mark.parametrize(
    "pattern,reason",
    [
        ("(?i)abc", "it has (?i at 1: inline flags and other (? groups are not supported"),
        ("(a)\\1", "it has a backreference or octal escape \\1 at 4, which is not supported"),
        ("(?<=a)b", "it has a lookaround at 1, which is not supported"),
        ("[[:alpha:]]", "it has a [ inside [...] at 2: write \\[ for the character"),
        ("x" * 1001, "it is longer than 1000 characters"),
    ],
)
async def test_creating_a_template_with_a_pattern_outside_the_shared_syntax_is_422_naming_the_field(
    api, pattern, reason
):
    reply = await api.post("/api/templates", json=template_body(code("[0-9]+", "First"), code(pattern)))
    assert (reply.status, reply.json) == (
        422,
        {"error": f"documents[0].fields[1].validation.pattern is invalid: {reason}"},
    )
    assert (await api.get("/api/templates")).json["data"] == []


async def test_a_pattern_that_is_not_a_string_is_422_naming_the_field(api):
    reply = await api.post("/api/templates", json=template_body(code(["a"])))
    assert (reply.status, reply.json) == (422, {"error": "documents[0].fields[0].validation.pattern must be a String"})


async def test_a_pattern_in_the_shared_syntax_is_kept_as_written(api):
    template = await created(api, code(r"\p{Lu}{2}-\d{4}"), code("", "Free"))
    assert [f["validation"]["pattern"] for f in template["fields"]] == [r"\p{Lu}{2}-\d{4}", ""]


async def test_changing_fields_to_a_refused_pattern_is_422_naming_the_field_and_changes_nothing(api):
    template = await created(api, code("[0-9]+"))
    fields = [{**template["fields"][0], "validation": {"pattern": "\\Aabc\\z"}}]
    reply = await api.put(f"/api/templates/{template['id']}", json={"fields": fields})
    assert (reply.status, reply.json) == (
        422,
        {"error": "fields[0].validation.pattern is invalid: it has \\A at 1, which is not supported"},
    )
    assert (await api.get(f"/api/templates/{template['id']}")).json["fields"] == template["fields"]


async def test_the_field_editors_save_refuses_a_pattern_as_the_api_does(api):
    template = await created(api, code("[0-9]+"))
    fields = [{**template["fields"][0], "validation": {"pattern": "(?P<n>a)"}}]
    refused = await api.put(f"/api/templates/{template['id']}", json={"fields": fields})
    console = await signed_in(api)
    await console.get(f"/console/templates/{template['id']}")
    reply = await console.post_json(f"/console/templates/{template['id']}/fields", {"fields": fields})
    assert (reply.status, reply.json) == (422, refused.json)
    assert (
        reply.json["error"] == "fields[0].validation.pattern is invalid: it has (?P at 1: name a group as (?<name>...)"
    )


async def stored_pattern(db, template_id: int, pattern: str) -> None:
    """A pattern written as the service stored any before it checked them."""
    template = await stored_templates.get_template(db, template_id)
    fields = [{**f, "validation": {**f["validation"], "pattern": pattern}} for f in template.fields]
    await stored_templates.update_template(db, template, {"fields": fields}, template.updated_at)


async def test_cloning_a_template_whose_stored_pattern_is_now_refused_is_422_naming_the_field(api, db):
    template = await created(api, code("[0-9]+"), code("[a-z]+", "Name"))
    await stored_pattern(db, template["id"], REFUSED)
    reply = await api.post(f"/api/templates/{template['id']}/clone", json={})
    assert (reply.status, reply.json) == (
        422,
        {
            "error": "fields[0].validation.pattern is invalid: it has (?i at 1: "
            "inline flags and other (? groups are not supported"
        },
    )
    assert len((await api.get("/api/templates")).json["data"]) == 1


async def test_a_clone_keeps_accepted_patterns(api):
    template = await created(api, code("[0-9]+"))
    reply = await api.post(f"/api/templates/{template['id']}/clone", json={})
    assert reply.status == 200 and reply.json["fields"][0]["validation"]["pattern"] == "[0-9]+"


async def send(api, template_id: int, **signer) -> dict:
    reply = await api.post(
        "/api/submissions",
        json={
            "template_id": template_id,
            "send_email": False,
            "submitters": [{"role": "Tenant", "email": "tess@example.com", **signer}],
        },
    )
    return reply


@pytest.mark.parametrize(
    "override,error",
    [
        (
            {"name": "Code", "validation": {"pattern": "(?=a)a"}},
            "validation.pattern is invalid: it has a lookaround at 1, which is not supported in `submitters[0].fields[1]`.",
        ),
        (
            {"name": "Code", "validation_pattern": "\\pL"},
            "validation.pattern is invalid: it has \\p at 1 without {...}: write \\p{L} in `submitters[0].fields[1]`.",
        ),
        (
            {"name": "Code", "validation": {"pattern": 7}},
            "validation.pattern must be a String in `submitters[0].fields[1]`.",
        ),
    ],
)
async def test_a_submissions_field_with_a_refused_pattern_is_422_naming_the_field(api, override, error):
    template = await created(api, code("[0-9]+"))
    reply = await send(api, template["id"], fields=[{"name": "Code", "default_value": "12"}, override])
    assert (reply.status, reply.json) == (422, {"error": error})
    assert (await api.get("/api/submissions")).json["data"] == []


async def test_a_submissions_field_pattern_replaces_the_templates_for_its_signer(api):
    template = await created(api, code("[0-9]+"))
    tess = (
        await send(
            api,
            template["id"],
            fields=[{"name": "Code", "validation_pattern": "[A-Z]{3}", "invalid_message": "Three capitals"}],
        )
    ).json[0]
    assert (await act(api, tess["slug"], "values", {"values": {"Code": "123"}})).json == {
        "error": "Code: Three capitals"
    }
    assert (await act(api, tess["slug"], "values", {"values": {"Code": "ABC"}})).status == 200
    page = await api.with_key(None).get(f"/s/{tess['slug']}", headers={"Accept": "text/html"})
    assert 'data-pattern="[A-Z]{3}"' in page.body.decode()


async def test_a_signers_value_is_checked_against_the_pattern_in_linear_time(api):
    template = await created(api, *[code(SLOW, f"Code {n}") for n in range(20)])
    tess = await invite(api, template["id"])
    started = time.perf_counter()
    reply = await act(api, tess["slug"], "values", {"values": {f"Code {n}": "a" * 40 + "!" for n in range(20)}})
    assert (reply.status, reply.json) == (422, {"error": "Code 0: Not a code"})
    assert time.perf_counter() - started < 1
    values = {f"Code {n}": "a" * 40 for n in range(20)}
    assert (await act(api, tess["slug"], "values", {"values": values})).status == 200


async def test_values_too_long_to_check_against_their_patterns_are_refused_before_any_is_checked(api):
    template = await created(api, code("[ab]*a[ab]{999}"))
    tess = await invite(api, template["id"])
    reply = await act(api, tess["slug"], "values", {"values": {"Code": "a" * 100_000}})
    assert (reply.status, reply.json) == (422, {"error": "values are too long to check against their fields' patterns"})


async def test_a_stored_pattern_now_refused_is_no_pattern_for_the_page_and_the_service(api, db):
    tess = await invite(api, (await created(api, code("[0-9]+")))["id"])
    submission = await stored_submissions.get_submission(db, tess["submission_id"])
    fields = [{**f, "validation": {"pattern": REFUSED, "message": "Not a code"}} for f in submission.fields]
    await db.run_script(f"UPDATE submissions SET fields = '{json.dumps(fields)}' WHERE id = {submission.id};")
    page = (await api.with_key(None).get(f"/s/{tess['slug']}", headers={"Accept": "text/html"})).body.decode()
    assert "data-pattern" not in page and 'data-message="Not a code"' in page and REFUSED not in page
    reply = await act(api, tess["slug"], "values", {"values": {"Code": "anything at all"}})
    assert reply.status == 200, reply.json


async def test_a_template_whose_new_patterns_cost_too_much_to_compile_is_422_and_nothing_is_saved(api):
    # 1,000 patterns near the program limit, each a little different: compiled one after the other on the event
    # loop they took 15 s; now a request's new patterns compile within one budget (the stall is
    # tests/process/test_pattern_stall.py's).
    fields = [code(rf"\p{{L}}{{20}}{n}", f"Code {n}") for n in range(1000)]
    reply = await api.post("/api/templates", json=template_body(*fields))
    assert (reply.status, reply.json) == (
        422,
        {"error": "fields have too many costly patterns to read in one request: send fewer or simpler patterns"},
    )
    assert (await api.get("/api/templates")).json["data"] == []


async def test_a_template_with_patterns_too_large_for_re2_is_422_naming_the_first_such_field(api):
    fields = [code("[0-9]+", "First")] + [code(rf"\p{{L}}{{1000}}{n}", f"Code {n}") for n in range(500)]
    reply = await api.post("/api/templates", json=template_body(*fields))
    assert reply.status == 422
    assert reply.json["error"].startswith("documents[0].fields[1].validation.pattern is invalid: it is too large")


async def test_a_save_while_the_patterns_thread_is_full_is_503_with_retry_after(api, monkeypatch):
    monkeypatch.setattr(patterns, "MAX_QUEUED", 0)  # as if other requests filled the patterns' thread
    new = rf"[0-9]{{3}}-{uuid.uuid4().hex}"  # not compiled yet by this process
    reply = await api.post("/api/templates", json=template_body(code(new)))
    assert (reply.status, reply.json) == (503, {"error": patterns.Busy.message})
    assert reply.headers["Retry-After"] == str(patterns.RETRY_AFTER_SECONDS)
    monkeypatch.setattr(patterns, "MAX_QUEUED", 16)
    assert (await api.post("/api/templates", json=template_body(code(new)))).status == 201
