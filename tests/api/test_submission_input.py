"""Creating submissions: the SubmissionCreate input, each refusal naming the problem and where it is,
in the form ``<field> is invalid in `submitters[<index>]`.``."""

import json
from pathlib import Path

import pytest

import storage.emails as stored_emails
from tests.support import signing
from tests.support.app import START, TEST_KEY
from tests.support.signing import act, area

FIELDS = [
    {"name": "Full Name", "type": "text", "role": "First Party", "areas": [area(0.1)]},
    {"name": "Signature", "type": "signature", "role": "First Party", "required": False, "areas": [area(0.2)]},
    {"name": "Newsletter", "type": "checkbox", "role": "First Party", "required": False, "areas": [area(0.3)]},
    {
        "name": "Plan",
        "type": "select",
        "role": "First Party",
        "required": False,
        "options": ["Basic", "Pro"],
        "areas": [area(0.4)],
    },
    {"name": "Buyer Name", "type": "text", "role": "Second Party", "areas": [area(0.5)]},
]
ANN = {"email": "ann@example.com", "name": "Ann"}
BOB = {"email": "bob@example.com", "name": "Bob"}
LONG_TEXT = "This sentence is far too long to be drawn as a typed signature on the form"


async def template(api, fields=FIELDS) -> int:
    return await signing.template(api, fields)


async def create(api, body: dict, path="/api/submissions"):
    reply = await api.post(path, json=body)
    assert reply.status == 200, reply.json
    return reply.json


def stored_files(config) -> list[Path]:
    return sorted(path for path in Path(config.data_dir).rglob("*") if path.is_file())


@pytest.fixture
async def nda(api) -> int:
    return await template(api)


@pytest.fixture
def nothing_left_behind(api, config):
    """Checks, after a refusal, that no submission, signer or stored file was added."""

    async def check(files_before: list[Path]) -> None:
        assert (await api.get("/api/submissions")).json["data"] == []
        assert (await api.get("/api/submitters")).json["data"] == []
        assert stored_files(config) == files_before

    return check


def submitters(*entries):
    return lambda tid: {"template_id": tid, "submitters": list(entries)}


def body(**fields):
    return lambda tid: {"template_id": tid, "submitters": [ANN], **fields}


def values(given):
    return submitters({**ANN, "values": given})


