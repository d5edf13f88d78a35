"""Signing reasons asked by the account (`require_signing_reason`, console: Settings, Signatures): a signature field
without reasons of its own offers the default reasons and "Other" with the signer's own words, in the signer's
language; a reason is then required to complete, kept beside the signature and drawn with its id. A field's own
`preferences.reasons` stay its only choice."""

import re

import storage.submissions as stored
from tests.support.console import signed_in
from tests.support.documents import b64, png
from tests.support.pdf_text import page_texts
from tests.support.results import fetch
from tests.support.signing import act, send, submission, template

DRAWING = "data:image/png;base64," + b64(png(300, 100))
AREA = {"x": 0.1, "y": 0.5, "w": 0.3, "h": 0.08, "page": 1}
SETTINGS = "/console/settings/signatures"


def sign_field(kind: str = "signature", **preferences) -> dict:
    return {"name": "Signature", "type": kind, "role": "First Party", "areas": [AREA], "preferences": preferences}


async def signer(api, kind: str = "signature", **preferences) -> dict:
    fields = [sign_field(kind, **preferences)]
    [ann] = await send(api, await template(api, fields), {"email": "ann@example.com", "name": "Ann"})
    return ann


async def ask_reasons(api, on: bool = True) -> None:
    console = await signed_in(api)
    reply = await console.post(SETTINGS, {"typed": "on", "id_reason": "on", **({"reasons": "on"} if on else {})})
    assert reply.status == 303


async def form(api, slug: str, language: str = "en") -> str:
    return (await api.with_key(None).get(f"/s/{slug}", headers={"Accept-Language": language})).body.decode()


async def signed(api, slug: str) -> None:
    body = {"values": {"Signature": DRAWING}, "signatures": {"Signature": {"mode": "drawn"}}}
    reply = await act(api, slug, "values", body)
    assert reply.status == 200, reply.json


async def signed_text(api, worker, submission_id: int) -> str:
    await worker.drain()
    found = await submission(api, submission_id)
    return "\n".join(page_texts(await fetch(api, found["documents"][0]["url"])))


async def reasons_kept(db, submitter_id: int) -> list[str]:
    kept = (await stored.get_submitter(db, submitter_id)).field_values
    return [value for key, value in kept.items() if key.endswith(":reason")]


def reason_select(html: str) -> str:
    found = re.search(r'<select id="r-[^"]+" class="reason"[^>]*>', html)
    return found.group() if found else ""


def options(html: str) -> list[str]:
    select = re.search(r'<select id="r-[^"]+" class="reason".*?</select>', html, re.S)
    return re.findall(r"<option [^>]*>([^<]*)</option>", select.group()) if select else []


# The setting


async def test_require_signing_reason_is_off_by_default_and_set_on_the_console_signatures_page(api):
    console = await signed_in(api)
    box = re.compile(r'<input id="reasons" name="reasons" type="checkbox" [^>]*>')
    assert "checked" not in box.search((await console.get(SETTINGS)).body.decode()).group()
    assert (await console.post(SETTINGS, {"typed": "on", "reasons": "on"})).status == 303
    assert "checked" in box.search((await console.get(SETTINGS)).body.decode()).group()
    assert (await console.post(SETTINGS, {"typed": "on"})).status == 303
    assert "checked" not in box.search((await console.get(SETTINGS)).body.decode()).group()


async def test_without_the_setting_a_field_without_reasons_asks_none_and_keeps_none_sent(api):
    ann = await signer(api)
    assert options(await form(api, ann["slug"])) == []
    await signed(api, ann["slug"])
    reply = await act(api, ann["slug"], "complete", {"signatures": {"Signature": {"reason": "Approved"}}})
    assert reply.status == 200, reply.json  # not refused: a form opened while the account asked one sends it
    values = (await api.get(f"/api/submitters/{ann['id']}")).json["values"]
    assert [value["field"] for value in values] == ["Signature"]  # no reason beside it


