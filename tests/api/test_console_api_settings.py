"""The console's API settings: the signed-in user's keys masked until shown, rotating one after a confirmation
(the old key stops at once, as with `python run.py keys rotate`), test mode, the base address and the example
request with the key of the current mode."""

import re

import pytest
from cryptography.fernet import InvalidToken

import storage.accounts as stored
from signsvc.accounts.accounts import Accounts
from signsvc.accounts.key_seal import KeySeal
from signsvc.http.appkeys import ACCOUNTS, DB, FILES
from signsvc.http.web.console.session import Sessions
from storage.records import KeyMode
from tests.support.app import LIVE_KEY, TEST_KEY
from tests.support.console import Console, location, signed_in

PAGE = "/console/settings/api"
MASK = "•" * 12


def text(reply) -> str:
    return reply.body.decode()


def outside_details(html: str) -> str:
    """What the page shows before anything is opened: the text outside its <details> elements."""
    return re.sub(r"<details>.*?</details>", "", html, flags=re.DOTALL)


def shown_key(html: str, mode: str) -> str:
    return re.search(rf'<code class="secret" id="key-{mode}-value">([^<]+)</code>', html)[1]


def curl(html: str) -> str:
    return re.search(r'<code id="curl">([^<]+)</code>', html)[1].replace("&#34;", '"')


async def rotate(console: Console, mode: str, form: dict | None = None):
    await console.get(f"{PAGE}/keys/{mode}/rotate")
    return await console.post(f"{PAGE}/keys/{mode}/rotate", {"confirm": "yes"} if form is None else form)


async def test_keys_are_masked_until_the_user_reveals_them(api):
    console = await signed_in(api)
    page = text(await console.get(PAGE))
    shown = outside_details(page)
    assert LIVE_KEY not in shown and TEST_KEY not in shown
    assert shown.count(f"{MASK}{LIVE_KEY[-4:]}") >= 2  # both keys' last characters, and the example request
    assert "Hidden key ending in 0000" in shown
    assert (shown_key(page, "live"), shown_key(page, "test")) == (LIVE_KEY, TEST_KEY)
    assert "<details open" not in page
    assert page.count("Show the key") == 2 and 'data-copy="key-live-value"' in page
    for target, what in (
        ("key-live-value", "the live key"),
        ("key-test-value", "the test key"),
        ("base-url", "the base address"),
        ("curl", "the request"),
    ):
        assert f'data-copy="{target}" hidden>Copy<span class="visually-hidden"> {what}</span></button>' in page


async def test_the_page_shows_the_api_base_address_and_a_curl_example_with_the_live_key(api):
    console = await signed_in(api)
    page = text(await console.get(PAGE))
    assert '<code class="secret" id="base-url">http://signsvc.test/api</code>' in page
    assert curl(page) == f'curl -H "X-Auth-Token: {LIVE_KEY}" http://signsvc.test/api/user'
    assert "Test mode is off" in page and "with your live key" in page


async def test_test_mode_shows_the_test_key_in_use_and_in_the_curl_example(api):
    console = await signed_in(api)
    await console.get(PAGE)
    switched = await console.post("/console/mode", {"test_mode": "on", "next": PAGE})
    assert (switched.status, location(switched)) == (303, PAGE)
    page = text(await console.get(PAGE))
    assert curl(page) == f'curl -H "X-Auth-Token: {TEST_KEY}" http://signsvc.test/api/user'
    assert "Test mode is on" in page and "with your test key" in page
    in_use = re.search(
        r'id="key-(\w+)">\s*<h3 class="row">\s*<span>[^<]+</span>\s*<span class="badge good">Used now', page
    )
    assert in_use[1] == "test"
    assert (await api.with_key(TEST_KEY).get("/api/user")).status == 200


async def test_rotating_a_key_refuses_without_the_confirmation(api):
    console = await signed_in(api)
    confirm_page = await console.get(f"{PAGE}/keys/live/rotate")
    assert confirm_page.status == 200 and "Rotate the live key?" in text(confirm_page)
    assert 'name="confirm" value="yes" required' in text(confirm_page)
    for form in ({}, {"confirm": "no"}):
        refused = await console.post(f"{PAGE}/keys/live/rotate", form)
        assert refused.status == 422 and "Please confirm: tick the box." in text(refused)
    assert (await api.get("/api/user")).status == 200
    assert shown_key(text(await console.get(PAGE)), "live") == LIVE_KEY


async def test_rotating_a_key_the_configuration_fixes_warns_that_the_next_start_brings_it_back(api):
    console = await signed_in(api)  # the test service's keys are SIGNSVC_API_KEY and SIGNSVC_TEST_API_KEY
    for mode in ("live", "test"):
        assert "This key is fixed by the configuration" in text(await console.get(f"{PAGE}/keys/{mode}/rotate"))
    await rotate(console, "live")
    assert "This key is fixed by the configuration" not in text(await console.get(f"{PAGE}/keys/live/rotate"))


