"""Bulk send from the console, over HTTP: a CSV or XLSX file uploaded on a template's send page, its columns guessed
from their headers and changeable, every row checked by the rules of POST /submissions before anything is made
(a refused row named by its number, nothing sent), then one submission for each row whose invitations are queued as
jobs (nothing is sent inside the request), and a page that says how far they have gone."""

from __future__ import annotations

import asyncio
import html
import io
import json
import re
import sys
import zipfile
from datetime import timedelta

import pytest
from aiohttp import FormData

import storage.accounts as stored_accounts
import storage.emails as stored_emails
import storage.form_posts as form_posts
import storage.jobs as stored_jobs
from signsvc.http.appkeys import REMINDERS, SUBMISSIONS, WORKER
from signsvc.http.web.console import bulk_table
from signsvc.infra import errors, tokens
from signsvc.submissions import invitations
from signsvc.submissions.submissions import PartlyMade
from storage.outbound_records import JobStatus
from tests.support.app import LIVE_KEY, Api
from tests.support.bulk_files import GOOD_CSV, SIGNER_FIELDS, csv_of, xlsx_of
from tests.support.console import Console, location, signed_in
from tests.support.signing import template


def text(reply) -> str:
    return reply.body.decode()


def unpacking_to(size: int) -> bytes:
    """A small archive whose one part unpacks to `size` bytes (of zeros): a workbook that would fill memory."""
    packed = io.BytesIO()
    with (
        zipfile.ZipFile(packed, "w", zipfile.ZIP_DEFLATED) as archive,
        archive.open("xl/sharedStrings.xml", "w") as part,
    ):
        for _ in range(size // (1 << 20)):
            part.write(bytes(1 << 20))
        part.write(bytes(size % (1 << 20)))
    return packed.getvalue()


async def upload(console: Console, template_id: int, data: bytes, name: str = "people.csv"):
    """The file posted from the template's send page: the mapping page (or the send page with the refusal)."""
    await console.get(f"/console/templates/{template_id}/send")
    form = FormData()
    form.add_field("csrf", console.csrf or "")
    form.add_field("file", io.BytesIO(data), filename=name, content_type="application/octet-stream")
    return await console.request("POST", f"/console/templates/{template_id}/bulk", data=form)


def mapping_of(page: str) -> dict[str, str]:
    """The mapping page's form as shown: the carried table, its one-time send token and the chosen target of each
    column."""
    found = {"table": html.unescape(re.search(r'name="table" value="([^"]*)"', page).group(1))}
    found["send_token"] = re.search(r'name="send_token" value="([^"]*)"', page).group(1)
    for column, options in re.findall(r'<select id="(column-\d+)"[^>]*>(.*?)</select>', page, re.DOTALL):
        chosen = re.search(r'<option value="([^"]*)" selected>', options)
        found[column] = html.unescape(chosen.group(1)) if chosen else ""
    return found


async def post_mapping(console: Console, template_id: int, mapping: dict[str, str], button: str):
    """The mapping page posted back as the browser posts it (multipart), with `button` ("check" or "send")."""
    form = FormData(default_to_multipart=True)
    form.add_field("csrf", console.csrf or "")
    for name, value in {**mapping, button: "1"}.items():
        form.add_field(name, value)
    return await console.request("POST", f"/console/templates/{template_id}/bulk", data=form)


async def submissions_of(api, template_id: int) -> list[dict]:
    reply = await api.get(f"/api/submissions?template_id={template_id}&limit=100")
    assert reply.status == 200, reply.json
    return reply.json["data"]


async def test_a_csv_is_read_its_columns_guessed_from_the_headers_and_the_first_rows_shown(api):
    template_id = await template(api, SIGNER_FIELDS)
    console = await signed_in(api)
    page = await upload(console, template_id, GOOD_CSV.encode())
    assert page.status == 200, text(page)
    body = text(page)
    mapping = mapping_of(body)
    signer_fields = (await api.get(f"/api/templates/{template_id}")).json["fields"]
    amount = next(field["uuid"] for field in signer_fields if field["name"] == "Amount")
    assert [mapping[f"column-{i}"] for i in range(4)] == ["role.0.email", "role.0.name", f"field.{amount}", ""]
    assert 'for="column-0">Column “Email”</label>' in body, "each select is labelled by its column"
    assert "Signature" not in re.search(r"<select.*</select>", body, re.DOTALL).group(0), "no file field is offered"
    assert '<th scope="row">2</th>' in body and "ann@example.com" in body, "the first rows, numbered as in the file"
    assert "All 2 rows can be sent." in body
    assert await submissions_of(api, template_id) == [], "reading the file sends nothing"


async def test_a_good_csv_sent_makes_one_submission_for_each_row_with_its_values(api, db):
    template_id = await template(api, SIGNER_FIELDS)
    console = await signed_in(api)
    mapping = mapping_of(text(await upload(console, template_id, GOOD_CSV.encode())))
    reply = await post_mapping(console, template_id, mapping, "send")
    assert reply.status == 303, text(reply)
    assert re.fullmatch(rf"/console/templates/{template_id}/bulk/sent\?first=\d+&last=\d+&count=2", location(reply))

    made = await submissions_of(api, template_id)
    assert sorted((s["submitters"][0]["email"], s["submitters"][0]["name"]) for s in made) == [
        ("ann@example.com", "Ann Smith"),
        ("bob@example.com", "Bob Jones"),
    ]
    assert {s["source"] for s in made} == {"bulk"}
    ann = next(s for s in made if s["submitters"][0]["email"] == "ann@example.com")
    values = (await api.get(f"/api/submitters/{ann['submitters'][0]['id']}")).json["values"]
    assert {"field": "Amount", "value": 12} in values
    progress = await console.get(location(reply))
    assert "2 of 2 submissions created." in text(progress)
    assert "kept in the outbox" in text(progress), "without SMTP the page says the invitations stay in the outbox"


async def test_a_bulk_send_follows_the_accounts_reminder_schedule(api, clock):
    await api.app[REMINDERS].change_settings(1, {"first_duration": "two_hours"}, {})
    template_id = await template(api, SIGNER_FIELDS)
    console = await signed_in(api)
    mapping = mapping_of(text(await upload(console, template_id, GOOD_CSV.encode())))
    assert (await post_mapping(console, template_id, mapping, "send")).status == 303
    await api.app[WORKER].drain()
    clock.advance(timedelta(hours=2))
    await api.app[WORKER].drain()
    made_all = await submissions_of(api, template_id)
    assert len(made_all) == 2
    for made in made_all:
        events = (await api.get(f"/api/submissions/{made['id']}")).json["submission_events"]
        assert [e["event_type"] for e in events] == ["send_email", "send_reminder_email"]


async def test_an_xlsx_is_read_as_a_csv_is_with_numbers_and_dates_as_text(api):
    template_id = await template(api, SIGNER_FIELDS)
    console = await signed_in(api)
    data = xlsx_of([["E-Mail", "Full Name", "Amount"], ["ann@example.com", "Ann Smith", 12.0], [None, None, None]])
    page = await upload(console, template_id, data, "people.xlsx")
    assert page.status == 200, text(page)
    mapping = mapping_of(text(page))
    assert mapping["column-0"] == "role.0.email" and mapping["column-1"].startswith("field.")
    reply = await post_mapping(console, template_id, mapping, "send")
    assert reply.status == 303, text(reply)
    [made] = await submissions_of(api, template_id)
    values = (await api.get(f"/api/submitters/{made['submitters'][0]['id']}")).json["values"]
    assert {"field": "Amount", "value": 12} in values and {"field": "Full Name", "value": "Ann Smith"} in values


async def test_a_bad_row_is_refused_by_its_number_and_nothing_is_sent(api, db):
    template_id = await template(api, SIGNER_FIELDS)
    console = await signed_in(api)
    data = csv_of(
        [
            ["Email", "Name", "Amount"],
            ["ann@example.com", "Ann", "12"],
            ["not-an-address", "Bob", "7"],
            ["", "Cy", "3"],
            ["dee@example.com", "Dee", "lots"],
        ]
    )
    page = await upload(console, template_id, data)
    assert page.status == 422
    body = html.unescape(text(page))
    assert "Row 3, “Signer”: email is invalid." in body, "the API's rule for an address"
    assert "Row 4: the email address of “Signer” is missing." in body
    assert re.search(r"Row 5, “Signer”: [^<]*Amount[^<]*", body), "a value the field refuses"
    assert "Row 2" not in body
    reply = await post_mapping(console, template_id, mapping_of(text(page)), "send")
    assert reply.status == 422 and "Nothing has been sent." in text(reply)
    assert await submissions_of(api, template_id) == []
    assert await stored_emails.list_emails(db, 1, limit=10) == []


async def test_a_mapping_without_an_email_or_to_a_field_the_template_lacks_is_refused_before_any_row(api):
    template_id = await template(api, SIGNER_FIELDS)
    console = await signed_in(api)
    mapping = mapping_of(text(await upload(console, template_id, GOOD_CSV.encode())))
    no_email = await post_mapping(console, template_id, {**mapping, "column-0": ""}, "send")
    assert no_email.status == 422
    assert "No column holds an email address" in html.unescape(text(no_email))
    unknown = await post_mapping(console, template_id, {**mapping, "column-3": "field.not-a-field"}, "send")
    assert unknown.status == 422
    assert "Column “Notes” is set to a field the template does not have." in html.unescape(text(unknown))
    twice = await post_mapping(console, template_id, {**mapping, "column-1": "role.0.email"}, "check")
    assert "Columns “Email” and “Name” hold the same thing" in html.unescape(text(twice))
    assert await submissions_of(api, template_id) == []


async def test_a_two_role_file_names_each_roles_columns_and_invites_in_order(api):
    template_id = await template(api)  # First Party and Second Party
    console = await signed_in(api)
    data = csv_of(
        [
            ["First Party email", "First Party name", "Second Party email", "Buyer Name"],
            ["ann@example.com", "Ann", "bob@example.com", "Bob Buyer"],
        ]
    )
    mapping = mapping_of(text(await upload(console, template_id, data)))
    assert [mapping[f"column-{i}"] for i in range(3)] == ["role.0.email", "role.0.name", "role.1.email"]
    assert (await post_mapping(console, template_id, mapping, "send")).status == 303
    [made] = await submissions_of(api, template_id)
    assert [(s["role"], s["email"]) for s in made["submitters"]] == [
        ("First Party", "ann@example.com"),
        ("Second Party", "bob@example.com"),
    ]


async def test_files_that_are_not_tables_or_too_large_are_refused_on_the_send_page(api):
    template_id = await template(api, SIGNER_FIELDS)
    console = await signed_in(api)
    cases = {
        b"Email\n": "no rows under it",
        b"\xd0\xcf\x11\xe0old": "old Excel file",
        "Email\nänn@example.com\n".encode("latin-1"): "not UTF-8",
        b"PK\x03\x04broken": "cannot be read as CSV or XLSX",
        xlsx_of([["Email"], ["ann@example.com"]])[:2000]: "cannot be read as CSV or XLSX",
        unpacking_to(bulk_table.MAX_UNPACKED + 1): "too large",
        csv_of([["Email"]] + [[f"p{n}@example.com"] for n in range(bulk_table.MAX_ROWS + 1)]): "too many rows",
        b"Email\n" + b"x" * bulk_table.MAX_BYTES: "too large",
    }
    for data, message in cases.items():
        page = await upload(console, template_id, data)
        assert page.status == 422, message
        assert message in html.unescape(text(page)), message
        assert 'id="bulk-file" name="file"' in text(page) and 'aria-invalid="true"' in text(page)


async def test_a_thousand_rows_are_accepted_in_one_request_and_their_invitations_are_queued_as_jobs(
    mailing, db, smtp_server
):
    template_id = await template(mailing, SIGNER_FIELDS)
    console = await signed_in(mailing)
    rows = [["Email", "Name"]] + [[f"signer{n}@example.com", f"Signer {n}"] for n in range(1000)]
    page = await upload(console, template_id, csv_of(rows))
    assert page.status == 200 and "All 1000 rows can be sent." in text(page)
    reply = await post_mapping(console, template_id, mapping_of(text(page)), "send")
    assert reply.status == 303, text(reply)[:2000]

    emails = await stored_emails.list_emails(db, 1, limit=2000)
    assert len(emails) == 1000 and {email.status for email in emails} == {"pending"}, "queued, none sent yet"
    assert {email.to_address for email in emails} == {f"signer{n}@example.com" for n in range(1000)}
    jobs = [job for job_id in range(1, 1100) if (job := await stored_jobs.get_job(db, job_id))]
    queued = {job.payload["email_id"] for job in jobs if job.kind == invitations.SEND_JOB}
    assert queued == {email.id for email in emails}, "one sending job for each invitation"
    assert {job.status for job in jobs if job.kind == invitations.SEND_JOB} == {JobStatus.PENDING}
    assert smtp_server.received == [], "nothing was sent inside the request"

    progress = await console.get(location(reply), headers={"Accept": "application/json"})
    assert json.loads(progress.body) == {"created": 1000, "invited": 1000, "sent": 0}
    page = text(await console.get(location(reply)))
    assert "0 of 1000 invitations sent." in page and 'max="1000" value="0"' in page


async def test_the_progress_page_counts_the_invitations_as_the_worker_sends_them(mailing, smtp_server):
    template_id = await template(mailing, SIGNER_FIELDS)
    console = await signed_in(mailing)
    mapping = mapping_of(text(await upload(console, template_id, GOOD_CSV.encode())))
    sent_page = location(await post_mapping(console, template_id, mapping, "send"))
    await mailing.app[WORKER].drain()
    progress = await console.get(sent_page, headers={"Accept": "application/json"})
    assert json.loads(progress.body) == {"created": 2, "invited": 2, "sent": 2}
    assert "All invitations have been sent." in text(await console.get(sent_page))
    assert len(smtp_server.received) == 2


async def test_another_accounts_template_cannot_be_bulk_sent(api, other_account):
    other = api.with_key(other_account.live)
    template_id = await template(other, SIGNER_FIELDS)
    console = await signed_in(api)
    await console.get("/console")
    form = FormData()
    form.add_field("csrf", console.csrf or "")
    form.add_field("file", GOOD_CSV.encode(), filename="people.csv")
    reply = await console.request("POST", f"/console/templates/{template_id}/bulk", data=form)
    assert reply.status == 404
    assert await submissions_of(other, template_id) == []


async def test_a_bulk_post_without_the_csrf_token_is_refused(api):
    template_id = await template(api, SIGNER_FIELDS)
    console = await signed_in(api)
    form = FormData()
    form.add_field("file", GOOD_CSV.encode(), filename="people.csv")
    reply = await console.request("POST", f"/console/templates/{template_id}/bulk", data=form)
    assert reply.status == 403


async def test_many_refused_rows_show_the_first_fifty_and_count_the_rest(api):
    template_id = await template(api, SIGNER_FIELDS)
    console = await signed_in(api)
    page = await upload(console, template_id, csv_of([["Email"]] + [[f"bad{n}"] for n in range(60)]))
    body = html.unescape(text(page))
    assert page.status == 422
    assert body.count("email is invalid.") == 50 and "And 10 more problems." in body
    assert "Row 51," in body and "Row 52," not in body


async def test_an_archived_template_refuses_the_send_as_a_whole_not_row_by_row(api):
    template_id = await template(api, SIGNER_FIELDS)
    console = await signed_in(api)
    mapping = mapping_of(text(await upload(console, template_id, GOOD_CSV.encode())))
    assert (await api.delete(f"/api/templates/{template_id}")).status == 200
    reply = await post_mapping(console, template_id, mapping, "send")
    assert reply.status == 422
    body = html.unescape(text(reply))
    assert "Template has been archived" in body and "Row 2" not in body
    assert await submissions_of(api, template_id) == []


async def test_the_bulk_pages_open_only_for_the_accounts_template_and_the_mapping_address_leads_to_send(
    api, other_account
):
    template_id = await template(api, SIGNER_FIELDS)
    console = await signed_in(api)
    reply = await console.get(f"/console/templates/{template_id}/bulk", allow_redirects=False)
    assert reply.status == 303 and location(reply) == f"/console/templates/{template_id}/send#bulk-title"
    theirs = await template(api.with_key(other_account.live), SIGNER_FIELDS)
    assert (await console.get(f"/console/templates/{theirs}/bulk", allow_redirects=False)).status == 404
    assert (await console.get(f"/console/templates/{theirs}/bulk/sent?first=1&last=9&count=9")).status == 404
    assert (await console.get(f"/console/templates/{template_id}/bulk/sent?first=x&last=9&count=9")).status == 404


def declaring(data: bytes, dimension: str, extra_rows: str = "") -> bytes:
    """The workbook with its sheet's <dimension> replaced, and `extra_rows` (XML) added after its rows."""
    source, packed = zipfile.ZipFile(io.BytesIO(data)), io.BytesIO()
    with zipfile.ZipFile(packed, "w", zipfile.ZIP_DEFLATED) as archive:
        for info in source.infolist():
            part = source.read(info.filename)
            if info.filename == "xl/worksheets/sheet1.xml":
                part = re.sub(rb'<dimension ref="[^"]*"/>', f'<dimension ref="{dimension}"/>'.encode(), part)
                part = part.replace(b"</sheetData>", extra_rows.encode() + b"</sheetData>")
            archive.writestr(info.filename, part)
    return packed.getvalue()


def test_an_xlsx_declaring_the_widest_sheet_has_only_its_own_cells_read_not_sixteen_thousand_a_row():
    rows = [["Email", "Name"]] + [[f"a{n}@example.com", f"N {n}"] for n in range(20)]
    data = declaring(xlsx_of(rows), "A1:XFD1048576")
    converted = 0

    def count_conversions(frame, event, arg):
        nonlocal converted
        converted += event == "call" and frame.f_code is bulk_table._text.__code__

    sys.setprofile(count_conversions)
    try:
        table = bulk_table._xlsx(data)
    finally:
        sys.setprofile(None)
    assert table.headers == ("Email", "Name") and len(table.rows) == 20
    assert converted <= len(rows) * 2, f"{converted} cells converted to text for a sheet of {len(rows) * 2}"


async def test_a_sheet_of_many_empty_row_elements_is_refused_for_its_blank_rows(api):
    template_id = await template(api, SIGNER_FIELDS)
    console = await signed_in(api)
    empties = "".join(f'<row r="{n}"/>' for n in range(10, 10 + bulk_table.MAX_BLANK_ROWS + 1))
    data = declaring(xlsx_of([["Email"], ["ann@example.com"]]), "A1:XFD1048576", empties)
    page = await upload(console, template_id, data, "people.xlsx")
    assert page.status == 422
    assert f"too many blank rows: at most {bulk_table.MAX_BLANK_ROWS}" in text(page)


async def test_an_xlsx_wider_than_the_columns_taken_is_refused_for_its_columns_whatever_it_declares(api):
    template_id = await template(api, SIGNER_FIELDS)
    console = await signed_in(api)
    header = ["Email"] + [f"Column {n}" for n in range(bulk_table.MAX_COLUMNS + 5)]
    data = declaring(xlsx_of([header, ["ann@example.com"]]), "A1:B2")
    page = await upload(console, template_id, data, "people.xlsx")
    assert page.status == 422
    assert f"too many columns: at most {bulk_table.MAX_COLUMNS}" in text(page)


async def test_a_malformed_carried_table_is_refused_with_a_page_never_a_500(api):
    template_id = await template(api, SIGNER_FIELDS)
    console = await signed_in(api)
    mapping = mapping_of(text(await upload(console, template_id, GOOD_CSV.encode())))
    for carried in [
        '{"headers":["a"],"rows":[[Infinity,["x"]]]}',
        '{"headers":["a"],"rows":[[2,[NaN]]]}',
        "[" * 200_000,
        '{"headers":["a"],"rows":[[2.0,["x"]]]}',
        '{"headers":["a"],"rows":[[true,["x"]]]}',
        '{"headers":["a"],"rows":[[2,[1]]]}',
        '{"headers":["a"],"rows":[[2,["x"],3]]}',
        '{"headers":[1],"rows":[[2,["x"]]]}',
        '{"headers":["a"],"rows":[[2,["x"]]],"more":1}',
        '{"headers":["a"],"rows":[[' + "9" * 5000 + ',["x"]]]}',
        '["headers","rows"]',
    ]:
        reply = await post_mapping(console, template_id, {**mapping, "table": carried}, "check")
        assert reply.status == 422, (carried[:60], reply.status)
        assert "cannot be read as CSV or XLSX" in text(reply), carried[:60]
    many = json.dumps({"headers": ["a"], "rows": [[n, ["x"]] for n in range(2, bulk_table.MAX_ROWS + 3)]})
    reply = await post_mapping(console, template_id, {**mapping, "table": many}, "check")
    assert reply.status == 422 and "too many rows" in text(reply)


async def test_a_send_posted_twice_makes_its_submissions_once_and_leads_to_the_first_sends_progress(api):
    template_id = await template(api, SIGNER_FIELDS)
    console = await signed_in(api)
    mapping = mapping_of(text(await upload(console, template_id, GOOD_CSV.encode())))
    first = await post_mapping(console, template_id, mapping, "send")
    again = await post_mapping(console, template_id, mapping, "send")
    assert (first.status, again.status) == (303, 303), text(again)
    assert location(again) == location(first)
    assert len(await submissions_of(api, template_id)) == 2


async def test_a_send_without_the_forms_one_time_token_makes_nothing(api):
    template_id = await template(api, SIGNER_FIELDS)
    console = await signed_in(api)
    mapping = mapping_of(text(await upload(console, template_id, GOOD_CSV.encode())))
    for token in ["", "not-a-token-we-issued"]:
        reply = await post_mapping(console, template_id, {**mapping, "send_token": token}, "send")
        assert reply.status == 422
        assert "too old to send from" in text(reply)
    assert await submissions_of(api, template_id) == []


async def test_a_bulk_send_refused_partway_keeps_the_batches_before_and_names_them(api, db):
    template_id = await template(api, SIGNER_FIELDS)
    principal = await stored_accounts.find_principal(db, tokens.digest(LIVE_KEY))
    good = [
        {"template_id": template_id, "submitters": [{"role": "Signer", "email": f"s{n}@example.com"}]} for n in range(2)
    ]
    refused = {"template_id": template_id, "submitters": []}
    with pytest.raises(PartlyMade) as stopped:
        await api.app[SUBMISSIONS].create_many(principal, [*good, refused, good[0]], source="bulk", batch=2)
    assert [s.id for s in stopped.value.made] == sorted(s["id"] for s in await submissions_of(api, template_id))
    assert len(stopped.value.made) == 2 and isinstance(stopped.value.refused, errors.Invalid)


async def test_a_send_stopped_partway_by_archiving_says_how_many_were_made_and_a_repost_leads_to_them(
    aiohttp_client, make_app
):
    # Limits lifted: the list looked at below is answered from memory until the first submissions commit, so
    # the looks come faster than a key's limit allows.
    api = Api(await aiohttp_client(make_app(rate_limit_per_key=0, rate_limit_per_ip=0)))
    template_id = await template(api, SIGNER_FIELDS)
    console = await signed_in(api)
    rows = [["Email"]] + [[f"signer{n}@example.com"] for n in range(300)]
    mapping = mapping_of(text(await upload(console, template_id, csv_of(rows))))
    sending = asyncio.ensure_future(post_mapping(console, template_id, mapping, "send"))
    while not sending.done() and not await submissions_of(api, template_id):
        pass  # each look is a request: the send goes on meanwhile, until its first fifty are committed
    assert (await api.delete(f"/api/templates/{template_id}")).status == 200
    reply = await sending

    assert reply.status == 422, text(reply)[:500]
    stopped = re.search(r"Sending stopped: (\d+) submissions were made .* the other (\d+) were not made", text(reply))
    made, rest = int(stopped.group(1)), int(stopped.group(2))
    assert made + rest == 300 and 0 < made < 300 and made % 50 == 0
    assert "Template has been archived" in html.unescape(text(reply))
    assert 'name="send"' not in text(reply), "the rest cannot be sent from the page again"
    again = await post_mapping(console, template_id, mapping, "send")
    assert again.status == 303
    assert f"{made} of {made} submissions created." in text(await console.get(location(again)))


async def test_a_send_token_whose_post_made_nothing_is_given_back_and_one_that_made_some_is_kept(db, clock):
    """A send stopped before its first batch (the database away, the template archived meanwhile) must not leave
    its form refused as "already being sent" for the token's whole life."""
    async with db.transaction() as tx:
        await form_posts.claim(tx, "nothing-made", "bulk_send", clock.now())
        await form_posts.claim(tx, "some-made", "bulk_send", clock.now())
        await form_posts.settle(tx, "some-made", 7)
    async with db.transaction() as tx:
        await form_posts.release(tx, "nothing-made")
        await form_posts.release(tx, "some-made")
    async with db.transaction() as tx:
        await form_posts.claim(tx, "nothing-made", "bulk_send", clock.now())  # claimable again
        with pytest.raises(form_posts.Taken):
            await form_posts.claim(tx, "some-made", "bulk_send", clock.now())
    assert await form_posts.made_by(db, "some-made", "bulk_send") == 7