async def test_turned_off_while_the_form_is_open_the_reason_the_page_sends_again_is_no_refusal(api, db):
    await ask_reasons(api)
    ann = await signer(api)
    body = {"values": {"Signature": DRAWING}, "signatures": {"Signature": {"mode": "drawn", "reason": "Approved"}}}
    assert (await act(api, ann["slug"], "values", body)).status == 200
    await ask_reasons(api, on=False)
    reply = await act(
        api, ann["slug"], "complete", {"signatures": {"Signature": {"mode": "drawn", "reason": "Approved"}}}
    )
    assert reply.status == 200, reply.json
    assert await reasons_kept(db, ann["id"]) == ["Approved"]  # given while it was asked


# The form's reasons


async def test_with_the_setting_the_form_offers_the_default_reasons_and_other_in_the_signers_language(api):
    await ask_reasons(api)
    ann = await signer(api)
    html = await form(api, ann["slug"])
    assert options(html) == ["Choose…", "Approved", "Reviewed", "Authored by me", "Other"]
    assert re.search(r'<option value="other" data-other >Other</option>', html)
    assert re.search(r'<div class="reason-other" hidden>', html)
    assert re.search(r'<input id="o-[^"]+" type="text" class="reason-text" value="" maxlength="200"', html)
    assert options(await form(api, ann["slug"], "de"))[1:] == [
        "Genehmigt",
        "Geprüft",
        "Von mir verfasst",
        "Sonstiges",
    ]


async def test_initials_ask_no_reason_with_the_setting_on(api):
    await ask_reasons(api)
    ann = await signer(api, "initials")
    assert options(await form(api, ann["slug"])) == []
    reply = await act(api, ann["slug"], "complete", {"values": {"Signature": DRAWING}})
    assert reply.status == 200, reply.json


async def test_a_fields_own_reasons_stay_its_only_choice_with_the_setting_on_without_other(api):
    await ask_reasons(api)
    ann = await signer(api, reasons=["Approved", "Witnessed"])
    html = await form(api, ann["slug"], "de")
    assert options(html)[1:] == ["Approved", "Witnessed"]
    assert "data-other" not in html and "reason-text" not in html
    await signed(api, ann["slug"])
    reply = await act(api, ann["slug"], "complete", {"signatures": {"Signature": {"reason": "My own words"}}})
    assert (reply.status, reply.json) == (
        422,
        {"error": "Signature: choose a signing reason of: Approved, Witnessed in `signatures`."},
    )


# Required, kept, drawn


async def test_with_the_setting_a_reason_is_required_at_completion_naming_the_field(api):
    await ask_reasons(api)
    ann = await signer(api)
    await signed(api, ann["slug"])
    reply = await act(api, ann["slug"], "complete", {})
    assert (reply.status, reply.json) == (422, {"error": "Signature: choose a signing reason in `signatures`."})
    reply = await act(api, ann["slug"], "complete", {"signatures": {"Signature": {"reason": "Reviewed"}}})
    assert reply.status == 200, reply.json


async def test_the_signers_own_words_are_kept_on_one_line_beside_the_signature_and_drawn_with_its_id(api, worker, db):
    await ask_reasons(api)
    ann = await signer(api, with_signature_id=True)
    await signed(api, ann["slug"])
    reason = {"signatures": {"Signature": {"reason": "  On behalf of\nthe  board  "}}}
    assert (await act(api, ann["slug"], "complete", reason)).status == 200
    kept = (await stored.get_submitter(db, ann["id"])).field_values
    assert [value for key, value in kept.items() if key.endswith(":reason")] == ["On behalf of the board"]
    values = (await api.get(f"/api/submitters/{ann['id']}")).json["values"]
    assert {"field": "Reason", "value": "On behalf of the board"} in values
    assert "Reason: On behalf of the board" in await signed_text(api, worker, ann["submission_id"])


async def test_a_default_reason_is_kept_and_drawn_as_the_signer_saw_it_in_their_language(api, worker):
    await ask_reasons(api)
    ann = await signer(api, with_signature_id=True)
    # The form opened in German first: the page's language is then the signer's (a later page in another one keeps it)
    reviewed = options(await form(api, ann["slug"], "de"))[2]  # as the German form words "Reviewed"
    assert reviewed == "Geprüft"
    await signed(api, ann["slug"])
    reason = {"signatures": {"Signature": {"reason": reviewed}}}
    assert (await act(api, ann["slug"], "complete", reason)).status == 200
    assert "Reason: Geprüft" in await signed_text(api, worker, ann["submission_id"])