async def test_rotating_without_the_forms_csrf_token_changes_nothing(api):
    console = await signed_in(api)
    await console.get(f"{PAGE}/keys/live/rotate")
    refused = await console.post(f"{PAGE}/keys/live/rotate", {"confirm": "yes"}, csrf=False)
    assert refused.status == 403 and "This form has expired" in text(refused)
    assert (await api.get("/api/user")).status == 200


@pytest.mark.parametrize("mode,old", [("live", LIVE_KEY), ("test", TEST_KEY)])
async def test_after_rotating_in_the_console_the_old_key_is_refused_and_the_new_one_works(api, mode, old):
    console = await signed_in(api)
    reply = await rotate(console, mode)
    assert (reply.status, location(reply)) == (303, f"{PAGE}?done=api_{mode}_key_rotated")
    page = text(await console.get(location(reply)))
    assert f"Your {mode} key was rotated" in page
    new = shown_key(page, mode)
    assert new != old
    assert (await api.with_key(old).get("/api/user")).status == 401
    answer = await api.with_key(new).get("/api/user")
    assert answer.status == 200 and answer.json["email"] == "admin@example.com"
    other_mode, other_key = ("test", TEST_KEY) if mode == "live" else ("live", LIVE_KEY)
    assert shown_key(page, other_mode) == other_key
    assert (await api.with_key(other_key).get("/api/user")).status == 200


async def test_the_curl_example_follows_a_rotated_key(api):
    console = await signed_in(api)
    page = text(await console.get(location(await rotate(console, "live"))))
    assert curl(page) == f'curl -H "X-Auth-Token: {shown_key(page, "live")}" http://signsvc.test/api/user'


async def test_a_key_made_before_keys_were_sealed_asks_to_be_rotated_to_be_seen(api, db, clock):
    unsealed = await Accounts(db, clock).create_user(account_id=1, email="bob@example.com")
    console = await signed_in(api, "bob@example.com")
    page = text(await console.get(PAGE))
    assert page.count("Rotate it to see the new key here.") == 2
    assert unsealed.live not in page and 'id="curl"' not in page
    page = text(await console.get(location(await rotate(console, "live"))))
    new = shown_key(page, "live")
    assert page.count("Rotate it to see the new key here.") == 1 and unsealed.test not in page
    assert (await api.with_key(new).get("/api/user")).json["email"] == "bob@example.com"
    assert (await api.with_key(unsealed.live).get("/api/user")).status == 401


async def test_keys_are_stored_sealed_with_a_key_of_their_own_and_found_by_hash_alone(api):
    db = api.app[DB]
    [live, test] = await stored.active_api_keys(db, 1)
    assert (live.mode, test.mode) == (KeyMode.LIVE, KeyMode.TEST)
    assert LIVE_KEY not in (live.key_sealed or "")
    secret = api.app[FILES].secret_key
    assert KeySeal(secret).open(live.key_sealed) == LIVE_KEY
    assert KeySeal("another secret key").open(live.key_sealed) is None
    with pytest.raises(InvalidToken):
        Sessions(secret, api.app[ACCOUNTS].clock, secure=False).fernet.decrypt(live.key_sealed.encode())
    async with db.transaction() as tx:
        await stored.seal_api_key(tx, live.id, "not a sealed key")
    assert (await api.get("/api/user")).status == 200
    console = await signed_in(api)
    assert text(await console.get(PAGE)).count("Rotate it to see the new key here.") == 1


async def test_a_key_sealed_under_another_secret_key_asks_to_be_rotated(api, db, clock):
    await Accounts(db, clock, KeySeal("the secret key before")).create_user(account_id=1, email="bob@example.com")
    console = await signed_in(api, "bob@example.com")
    assert text(await console.get(PAGE)).count("Rotate it to see the new key here.") == 2


async def test_a_waiting_account_is_told_its_requests_answer_403(api):
    console = await signed_in(api)
    await api.app[ACCOUNTS].set_api_access(1, False)
    page = text(await console.get(PAGE))
    assert "waiting for approval" in page and "403 Forbidden" in page
    assert '<p class="note">Your account&#39;s API access is waiting' in page
    assert 'role="alert"' not in page, "a notice always there is no alert"
    assert (await api.get("/api/user")).status == 403


async def test_the_page_needs_a_signed_in_user(api):
    reply = await Console(api).get(PAGE, allow_redirects=False)
    assert (reply.status, location(reply)) == (303, f"/console/sign-in?next={PAGE}")
    posted = await Console(api).post(f"{PAGE}/keys/live/rotate", {"confirm": "yes"}, csrf=False)
    assert (posted.status, location(posted)) == (303, "/console/sign-in")
    assert (await api.get("/api/user")).status == 200