REFUSALS = [
    ("submitters is required", lambda tid: {"template_id": tid}),
    ("submitters is required", lambda tid: {}),
    ("template_id is required", lambda tid: {"submitters": [ANN]}),
    ("template_id must be a positive integer", lambda tid: {"template_id": "NDA", "submitters": [ANN]}),
    ("template_id must be a positive integer", lambda tid: {"template_id": True, "submitters": [ANN]}),
    ("submitters must be a Array", lambda tid: {"template_id": tid, "submitters": "ann@example.com"}),
    ("submitters must be a Array", lambda tid: {"template_id": tid, "submitters": ANN}),
    ("submitters is required", lambda tid: {"template_id": tid, "submitters": []}),
    ("submitters[1] must be a Object", submitters(ANN, "bob@example.com")),
    ("email must be a String in `submitters[0]`.", submitters({"email": 42})),
    ("name must be a String in `submitters[1]`.", submitters(ANN, {"name": ["Bob"]})),
    ("role must be a String in `submitters[0]`.", submitters({**ANN, "role": {"name": "First Party"}})),
    ("values must be a Object in `submitters[0]`.", values("Ann Smith")),
    ("values must be a Object in `submitters[0]`.", values([{"Full Name": "Ann Smith"}])),
    ("metadata must be a Object in `submitters[0]`.", submitters({**ANN, "metadata": "vip"})),
    ("metadata must be a Object in `submitters[0]`.", submitters({**ANN, "metadata": ["vip"]})),
    ("external_id must be a String in `submitters[0]`.", submitters({**ANN, "external_id": {"id": 1}})),
    (
        "readonly_fields must be an array of field names in `submitters[0]`.",
        submitters({**ANN, "readonly_fields": "Plan"}),
    ),
    ("completed must be true or false in `submitters[0]`.", submitters({**ANN, "completed": "yes"})),
    ("send_email must be true or false in `submitters[0]`.", submitters({**ANN, "send_email": 0})),
    ("send_email must be true or false", body(send_email="no")),
    ("variables must be a Object", body(variables="x")),
    ("name is too long: at most 255 characters", body(name="n" * 256)),
    ("email is invalid in `submitters[1]`.", submitters(ANN, {"email": "bob@example"})),
    ("email is invalid in `submitters[1]`.", submitters(ANN, {"email": "bob smith@example.com"})),
    ("email is invalid in `submitters[0]`.", submitters({"email": "ann@example.com, bob@example.com"})),
    (
        "phone should start with +<country code> and contain only digits in `submitters[0]`.",
        submitters({"phone": "555-1234"}),
    ),
    (
        "phone should start with +<country code> and contain only digits in `submitters[1]`.",
        submitters(ANN, {"phone": "+1 555 CALL NOW"}),
    ),
    ("email or phone or name is required in `submitters[1]`.", submitters(ANN, {"role": "Second Party"})),
    ("email or phone or name is required in `submitters[0]`.", submitters({"email": "", "name": "", "phone": ""})),
    (
        'Unknown submitter role: Buyer. Template defines ["First Party", "Second Party"]',
        submitters({**ANN, "role": "Buyer"}),
    ),
    (
        "role must be unique in `submitters`.",
        submitters({**ANN, "role": "First Party"}, {**BOB, "role": "first party"}),
    ),
    ("Defined more signing parties than in template", submitters(ANN, BOB, {"email": "carol@example.com"})),
    ("Unknown key: sendemail", body(sendemail=False)),
    ("Unknown key: mail in `submitters[0]`.", submitters({**ANN, "mail": "ann@example.org"})),
    ("Unknown field: Middle Name in `submitters[0].values`.", values({"Middle Name": "Q"})),
    ("Unknown field: Buyer Name in `submitters[0].values`.", values({"Buyer Name": "a field of the other role"})),
    (
        f"Signature: Invalid value, url, base64 or text < 60 chars is expected: {LONG_TEXT[:50]}... "
        "in `submitters[0].values`.",
        values({"Signature": LONG_TEXT}),
    ),
    (
        "Signature: Invalid value, url, base64 or text < 60 chars is expected: 42 in `submitters[0].values`.",
        values({"Signature": 42}),
    ),
    (
        "Signature: only https:// URLs are allowed, not http:// in `submitters[0].values`.",
        values({"Signature": "http://example.com/signature.png"}),
    ),
    ("Newsletter must be true or false (or 1/0, yes/no) in `submitters[0].values`.", values({"Newsletter": "maybe"})),
    ("Newsletter must be true or false (or 1/0, yes/no) in `submitters[0].values`.", values({"Newsletter": 2})),
    ("Plan must be one of: Basic, Pro in `submitters[0].values`.", values({"Plan": "Gold"})),
    ("Full Name must be a String in `submitters[0].values`.", values({"Full Name": {"first": "Ann"}})),
    ("expire_at must be a timestamp, such as 2026-09-01T12:00:00Z", body(expire_at="next week")),
    ("expire_at must be a timestamp, such as 2026-09-01T12:00:00Z", body(expire_at=True)),
    ("expire_at must be in the future", body(expire_at="2025-12-31T12:00:00Z")),
    ("expire_at must be in the future", body(expire_at=START.isoformat())),
    ("body is required in `message`.", body(message={"subject": "Please sign"})),
    ("body is required in `message`.", body(message={"subject": "Please sign", "body": "   "})),
    ("subject must be a String in `message`.", body(message={"subject": 7, "body": "Please sign"})),
    ("message must be a Object", body(message="Please sign")),
    ("body is required in `submitters[0].message`.", submitters({**ANN, "message": {"subject": "Please sign"}})),
    ("reply_to email is invalid", body(reply_to="support")),
    ("reply_to email is invalid in `submitters[0]`.", submitters({**ANN, "reply_to": "support@"})),
    ("bcc_completed email is invalid", body(bcc_completed="archive@example")),
    ("order must be one of preserved, random", body(order="sequential")),
    ("order must be one of preserved, random", body(submitters_order="parallel")),
    ("completed_redirect_url must be an http:// or https:// URL", body(completed_redirect_url="javascript:alert(1)")),
    ("Unknown field: Nope in `submitters[0].readonly_fields`.", submitters({**ANN, "readonly_fields": ["Nope"]})),
    ("fields must be a Array in `submitters[0]`.", submitters({**ANN, "fields": "Full Name"})),
    ("name or uuid is required in `submitters[0].fields[0]`.", submitters({**ANN, "fields": [{"default_value": "x"}]})),
    # Digits beyond ASCII are not an id (int() of a superscript two raised: a 500).
    ("template_id must be a positive integer", lambda tid: {"template_id": "\u00b2", "submitters": [ANN]}),
    ("template_id must be a positive integer", lambda tid: {"template_id": "\u0661", "submitters": [ANN]}),
    # A false-like value is no order or field list: only null (or an empty order) is none.
    ("order must be one of preserved, random", body(order=0)),
    ("order must be one of preserved, random", body(order="preserved", submitters_order=[])),
    ("readonly_fields must be an array of field names in `submitters[0]`.", submitters({**ANN, "readonly_fields": 0})),
    (
        "application_key must be a String in `submitters[0]`.",
        submitters({**ANN, "external_id": "crm-7", "application_key": {"id": 1}}),
    ),
    (
        "name must be a String in `submitters[0].fields[0]`.",
        submitters({**ANN, "fields": [{"name": 0, "uuid": "x", "default_value": "x"}]}),
    ),
    (
        "readonly must be true or false in `submitters[0].fields[0]`.",
        submitters({**ANN, "fields": [{"name": "Full Name", "readonly": "yes"}]}),
    ),
]


