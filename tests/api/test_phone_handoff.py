"""Continue on a phone: a one-time link (and its QR code) for one signature field, the drawing the phone sends saved
once, the desktop told; the link stops working once used, once the signer completes or declines, and after its
lifetime; only its hash is kept."""

import asyncio
import hashlib
from datetime import timedelta
from urllib.parse import urlsplit

import storage.signature_modes as stored_modes
from signsvc.submissions import email_verification, phone_handoff
from tests.support.documents import b64, png
from tests.support.signing import act, send, template

DRAWING = "data:image/png;base64," + b64(png(300, 100))
AREA = {"x": 0.1, "y": 0.5, "w": 0.3, "h": 0.08, "page": 1}


async def signer(api, **preferences) -> dict:
    fields = [
        {"name": "Signature", "type": "signature", "role": "First Party", "areas": [AREA], "preferences": preferences},
        {"name": "Name", "type": "text", "role": "First Party", "areas": [{**AREA, "y": 0.7}]},
    ]
    template_id = await template(api, fields)
    [ann] = await send(api, template_id, {"email": "ann@example.com", "name": "Ann"})
    return {**ann, "template_id": template_id}


async def field_uuid(api, ann: dict, name: str = "Signature") -> str:
    found = await api.get(f"/api/templates/{ann['template_id']}")
    return next(f["uuid"] for f in found.json["fields"] if f["name"] == name)


async def started(api, ann: dict) -> dict:
    reply = await api.with_key(None).post(f"/s/{ann['slug']}/phone", json={"field": await field_uuid(api, ann)})
    assert reply.status == 201, reply.json
    return reply.json


def phone_path(handoff: dict) -> str:
    return urlsplit(handoff["url"]).path


async def status(api, ann: dict, handoff: dict) -> dict:
    reply = await api.with_key(None).get(f"/s/{ann['slug']}/phone/{handoff['id']}")
    assert reply.status == 200, reply.json
    return reply.json


async def test_a_phone_link_saves_the_drawing_once_and_the_desktop_sees_it(api, db):
    ann = await signer(api)
    handoff = await started(api, ann)
    assert handoff["qr"].startswith("data:image/svg+xml")
    assert phone_path(handoff).startswith("/p/")
    assert (await status(api, ann, handoff))["status"] == "waiting"
    page = await api.with_key(None).get(phone_path(handoff), headers={"Accept": "text/html"})
    assert page.status == 200 and "phone.js" in page.body.decode()
    assert "script-src 'self'" in page.headers["Content-Security-Policy"]
    sent = await api.with_key(None).post(phone_path(handoff), json={"value": DRAWING})
    assert sent.status == 200, sent.json
    told = await status(api, ann, handoff)
    assert told["status"] == "signed" and "/file/" in told["value"]
    again = await api.with_key(None).post(phone_path(handoff), json={"value": DRAWING})
    assert again.status == 410
    assert again.json == {"error": phone_handoff.GONE}
    assert (await api.with_key(None).get(phone_path(handoff))).status == 410
    values = (await api.get(f"/api/submitters/{ann['id']}")).json["values"]
    link = next(v["value"] for v in values if v["field"] == "Signature")
    uuid = urlsplit(link).path.split("/")[2].split(".")[0]
    assert (await stored_modes.origins(db, [uuid]))[uuid].made_as == "drawn"


async def test_a_phone_link_stops_working_after_its_lifetime(api, clock):
    ann = await signer(api)
    handoff = await started(api, ann)
    clock.advance(phone_handoff.LIFETIME + timedelta(seconds=1))
    assert (await api.with_key(None).get(phone_path(handoff))).status == 410
    assert (await api.with_key(None).post(phone_path(handoff), json={"value": DRAWING})).status == 410
    assert (await status(api, ann, handoff))["status"] == "expired"


async def test_a_phone_link_stops_working_once_the_signer_declines(api):
    ann = await signer(api)
    handoff = await started(api, ann)
    assert (await act(api, ann["slug"], "decline", {"reason": "No"})).status == 200
    assert (await api.with_key(None).get(phone_path(handoff))).status == 410
    assert (await api.with_key(None).post(phone_path(handoff), json={"value": DRAWING})).status == 410
    assert (await status(api, ann, handoff))["status"] == "closed"


async def test_a_phone_link_stops_working_once_the_signer_completes(api):
    ann = await signer(api)
    handoff = await started(api, ann)
    done = await act(api, ann["slug"], "complete", {"values": {"Signature": "Ann", "Name": "Ann"}})
    assert done.status == 200, done.json
    assert (await api.with_key(None).get(phone_path(handoff))).status == 410
    assert (await api.with_key(None).post(phone_path(handoff), json={"value": DRAWING})).status == 410


async def test_only_the_hash_of_a_phone_link_is_stored(api, db):
    ann = await signer(api)
    handoff = await started(api, ann)
    token = phone_path(handoff).removeprefix("/p/")
    found = await stored_modes.handoff_by_digest(db, hashlib.sha256(token.encode()).hexdigest())
    assert found is not None and found.id == handoff["id"]
    assert await stored_modes.handoff_by_digest(db, token) is None