async def test_an_other_reason_that_is_empty_or_too_long_is_refused_with_a_clear_422(api):
    await ask_reasons(api)
    ann = await signer(api)
    await signed(api, ann["slug"])
    empty = "Signature: the signing reason is empty: choose one or type it in `signatures`."
    long = "Signature: the signing reason is longer than 200 characters in `signatures`."
    for reason, error in ((" \n\t ", empty), ("x" * 201, long), ("x" * 200 + "   ", None)):
        reply = await act(api, ann["slug"], "values", {"signatures": {"Signature": {"reason": reason}}})
        assert (reply.status, reply.json) == ((422, {"error": error}) if error else (200, reply.json)), reason
    reply = await act(api, ann["slug"], "values", {"signatures": {"Signature": {"reason": 7}}})
    assert (reply.status, reply.json) == (422, {"error": "Signature: reason must be a String in `signatures`."})


async def test_a_reason_saved_in_the_signers_words_comes_back_under_other_when_the_form_is_opened_again(api):
    await ask_reasons(api)
    ann = await signer(api)
    await signed(api, ann["slug"])
    body = {"signatures": {"Signature": {"reason": "As the notary"}}}
    assert (await act(api, ann["slug"], "values", body)).status == 200
    html = await form(api, ann["slug"])
    assert re.search(r'<option value="other" data-other selected>Other</option>', html)
    assert re.search(r'<div class="reason-other" >', html)
    assert re.search(r'class="reason-text" value="As the notary"', html)
    body = {"signatures": {"Signature": {"reason": "Approved"}}}
    assert (await act(api, ann["slug"], "values", body)).status == 200
    assert re.search(r'<option value="Approved" selected>Approved</option>', await form(api, ann["slug"]))


async def test_through_put_submitters_the_account_setting_asks_no_reason(api):
    await ask_reasons(api)
    ann = await signer(api)
    reply = await api.put(f"/api/submitters/{ann['id']}", json={"values": {"Signature": DRAWING}, "completed": True})
    assert reply.status == 200, reply.json


async def test_an_empty_reason_is_no_reason_given_the_completion_still_asks_one(api):
    await ask_reasons(api)
    listed, own = await signer(api, reasons=["Approved", "Witnessed"]), await signer(api)
    for ann in (listed, own):
        await signed(api, ann["slug"])
        reply = await act(api, ann["slug"], "values", {"signatures": {"Signature": {"reason": ""}}})
        assert reply.status == 200, reply.json
        reply = await act(api, ann["slug"], "complete", {"signatures": {"Signature": {"reason": ""}}})
        assert (reply.status, reply.json) == (422, {"error": "Signature: choose a signing reason in `signatures`."})


async def test_the_signers_own_words_keep_no_control_characters_bidi_overrides_or_invisible_marks(api, db):
    await ask_reasons(api)
    ann = await signer(api)
    await signed(api, ann["slug"])
    empty = {"error": "Signature: the signing reason is empty: choose one or type it in `signatures`."}
    for invisible in ("\u200b", "\ufeff", "\u2060", "\x07", " \u202e\u2066 \x1b "):
        reply = await act(api, ann["slug"], "values", {"signatures": {"Signature": {"reason": invisible}}})
        assert (reply.status, reply.json) == (422, empty), repr(invisible)
    for given, kept in (
        ("\x1b[31mred", "[31mred"),
        ("a\u202eb\u202c c", "ab c"),
        ("\u2067Signed\u2069 \u200bfor\ufeff me", "Signed for me"),
        ("\u0915\u094d\u200d\u0937 a\u200cb", "\u0915\u094d\u200d\u0937 a\u200cb"),  # ZWJ and ZWNJ stay
    ):
        reply = await act(api, ann["slug"], "values", {"signatures": {"Signature": {"reason": given}}})
        assert reply.status == 200, reply.json
        assert await reasons_kept(db, ann["id"]) == [kept], repr(given)


# Whose signature: the signer's in the form asks a reason, one given through the API none