@pytest.mark.parametrize("message,make", REFUSALS, ids=[f"{n}-{m[:40]}" for n, (m, _) in enumerate(REFUSALS)])
async def test_bad_input_is_422_naming_the_problem_and_leaves_nothing_behind(
    api, nda, config, nothing_left_behind, message, make
):
    files_before = stored_files(config)
    reply = await api.post("/api/submissions", json=make(nda))
    assert (reply.status, reply.json) == (422, {"error": message})
    await nothing_left_behind(files_before)


async def test_a_huge_submitters_array_is_refused_at_once(api, nda, nothing_left_behind, config):
    """The count is checked before any entry is read: every entry here is malformed, and none is named."""
    files_before = stored_files(config)
    many = [{"email": f"signer{n}@example.com", "values": ["not", "an", "object"]} for n in range(10_000)]
    reply = await api.post("/api/submissions", json={"template_id": nda, "submitters": many})
    assert (reply.status, reply.json) == (422, {"error": "submitters must have at most 100 entries"})
    await nothing_left_behind(files_before)


async def test_a_refusal_after_a_drawn_signature_leaves_no_stored_file(api, nda, config, nothing_left_behind):
    files_before = stored_files(config)
    reply = await api.post(
        "/api/submissions",
        json={
            "template_id": nda,
            "submitters": [
                {**ANN, "values": {"Signature": "Ann Smith"}},
                {**BOB, "values": {"Buyer Name": ["not", "text"]}},
            ],
        },
    )
    assert (reply.status, reply.json) == (422, {"error": "Buyer Name must be a String in `submitters[1].values`."})
    await nothing_left_behind(files_before)


async def test_an_archived_template_cannot_be_sent(api, nda, config, nothing_left_behind):
    assert (await api.delete(f"/api/templates/{nda}")).status == 200
    files_before = stored_files(config)
    reply = await api.post("/api/submissions", json={"template_id": nda, "submitters": [ANN]})
    assert (reply.status, reply.json) == (422, {"error": "Template has been archived"})
    await nothing_left_behind(files_before)