async def test_two_posts_of_one_phone_link_at_once_save_one_drawing(api):
    ann = await signer(api)
    handoff = await started(api, ann)
    first, second = await asyncio.gather(
        api.with_key(None).post(phone_path(handoff), json={"value": DRAWING}),
        api.with_key(None).post(phone_path(handoff), json={"value": DRAWING}),
    )
    assert sorted([first.status, second.status]) == [200, 410]


async def test_a_phone_link_is_only_for_a_drawable_signature_field_of_the_signer(api):
    typed = await signer(api, format="typed")
    reply = await api.with_key(None).post(f"/s/{typed['slug']}/phone", json={"field": await field_uuid(api, typed)})
    assert reply.status == 422
    assert reply.json == {"error": "field must be a signature or initials field of this signer that may be drawn"}
    ann = await signer(api)
    text = await api.with_key(None).post(f"/s/{ann['slug']}/phone", json={"field": await field_uuid(api, ann, "Name")})
    assert text.status == 422


async def test_the_phone_sends_a_drawing_not_text(api):
    ann = await signer(api)
    handoff = await started(api, ann)
    reply = await api.with_key(None).post(phone_path(handoff), json={"value": "Ann"})
    assert reply.status == 422
    assert reply.json == {"error": "value must be the drawing as a data:image/png;base64 URL"}
    assert (await api.with_key(None).post(phone_path(handoff), json={"value": DRAWING})).status == 200


async def test_another_signers_hand_off_is_not_found(api):
    ann = await signer(api)
    handoff = await started(api, ann)
    bob = await signer(api)
    reply = await api.with_key(None).get(f"/s/{bob['slug']}/phone/{handoff['id']}")
    assert reply.status == 404


async def test_an_unknown_phone_link_is_gone(api):
    assert (await api.with_key(None).get("/p/nothing-here", headers={"Accept": "text/html"})).status == 410
    assert (await api.with_key(None).post("/p/nothing-here", json={"value": DRAWING})).status == 410


async def test_a_just_expired_hand_off_still_tells_the_desktop_expired_after_another_is_started(api, clock):
    ann = await signer(api)
    handoff = await started(api, ann)
    clock.advance(phone_handoff.LIFETIME + timedelta(seconds=1))
    await started(api, ann)  # a new hand-off forgets old ones: only those ended a day ago
    assert (await status(api, ann, handoff))["status"] == "expired"
    clock.advance(stored_modes.KEPT_AFTER_EXPIRY)
    await started(api, ann)
    gone = await api.with_key(None).get(f"/s/{ann['slug']}/phone/{handoff['id']}")
    assert gone.status == 404  # forgotten: the desktop's script takes it as expired too


async def test_a_phone_link_stops_working_once_the_submission_is_archived(api):
    ann = await signer(api)
    handoff = await started(api, ann)
    assert (await api.delete(f"/api/submissions/{ann['submission_id']}")).status == 200
    assert (await api.with_key(None).get(phone_path(handoff))).status == 410
    sent = await api.with_key(None).post(phone_path(handoff), json={"value": DRAWING})
    assert sent.status == 410 and sent.json == {"error": phone_handoff.GONE}
    assert (await status(api, ann, handoff))["status"] == "closed"


async def test_a_phone_link_stops_working_once_the_submission_expires(api, clock):
    fields = [{"name": "Signature", "type": "signature", "role": "First Party", "areas": [AREA]}]
    template_id = await template(api, fields)
    ends = (clock.now() + timedelta(minutes=5)).isoformat()
    [ann] = await send(api, template_id, {"email": "ann@example.com"}, expire_at=ends)
    handoff = await started(api, {**ann, "template_id": template_id})
    clock.advance(timedelta(minutes=6))
    assert (await api.with_key(None).get(phone_path(handoff))).status == 410
    sent = await api.with_key(None).post(phone_path(handoff), json={"value": DRAWING})
    assert sent.status == 410 and sent.json == {"error": phone_handoff.GONE}


async def test_a_signer_who_must_verify_their_email_is_refused_a_phone_link(api):
    fields = [{"name": "Signature", "type": "signature", "role": "First Party", "areas": [AREA]}]
    template_id = await template(api, fields)
    [ann] = await send(api, template_id, {"email": "ann@example.com", "require_email_2fa": True})
    ann = {**ann, "template_id": template_id}
    reply = await api.with_key(None).post(f"/s/{ann['slug']}/phone", json={"field": await field_uuid(api, ann)})
    assert reply.status == 403
    assert reply.json == {"error": email_verification.REQUIRED}


async def test_the_submitters_language_picks_the_phone_pages_catalogue_before_the_browsers(api):
    ann = await signer(api)
    [tess] = await send(api, ann["template_id"], {"email": "tess@example.com", "name": "Tess", "language": "de"})
    handoff = await started(api, {**tess, "template_id": ann["template_id"]})
    page = await api.with_key(None).get(phone_path(handoff), headers={"Accept": "text/html", "Accept-Language": "en"})
    shown = page.body.decode()
    assert page.status == 200 and "An meinen Computer senden" in shown and "Send to my computer" not in shown