async def test_a_read_only_signature_filled_at_creation_asks_no_reason_and_the_form_completes(api, db):
    await ask_reasons(api)
    fields = [
        {**sign_field(), "readonly": True},
        {"name": "Name", "type": "text", "role": "First Party", "areas": [AREA]},
    ]
    template_id = await template(api, fields)
    body = {"email": "ann@example.com", "values": {"Signature": DRAWING}}
    [ann] = await send(api, template_id, body)
    html = await form(api, ann["slug"])
    assert options(html) == [] and "reason-text" not in html
    notes = {"signatures": {"Signature": {"mode": "drawn"}}}  # as the form sends them, of every signature step
    reply = await act(api, ann["slug"], "complete", {"values": {"Name": "Ann"}, **notes})
    assert reply.status == 200, reply.json
    assert await reasons_kept(db, ann["id"]) == []


async def test_a_signature_given_through_put_submitters_asks_the_signer_none_until_they_sign_again(api):
    await ask_reasons(api)
    ann = await signer(api)
    assert (await api.put(f"/api/submitters/{ann['id']}", json={"values": {"Signature": DRAWING}})).status == 200
    select = reason_select(await form(api, ann["slug"]))
    assert "data-prefilled" in select and "required" not in select  # offered, not asked
    await signed(api, ann["slug"])
    assert "data-prefilled" not in reason_select(await form(api, ann["slug"]))
    reply = await act(api, ann["slug"], "complete", {})
    assert (reply.status, reply.json) == (422, {"error": "Signature: choose a signing reason in `signatures`."})
    other = await signer(api)
    assert (await api.put(f"/api/submitters/{other['id']}", json={"values": {"Signature": DRAWING}})).status == 200
    assert (await act(api, other["slug"], "complete", {})).status == 200


# A reason belongs to its signature


async def test_a_signature_the_signer_replaces_or_clears_takes_its_reason_with_it(api, db):
    await ask_reasons(api)
    ann = await signer(api)
    chosen = {"signatures": {"Signature": {"mode": "drawn", "reason": "Approved"}}}
    assert (await act(api, ann["slug"], "values", {"values": {"Signature": DRAWING}, **chosen})).status == 200
    assert await reasons_kept(db, ann["id"]) == ["Approved"]
    await signed(api, ann["slug"])  # a new signature, no reason with it
    assert await reasons_kept(db, ann["id"]) == [""]
    reply = await act(api, ann["slug"], "complete", {})
    assert (reply.status, reply.json) == (422, {"error": "Signature: choose a signing reason in `signatures`."})
    assert (await act(api, ann["slug"], "values", {"values": {"Signature": DRAWING}, **chosen})).status == 200
    assert (await act(api, ann["slug"], "values", {"values": {"Signature": None}})).status == 200
    assert await reasons_kept(db, ann["id"]) == []
    await signed(api, ann["slug"])
    reply = await act(api, ann["slug"], "complete", {})
    assert (reply.status, reply.json) == (422, {"error": "Signature: choose a signing reason in `signatures`."})


async def test_a_signature_replaced_through_put_submitters_takes_the_signers_reason_with_it(api, db):
    await ask_reasons(api)
    ann = await signer(api)
    chosen = {"signatures": {"Signature": {"mode": "drawn", "reason": "Approved"}}}
    assert (await act(api, ann["slug"], "values", {"values": {"Signature": DRAWING}, **chosen})).status == 200
    reply = await api.put(f"/api/submitters/{ann['id']}", json={"values": {"Signature": DRAWING}})
    assert reply.status == 200, reply.json
    assert await reasons_kept(db, ann["id"]) == []
    assert all(value["field"] != "Reason" for value in reply.json["values"])
    assert (await act(api, ann["slug"], "complete", {})).status == 200  # the API's signature asks none


async def test_a_reason_is_kept_while_its_signature_stays_through_other_changes(api, db):
    await ask_reasons(api)
    fields = [sign_field(), {"name": "Name", "type": "text", "role": "First Party", "areas": [AREA]}]
    [ann] = await send(api, await template(api, fields), {"email": "ann@example.com"})
    chosen = {"signatures": {"Signature": {"mode": "drawn", "reason": "Approved"}}}
    assert (await act(api, ann["slug"], "values", {"values": {"Signature": DRAWING}, **chosen})).status == 200
    assert (await act(api, ann["slug"], "values", {"values": {"Name": "Ann"}})).status == 200
    assert (await api.put(f"/api/submitters/{ann['id']}", json={"values": {"Name": "Ann Able"}})).status == 200
    assert await reasons_kept(db, ann["id"]) == ["Approved"]