async def test_a_template_without_fields_cannot_be_sent(api, config, nothing_left_behind):
    blank = await template(api, fields=[])
    files_before = stored_files(config)
    reply = await api.post("/api/submissions", json={"template_id": blank, "submitters": [ANN]})
    assert (reply.status, reply.json) == (422, {"error": "Template does not contain fields"})
    await nothing_left_behind(files_before)


async def test_another_accounts_template_is_422(api, other_account, config, nothing_left_behind):
    theirs = await template(api.with_key(other_account.live))
    files_before = stored_files(config)
    reply = await api.post("/api/submissions", json={"template_id": theirs, "submitters": [ANN]})
    assert (reply.status, reply.json) == (422, {"error": f"Template {theirs} is not a template of this account"})
    await nothing_left_behind(files_before)
    assert (await api.with_key(other_account.live).get("/api/submissions")).json["data"] == []


async def test_a_missing_template_is_404(api, nda, config, nothing_left_behind):
    files_before = stored_files(config)
    reply = await api.post("/api/submissions", json={"template_id": 999, "submitters": [ANN]})
    assert (reply.status, reply.json) == (404, {"error": "Template 999 not found"})
    await nothing_left_behind(files_before)


async def test_a_live_template_sent_with_the_test_key_is_404_naming_the_key(api, nda):
    testing = api.with_key(TEST_KEY)
    reply = await testing.post("/api/submissions", json={"template_id": nda, "submitters": [ANN]})
    assert reply.status == 404, reply.json
    assert reply.json["error"] == (
        f"Template {nda} not found using testing API key; Use production API key to access production templates."
    )
    assert (await testing.get("/api/submissions")).json["data"] == []
    assert (await api.get("/api/submissions")).json["data"] == []


@pytest.mark.parametrize("content_type", ["application/x-www-form-urlencoded", "text/plain"])
async def test_a_body_without_the_json_content_type_is_415(api, nda, config, nothing_left_behind, content_type):
    files_before = stored_files(config)
    text = json.dumps({"template_id": nda, "submitters": [ANN]})
    reply = await api.post("/api/submissions", data=text, headers={"Content-Type": content_type})
    assert (reply.status, reply.json) == (
        415,
        {"error": "Request body must be JSON sent with Content-Type: application/json"},
    )
    await nothing_left_behind(files_before)


@pytest.mark.parametrize(
    "text,message",
    [
        ('{"template_id": 1, "submitters": [', "JSON parse error: "),
        ("template_id=1", "JSON parse error: "),
        ('[{"template_id": 1}]', "Request body must be a JSON object, not list"),
    ],
)
async def test_a_malformed_json_body_is_422(api, nda, config, nothing_left_behind, text, message):
    files_before = stored_files(config)
    reply = await api.post("/api/submissions", data=text, headers={"Content-Type": "application/json"})
    assert reply.status == 422 and reply.json["error"].startswith(message), reply.json
    await nothing_left_behind(files_before)


# The valid forms


async def test_the_answer_is_one_submitter_per_entry_with_id_slug_and_embed_src(api, nda):
    ann, bob = await create(api, {"template_id": nda, "submitters": [ANN, BOB]})
    assert ann["submission_id"] == bob["submission_id"] and ann["id"] != bob["id"]
    for submitter in (ann, bob):
        assert submitter["embed_src"] == f"http://signsvc.test/apiemb/{submitter['slug']}"
        assert "documents" not in submitter and "submission_events" not in submitter
    assert [(s["email"], s["name"], s["role"]) for s in (ann, bob)] == [
        ("ann@example.com", "Ann", "First Party"),
        ("bob@example.com", "Bob", "Second Party"),
    ]


async def test_a_role_is_matched_by_name_in_any_case(api, nda):
    [bob] = await create(api, {"template_id": nda, "submitters": [{**BOB, "role": "sECOND pARTY"}]})
    assert bob["role"] == "Second Party"


async def test_submitters_without_a_role_fill_the_template_roles_in_order(api, nda):
    submitters = await create(api, {"template_id": nda, "submitters": [{**BOB, "role": "FIRST PARTY"}, ANN]})
    assert {s["email"]: s["role"] for s in submitters} == {
        "bob@example.com": "First Party",
        "ann@example.com": "Second Party",
    }
    [one] = await create(api, {"template_id": nda, "submitters": [ANN]})
    assert one["role"] == "First Party"


async def test_a_submitter_needs_only_one_of_email_phone_or_name(api, nda):
    submitters = await create(
        api, {"template_id": nda, "submitters": [{"phone": "+1 (555) 123-4567"}, {"name": "Bob"}]}
    )
    assert [(s["email"], s["phone"], s["name"]) for s in submitters] == [
        (None, "+15551234567", None),
        (None, None, "Bob"),
    ]


async def test_an_email_is_kept_in_lowercase(api, nda):
    [ann] = await create(api, {"template_id": nda, "submitters": [{"email": " Ann@Example.COM "}]})
    assert ann["email"] == "ann@example.com"


@pytest.mark.parametrize("key", ["Full Name", "full_name", "full name", "FULL NAME"])
async def test_values_are_matched_by_field_name_snake_case_name_or_name_in_any_case(api, nda, key):
    [ann] = await create(api, {"template_id": nda, "submitters": [{**ANN, "values": {key: "Ann Smith"}}]})
    assert ann["values"] == [{"field": "Full Name", "value": "Ann Smith"}]


async def test_values_are_matched_by_field_uuid(api, nda):
    field_uuid = (await api.get(f"/api/templates/{nda}")).json["fields"][0]["uuid"]
    [ann] = await create(api, {"template_id": nda, "submitters": [{**ANN, "values": {field_uuid: "Ann Smith"}}]})
    assert ann["values"] == [{"field": "Full Name", "value": "Ann Smith"}]


async def test_values_are_normalised_per_field_type(api, nda):
    given = {"Newsletter": "YES", "Plan": "pro", "Signature": "Ann Smith"}
    [ann] = await create(api, {"template_id": nda, "submitters": [{**ANN, "values": given}]})
    shown = {value["field"]: value["value"] for value in ann["values"]}
    assert (shown["Newsletter"], shown["Plan"]) == (True, "Pro")
    assert shown["Signature"].startswith("http://signsvc.test/file/")
    [other] = await create(api, {"template_id": nda, "submitters": [{**ANN, "values": {"Newsletter": "0"}}]})
    assert other["values"] == [{"field": "Newsletter", "value": False}]


async def test_fields_default_value_prefills_like_values(api, nda):
    [ann] = await create(
        api,
        {"template_id": nda, "submitters": [{**ANN, "fields": [{"name": "Full Name", "default_value": "Ann Smith"}]}]},
    )
    assert ann["values"] == [{"field": "Full Name", "value": "Ann Smith"}]


async def test_readonly_fields_keep_the_prefilled_value_from_the_submitter(api, nda):
    [ann] = await create(
        api,
        {
            "template_id": nda,
            "submitters": [{**ANN, "values": {"Full Name": "Ann Smith"}, "readonly_fields": ["full_name"]}],
        },
    )
    changed = await act(api, ann["slug"], "complete", {"values": {"Full Name": "Someone Else"}})
    assert (changed.status, changed.json) == (422, {"error": "Full Name is a read-only field"})
    assert (await act(api, ann["slug"], "complete")).status == 200
    submitter = (await api.get(f"/api/submitters/{ann['id']}")).json
    assert {"field": "Full Name", "value": "Ann Smith"} in submitter["values"]


async def test_integers_written_with_a_fraction_of_zero_are_integers(api, nda):
    # JSON's 7.0 is the number 7: a template id or an external id so written was refused (as JSON Schema's
    # `integer` allows it).
    [ann] = await create(api, {"template_id": float(nda), "submitters": [{**ANN, "external_id": 7.0}]})
    assert ann["external_id"] == "7"


async def test_external_id_and_metadata_are_echoed_unchanged(api, nda):
    metadata = {"crm": {"deal": 42, "tags": ["a", "b"], "note": None}, "flag": True, "ratio": 0.5}
    [ann, bob] = await create(
        api,
        {
            "template_id": nda,
            "submitters": [{**ANN, "external_id": "crm-7", "metadata": metadata}, {**BOB, "application_key": "crm-8"}],
        },
    )
    assert (ann["external_id"], ann["application_key"], ann["metadata"]) == ("crm-7", "crm-7", metadata)
    assert (bob["external_id"], bob["metadata"]) == ("crm-8", {})
    again = (await api.get(f"/api/submitters/{ann['id']}")).json
    assert (again["external_id"], again["metadata"]) == ("crm-7", metadata)


@pytest.mark.parametrize(
    "given,stored",
    [
        ("2026-09-01T12:00:00Z", "2026-09-01T12:00:00.000Z"),
        ("2026-09-01 12:00:00 UTC", "2026-09-01T12:00:00.000Z"),
        ("2026-09-01T14:00:00+02:00", "2026-09-01T12:00:00.000Z"),
        (1788264000, "2026-09-01T12:00:00.000Z"),
    ],
)
async def test_expire_at_takes_a_timestamp_in_the_future(api, nda, given, stored):
    reply = await create(
        api, {"template_id": nda, "submitters": [ANN], "expire_at": given}, path="/api/submissions/init"
    )
    assert reply["expire_at"] == stored


async def test_template_id_may_be_sent_as_digits_in_a_string(api, nda):
    [ann] = await create(api, {"template_id": str(nda), "submitters": [ANN]})
    assert (await api.get(f"/api/submissions/{ann['submission_id']}")).json["template"]["id"] == nda


async def test_init_answers_id_submitters_expire_at_and_created_at(api, nda):
    reply = await create(api, {"template_id": nda, "submitters": [ANN, BOB]}, path="/api/submissions/init")
    assert set(reply) == {"id", "submitters", "expire_at", "created_at"}
    assert (reply["expire_at"], reply["created_at"]) == (None, "2026-01-01T12:00:00.000Z")
    assert [s["submission_id"] for s in reply["submitters"]] == [reply["id"], reply["id"]]
    assert all(s["embed_src"] == f"http://signsvc.test/apiemb/{s['slug']}" for s in reply["submitters"])


async def test_init_refuses_bad_input_like_create(api, nda, config, nothing_left_behind):
    files_before = stored_files(config)
    reply = await api.post("/api/submissions/init", json={"template_id": nda, "submitters": [{"email": "x@"}]})
    assert (reply.status, reply.json) == (422, {"error": "email is invalid in `submitters[0]`."})
    await nothing_left_behind(files_before)


async def test_emails_creates_one_submission_per_address_signed_by_the_first_role(api, nda):
    submitters = await create(
        api,
        {"template_id": nda, "emails": "ann@example.com, bob@example.com\nann@example.com"},
        path="/api/submissions/emails",
    )
    assert [(s["email"], s["role"]) for s in submitters] == [
        ("ann@example.com", "First Party"),
        ("bob@example.com", "First Party"),
    ]
    assert len({s["submission_id"] for s in submitters}) == 2
    listed = (await api.get("/api/submissions")).json["data"]
    assert [[s["email"] for s in item["submitters"]] for item in listed] == [["bob@example.com"], ["ann@example.com"]]


@pytest.mark.parametrize(
    "emails,message",
    [
        ("ann@example.com, bob@", "emails are invalid"),
        ("ann@example.com; bob@example.com", "emails are invalid"),
        ("", "emails is required: addresses separated by commas"),
        (["ann@example.com"], "emails is required: addresses separated by commas"),
    ],
)
async def test_emails_with_a_bad_address_creates_nothing(api, nda, config, nothing_left_behind, emails, message):
    files_before = stored_files(config)
    reply = await api.post("/api/submissions/emails", json={"template_id": nda, "emails": emails})
    assert (reply.status, reply.json) == (422, {"error": message})
    await nothing_left_behind(files_before)


async def test_a_template_id_beyond_64_bits_is_a_client_error_not_a_server_error(api, nda, config, nothing_left_behind):
    files_before = stored_files(config)
    reply = await api.post("/api/submissions", json={"template_id": 2**63, "submitters": [ANN]})
    assert reply.status in (404, 422), reply.json
    await nothing_left_behind(files_before)


@pytest.mark.parametrize(
    "submitter",
    [
        {"name": "A\u0000nn"},
        {**ANN, "external_id": "crm\u00007"},
        {**ANN, "metadata": {"note": "a\u0000b"}},
        {**ANN, "values": {"Full Name": "Ann\u0000Smith"}},
    ],
    ids=["name", "external_id", "metadata", "values"],
)
async def test_a_nul_character_is_refused_the_same_on_every_backend(api, nda, config, nothing_left_behind, submitter):
    files_before = stored_files(config)
    reply = await api.post("/api/submissions", json={"template_id": nda, "submitters": [submitter]})
    assert reply.status == 422, reply.json
    await nothing_left_behind(files_before)


@pytest.mark.parametrize("where", ["submission", "submitter"])
async def test_an_empty_message_object_means_no_custom_message(api, db, nda, where):
    ann = {**ANN, "message": {}} if where == "submitter" else ANN
    extra = {"message": {}} if where == "submission" else {}
    [created] = await create(api, {"template_id": nda, "submitters": [ann], **extra})
    [invitation] = await stored_emails.list_emails(db, 1, limit=10)
    assert (invitation.submitter_id, invitation.subject) == (created["id"], "You are invited to sign a document")
    assert created["preferences"] == {"send_email": True}


async def test_keys_the_official_clients_send_without_effect_here_are_accepted(api, nda):
    [ann] = await create(
        api,
        {
            "template_id": nda,
            "send_sms": False,
            "name": "Q3 NDA",
            "variables": {"deal": 1},
            "submitters": [
                {
                    **ANN,
                    "send_sms": False,
                    "require_phone_2fa": False,
                    "require_email_2fa": False,
                    "go_to_last": True,
                    "invite_by": None,
                }
            ],
        },
    )
    assert ann["role"] == "First Party"


async def test_preserved_order_invites_the_first_submitter_and_random_invites_everyone(api, nda):
    first, second = await create(api, {"template_id": nda, "submitters": [ANN, BOB]})
    assert (first["status"], second["status"]) == ("sent", "awaiting")
    both = await create(api, {"template_id": nda, "submitters": [ANN, BOB], "order": "random"})
    assert [s["status"] for s in both] == ["sent", "sent"]


async def test_send_email_false_leaves_every_submitter_awaiting(api, nda):
    submitters = await create(
        api, {"template_id": nda, "submitters": [ANN, BOB], "send_email": False, "order": "random"}
    )
    assert [(s["status"], s["sent_at"]) for s in submitters] == [("awaiting", None), ("awaiting", None)]
    [ann] = await create(api, {"template_id": nda, "submitters": [{**ANN, "send_email": False}]})
    assert ann["status"] == "awaiting"


async def test_send_email_false_on_the_submission_shows_as_send_email_false_in_each_submitters_preferences(api, nda):
    submitters = await create(
        api, {"template_id": nda, "submitters": [ANN, {**BOB, "send_email": True}], "send_email": False}
    )
    assert [s["preferences"]["send_email"] for s in submitters] == [False, False]
    listed = (await api.get(f"/api/submissions/{submitters[0]['submission_id']}")).json["submitters"]
    assert [s["preferences"]["send_email"] for s in listed] == [False, False]
    [ann, bob] = await create(api, {"template_id": nda, "submitters": [ANN, {**BOB, "send_email": False}]})
    assert (ann["preferences"]["send_email"], bob["preferences"]["send_email"]) == (True, False)


async def test_completed_true_marks_the_submitter_completed_at_creation(api, nda):
    ann, bob = await create(api, {"template_id": nda, "submitters": [{**ANN, "completed": True}, BOB]})
    assert (ann["status"], ann["completed_at"]) == ("completed", "2026-01-01T12:00:00.000Z")
    assert bob["status"] == "sent", "the next signer in preserved order is invited"
    [alone] = await create(api, {"template_id": nda, "submitters": [{**ANN, "completed": True}]})
    assert (await api.get(f"/api/submissions/{alone['submission_id']}")).json["status"] == "completed"
