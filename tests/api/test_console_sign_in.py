"""Signing in to the console: setup and reset links, passwords, sessions, CSRF, sign-in limits, and the
wall between console sessions and API keys."""

import re
from datetime import timedelta
from http.cookies import SimpleCookie
from urllib.parse import urlsplit

import pytest

import storage.accounts as stored
from signsvc.accounts.rate_limits import RESETS_PER_EMAIL, SIGN_INS_PER_ADDRESS, SIGN_INS_PER_EMAIL
from signsvc.accounts.sign_in_backoff import FREE_FAILURES
from signsvc.http.appkeys import CONSOLE_USERS, WORKER
from signsvc.http.web.console.session import COOKIE
from tests.support.app import LIVE_KEY, Api
from tests.support.console import PASSWORD, Console, location, signed_in
from tests.unit.test_passwords import scrypt_hash

REFUSED = "The email address or the password is not right."


def text(reply) -> str:
    return reply.body.decode()


async def test_a_setup_link_sets_the_password_and_signs_the_user_in(api):
    console = Console(api)
    link = await console.setup_link()
    page = await console.get(link)
    assert page.status == 200 and "Set your password" in text(page) and "admin@example.com" in text(page)

    reply = await console.post(link, {"password": PASSWORD, "confirmation": PASSWORD})
    assert (reply.status, location(reply)) == (303, "/console?done=password_set")
    home = await console.get("/console")
    assert home.status == 200 and "Your password is set" not in text(home) and "Welcome, Admin" in text(home)
    assert "Your password is set. Welcome!" in text(await console.get("/console?done=password_set"))


async def test_a_setup_link_works_once(api):
    console = Console(api)
    link = await console.setup_link()
    assert (await console.set_password(link)).status == 303
    again = await Console(api).get(link)
    assert again.status == 410 and "This link can no longer be used" in text(again)
    other = Console(api)
    await other.get("/console/sign-in")
    posted = await other.post(link, {"password": "another password 1", "confirmation": "another password 1"})
    assert posted.status == 410
    assert (await Console(api).sign_in(password="another password 1")).status == 401


async def test_a_setup_link_expires_after_a_week(api, clock):
    console = Console(api)
    link = await console.setup_link()
    clock.advance(timedelta(days=7, seconds=1))
    page = await console.get(link)
    assert page.status == 410 and "This link has expired" in text(page) and 'href="/console/reset"' in text(page)


async def test_a_newer_setup_link_replaces_the_earlier_one(api):
    console = Console(api)
    first = await console.setup_link()
    second = await console.setup_link()
    assert (await console.get(first)).status == 410
    assert (await console.get(second)).status == 200


async def test_an_unknown_or_cut_link_says_it_does_not_work(api):
    console = Console(api)
    link = await console.setup_link()
    for path in (link[:-3], "/console/setup/nonsense", "/console/setup/%C3%A9t%C3%A9", link.replace("setup", "reset")):
        page = await console.get(path)
        assert page.status == 410 and "This link does not work" in text(page), path


@pytest.mark.parametrize(
    "password,confirmation,message",
    [
        ("short", "short", "at least 10 characters"),
        ("x" * 257, "x" * 257, "at most 256 characters"),
        (PASSWORD, PASSWORD + "!", "The two passwords are not the same."),
    ],
)
async def test_a_refused_password_says_why_and_leaves_the_link_usable(api, password, confirmation, message):
    console = Console(api)
    link = await console.setup_link()
    await console.get(link)
    reply = await console.post(link, {"password": password, "confirmation": confirmation})
    assert reply.status == 422 and message in text(reply) and 'aria-invalid="true"' in text(reply)
    assert (await console.set_password(link)).status == 303


async def test_sign_in_with_the_password_opens_the_console(api):
    await (await signed_in(api)).post("/console/sign-out")
    console = Console(api)
    reply = await console.sign_in()
    assert (reply.status, location(reply)) == (303, "/console")
    assert (await console.get("/console")).status == 200


async def test_a_wrong_password_and_an_unknown_email_get_the_same_answer(api):
    await signed_in(api)
    wrong = await Console(api).sign_in(password="not the password")
    unknown = await Console(api).sign_in(email="nobody@example.com")
    never_set = await Console(api).sign_in(email="", password="")
    for reply in (wrong, unknown, never_set):
        assert reply.status == 401 and REFUSED in text(reply)
    assert re.sub(r'value="[^"]*"', "", text(wrong)) == re.sub(r'value="[^"]*"', "", text(unknown))


async def test_a_user_who_never_set_a_password_cannot_sign_in_with_an_empty_one(api):
    reply = await Console(api).sign_in(password="")
    assert reply.status == 401 and REFUSED in text(reply)


async def test_sign_in_goes_on_to_the_console_page_asked_for_and_never_to_another_site(api):
    await signed_in(api)
    console = Console(api)
    first = await console.get("/console/settings/api", allow_redirects=False)
    assert (first.status, location(first)) == (303, "/console/sign-in?next=/console/settings/api")
    for asked, expected in (
        ("/console/settings/api", "/console/settings/api"),
        ("https://evil.example/", "/console"),
        ("//evil.example/console", "/console"),
        ("/console\\..\\x", "/console"),
    ):
        await console.get(f"/console/sign-in?next={asked}")
        reply = await console.post(
            "/console/sign-in", {"email": "admin@example.com", "password": PASSWORD, "next": asked}
        )
        assert (reply.status, location(reply)) == (303, expected), asked


async def test_failed_sign_ins_of_one_email_from_one_address_wait_longer_after_each_failure(api, clock):
    await signed_in(api)
    console = Console(api)
    for _ in range(FREE_FAILURES):
        assert (await console.sign_in(password="guess")).status == 401
    assert (await console.sign_in(password="guess")).status == 401
    locked = await console.sign_in()  # even the right password waits
    assert locked.status == 429 and re.search(r"try again in \d minutes", text(locked))
    assert int(locked.headers["Retry-After"]) == 60
    clock.advance(timedelta(seconds=59))
    assert (await console.sign_in()).status == 429
    clock.advance(timedelta(seconds=1))
    assert (await console.sign_in(password="guess")).status == 401
    assert int((await console.sign_in()).headers["Retry-After"]) == 120, "each failure more doubles the wait"
    clock.advance(timedelta(seconds=120))
    assert (await console.sign_in()).status == 303


async def test_a_sign_in_forgets_the_failures_before_it(api, clock):
    await signed_in(api)
    console = Console(api)
    for _ in range(FREE_FAILURES):
        assert (await console.sign_in(password="guess")).status == 401
    assert (await console.sign_in()).status == 303
    for _ in range(FREE_FAILURES):
        assert (await Console(api).sign_in(password="guess")).status == 401


async def test_failures_a_day_old_are_forgotten(api, clock):
    await signed_in(api)
    console = Console(api)
    for _ in range(FREE_FAILURES + 3):
        await console.sign_in(password="guess")
    clock.advance(timedelta(days=1, seconds=1))
    for _ in range(FREE_FAILURES):
        assert (await console.sign_in(password="guess")).status == 401
    assert (await console.sign_in()).status == 303


async def sign_in_from(api: Api, address: str, password: str = PASSWORD) -> int:
    console = Console(api)
    await console.get("/console/sign-in", headers={"X-Forwarded-For": address})
    reply = await console.post(
        "/console/sign-in", {"email": "admin@example.com", "password": password}, headers={"X-Forwarded-For": address}
    )
    return reply.status


async def test_a_strangers_wrong_passwords_never_lock_the_owner_out_from_their_own_address(aiohttp_client, make_app):
    api = Api(await aiohttp_client(make_app(trusted_proxies=frozenset({"127.0.0.1"}))))
    await signed_in(api)
    statuses = [await sign_in_from(api, "203.0.113.9", password=f"guess {n}") for n in range(10)]
    assert statuses[: FREE_FAILURES + 1] == [401] * (FREE_FAILURES + 1) and set(statuses[FREE_FAILURES + 1 :]) == {429}
    assert await sign_in_from(api, "203.0.113.9") == 429, "the stranger's address waits, even with the password"
    assert await sign_in_from(api, "198.51.100.7") == 303, "the owner from their own address signs in"


async def test_sign_in_attempts_from_one_address_are_limited_across_emails(api):
    console = Console(api)
    for number in range(SIGN_INS_PER_ADDRESS):
        assert (await console.sign_in(email=f"guess{number}@example.com")).status == 401
    assert (await console.sign_in(email="someone.else@example.com")).status == 429


async def test_sign_in_attempts_of_one_email_from_many_addresses_are_capped_for_the_window(
    aiohttp_client, make_app, clock
):
    api = Api(await aiohttp_client(make_app(trusted_proxies=frozenset({"127.0.0.1"}))))
    await signed_in(api)
    for number in range(SIGN_INS_PER_EMAIL):
        assert await sign_in_from(api, f"10.0.{number // 250}.{number % 250 + 1}", password=f"guess {number}") == 401
    assert await sign_in_from(api, "198.51.100.7") == 429, "a guess spread over many addresses is bounded"
    clock.advance(timedelta(minutes=5))
    assert await sign_in_from(api, "198.51.100.7") == 303, "the next window lets the owner in"


async def test_ipv6_addresses_of_one_64_share_the_sign_in_limits(aiohttp_client, make_app):
    api = Api(await aiohttp_client(make_app(trusted_proxies=frozenset({"127.0.0.1"}))))
    await signed_in(api)
    for number in range(SIGN_INS_PER_ADDRESS):
        assert await sign_in_from(api, f"2001:db8:0:7::{number + 1:x}", password=f"guess {number}") in (401, 429)
    assert await sign_in_from(api, "2001:db8:0:7:ffff:1:2:3") == 429, "a new address in the same /64 waits too"
    assert await sign_in_from(api, "2001:db8:0:8::1") == 303, "another /64 is another client"


async def test_a_post_without_the_csrf_token_is_refused_and_changes_nothing(api):
    console = await signed_in(api)
    for form in ({"csrf": ""}, {"csrf": "a token of another session"}, {}):
        reply = await console.post("/console/mode", {"test_mode": "on", **form}, csrf=False)
        assert reply.status == 403 and "This form has expired" in text(reply)
    assert "Test mode: you are seeing" not in text(await console.get("/console"))
    anonymous = Console(api)
    reply = await anonymous.post("/console/sign-in", {"email": "admin@example.com", "password": PASSWORD}, csrf=False)
    assert reply.status == 403


async def test_a_sign_in_form_of_another_browser_is_refused(api):
    await signed_in(api)
    ours, theirs = Console(api), Console(api)
    await theirs.get("/console/sign-in")
    await ours.get("/console/sign-in")
    reply = await ours.post(
        "/console/sign-in", {"email": "admin@example.com", "password": PASSWORD, "csrf": theirs.csrf}
    )
    assert reply.status == 403


async def test_the_session_cookie_is_http_only_same_site_lax_and_secure_only_on_https(api, aiohttp_client, make_app):
    reply = await Console(api).get("/console/sign-in")
    [cookie] = SimpleCookie(reply.headers["Set-Cookie"]).values()
    assert cookie.key == COOKIE and cookie["httponly"] and cookie["samesite"] == "Lax" and not cookie["secure"]
    assert cookie["path"] == "/console", "the console's cookie goes with no API or signing page request"
    secure_api = Api(await aiohttp_client(make_app(site_url="https://sign.example")))
    reply = await secure_api.get("/console/sign-in", headers={"Accept": "text/html"})
    assert "Secure" in reply.headers["Set-Cookie"] and "HttpOnly" in reply.headers["Set-Cookie"]


async def test_an_upper_case_https_site_url_still_sets_secure_cookies(aiohttp_client, make_app):
    secure_api = Api(await aiohttp_client(make_app(site_url="HTTPS://Sign.Example")))
    reply = await secure_api.get("/console/sign-in", headers={"Accept": "text/html"})
    assert "Secure" in reply.headers["Set-Cookie"]


async def test_a_session_cookie_made_with_another_secret_key_reads_as_signed_out(api, aiohttp_client, make_app):
    console = await signed_in(api)
    elsewhere = Console(Api(await aiohttp_client(make_app(secret_key="another secret key of another site"))))
    elsewhere.cookies = dict(console.cookies)
    reply = await elsewhere.get("/console", allow_redirects=False)
    assert (reply.status, location(reply)) == (303, "/console/sign-in?next=/console")
    assert (await console.get("/console")).status == 200


async def test_a_changed_or_garbled_cookie_reads_as_signed_out(api):
    cookie = (await signed_in(api)).cookies[COOKIE]
    for value in (cookie[:-2] + ("AA" if not cookie.endswith("AA") else "BB"), "garbage", "é"):
        browser = Console(api)
        browser.cookies[COOKIE] = value
        assert (await browser.get("/console", allow_redirects=False)).status == 303, value


async def test_a_session_ends_a_week_after_sign_in(api, clock):
    console = await signed_in(api)
    clock.advance(timedelta(days=6, hours=23))
    assert (await console.get("/console", allow_redirects=False)).status == 200
    clock.advance(timedelta(hours=1))
    assert (await console.get("/console", allow_redirects=False)).status == 303


async def test_sign_out_ends_the_session(api):
    console = await signed_in(api)
    reply = await console.post("/console/sign-out")
    assert (reply.status, location(reply)) == (303, "/console/sign-in?done=signed_out")
    assert "You are signed out." in text(await console.get("/console/sign-in?done=signed_out"))
    assert (await console.get("/console", allow_redirects=False)).status == 303


async def test_a_console_session_never_authenticates_the_api(api):
    console = await signed_in(api)
    reply = await console.http.get("/api/user")
    assert reply.status == 401 and reply.json == {"error": "Not authenticated"}
    assert (await console.http.get("/api/templates")).status == 401


async def test_an_api_key_never_opens_the_console(api):
    for headers in ({"X-Auth-Token": LIVE_KEY}, {"Authorization": f"Bearer {LIVE_KEY}"}):
        reply = await api.get("/console", headers={**headers, "Accept": "text/html"}, allow_redirects=False)
        assert (reply.status, location(reply)) == (303, "/console/sign-in?next=/console")


async def test_test_mode_switches_the_account_the_console_shows_and_says_so(api):
    console = await signed_in(api)
    reply = await console.post("/console/mode", {"test_mode": "on", "next": "/console"})
    assert (reply.status, location(reply)) == (303, "/console")
    page = text(await console.get("/console"))
    assert "Test mode: you are seeing the test data of signsvc." in page and 'aria-pressed="true"' in page
    await console.post("/console/mode", {"test_mode": "off", "next": "/console"})
    assert "Test mode: you are seeing" not in text(await console.get("/console"))


async def test_a_new_password_ends_the_users_other_sessions(api):
    first = await signed_in(api)
    second = Console(api)
    assert (await second.set_password(await second.setup_link(), "a brand new password")).status == 303
    assert (await second.get("/console", allow_redirects=False)).status == 200
    assert (await first.get("/console", allow_redirects=False)).status == 303


async def test_a_post_after_the_session_ended_goes_to_sign_in_and_a_script_post_gets_401(api):
    console = await signed_in(api)
    await console.post("/console/sign-out")
    reply = await console.post("/console/mode", {"test_mode": "on"})
    assert (reply.status, location(reply)) == (303, "/console/sign-in")
    scripted = await console.post_json("/console/mode", {"test_mode": "on"})
    assert scripted.status == 401 and scripted.json == {"error": "Your console session ended: sign in again"}


async def test_a_reset_link_is_emailed_and_sets_a_new_password(mailing, smtp_server):
    await (await signed_in(mailing)).post("/console/sign-out")
    console = Console(mailing)
    await console.get("/console/reset")
    reply = await console.post("/console/reset", {"email": "Admin@Example.com"}, allow_redirects=True)
    assert reply.status == 200 and "Check your email" in text(reply)
    await mailing.app[WORKER].drain()
    [message] = [received.message for received in smtp_server.received]
    assert message["To"] == "admin@example.com" and message["Subject"] == "Reset your password"
    link = re.search(r"http://signsvc\.test(/console/reset/\w+)", message.get_body(("plain",)).get_content()).group(1)
    assert (await console.set_password(link, "my new password 2")).status == 303
    assert (await Console(mailing).sign_in(password=PASSWORD)).status == 401
    assert (await Console(mailing).sign_in(password="my new password 2")).status == 303


async def test_a_reset_link_expires_after_an_hour(mailing, smtp_server, clock):
    console = Console(mailing)
    await console.get("/console/reset")
    await console.post("/console/reset", {"email": "admin@example.com"})
    await mailing.app[WORKER].drain()
    text_body = smtp_server.received[0].message.get_body(("plain",)).get_content()
    link = urlsplit(re.search(r"http://\S+/console/reset/\w+", text_body).group(0)).path
    clock.advance(timedelta(hours=1, seconds=1))
    assert (await console.get(link)).status == 410


async def test_a_reset_asked_for_an_unknown_email_answers_the_same_and_sends_nothing(mailing, smtp_server):
    console = Console(mailing)
    await console.get("/console/reset")
    known = await console.post("/console/reset", {"email": "admin@example.com"}, allow_redirects=True)
    await console.get("/console/reset")
    unknown = await console.post("/console/reset", {"email": "nobody@example.com"}, allow_redirects=True)
    assert known.status == unknown.status == 200
    assert re.sub(r'value="[^"]*"', "", text(known)) == re.sub(r'value="[^"]*"', "", text(unknown))
    await mailing.app[WORKER].drain()
    assert [to for received in smtp_server.received for to in received.recipients] == ["admin@example.com"]


async def test_the_setup_link_belongs_to_the_user_it_names(api):
    users = api.app[CONSOLE_USERS]
    user = await users.find_by_email("admin@example.com")
    link = urlsplit(await users.links.setup_link(user.id)).path
    assert link.startswith("/console/setup/") and len(link.rsplit("/", 1)[1]) == 43


async def test_a_made_up_link_posted_with_a_refused_password_is_the_unusable_link_page_not_an_error(api):
    console = Console(api)
    await console.get("/console/sign-in")
    for form in (
        {"password": "a", "confirmation": "b"},
        {"password": "short", "confirmation": "short"},
        {"password": PASSWORD, "confirmation": PASSWORD},
    ):
        reply = await console.post("/console/setup/madeUpToken", form)
        assert reply.status == 410 and "This link does not work" in text(reply), form


@pytest.mark.parametrize(
    "body,content_type,status",
    [
        (b'{"email": "admin@example.com"}', "application/json", 415),
        (b"email=\xff\xfe", "application/x-www-form-urlencoded", 400),
        (b"email=a%00b&password=x", "application/x-www-form-urlencoded", 400),
        (b"email=" + b"a" * (65 * 1024), "application/x-www-form-urlencoded", 413),
        (
            b'--b\r\nContent-Disposition: form-data; name="email"\r\n\r\nx\r\n--b--\r\n',
            "multipart/form-data; boundary=b",
            415,
        ),
    ],
)
async def test_a_post_that_is_no_form_of_ours_gets_a_page_that_says_so(api, body, content_type, status):
    console = Console(api)
    await console.get("/console/sign-in")
    reply = await console.request("POST", "/console/sign-in", data=body, headers={"Content-Type": content_type})
    assert reply.status == status and "This form could not be read" in text(reply)


async def test_a_nul_character_in_a_signed_in_form_is_refused_before_it_reaches_the_database(api):
    console = await signed_in(api)
    reply = await console.post("/console/mode", {"test_mode": "on\x00", "next": "/console"})
    assert reply.status == 400


async def test_signing_out_ends_the_users_sessions_in_every_browser(api):
    laptop = await signed_in(api)
    phone = Console(api)
    assert (await phone.sign_in()).status == 303
    assert (await phone.get("/console", allow_redirects=False)).status == 200
    await laptop.post("/console/sign-out")
    assert (await phone.get("/console", allow_redirects=False)).status == 303
    assert (await phone.sign_in()).status == 303
    assert (await phone.get("/console", allow_redirects=False)).status == 200


async def test_setting_a_password_ends_the_users_other_links(mailing, smtp_server):
    console = Console(mailing)
    setup = await console.setup_link()
    await console.get("/console/reset")
    await console.post("/console/reset", {"email": "admin@example.com"})
    await mailing.app[WORKER].drain()
    text_body = smtp_server.received[0].message.get_body(("plain",)).get_content()
    reset = urlsplit(re.search(r"http://\S+/console/reset/\w+", text_body).group(0)).path
    assert (await console.set_password(setup)).status == 303
    assert (await Console(mailing).get(reset)).status == 410


async def test_asking_for_resets_never_locks_the_user_out_of_signing_in(api):
    await (await signed_in(api)).post("/console/sign-out")
    asker = Console(api)
    for _ in range(RESETS_PER_EMAIL):
        await asker.get("/console/reset")
        assert (await asker.post("/console/reset", {"email": "admin@example.com"})).status == 200
    await asker.get("/console/reset")
    assert (await asker.post("/console/reset", {"email": "admin@example.com"})).status == 429
    assert (await Console(api).sign_in()).status == 303


async def test_an_old_scrypt_hash_is_replaced_by_argon2id_at_the_next_sign_in(api, db):
    await (await signed_in(api)).post("/console/sign-out")
    user = await api.app[CONSOLE_USERS].find_by_email("admin@example.com")
    async with db.transaction() as tx:
        await stored.set_password(tx, user.id, scrypt_hash(PASSWORD))
    assert (await Console(api).sign_in(password="not the password")).status == 401
    assert (await stored.get_user(db, user.id)).password_hash.startswith("scrypt$"), "a wrong password changes nothing"

    console = Console(api)
    assert (await console.sign_in()).status == 303
    assert (await stored.get_user(db, user.id)).password_hash.startswith("$argon2id$v=19$m=19456,t=2,p=1$")
    assert (await console.get("/console", allow_redirects=False)).status == 200, "the new session holds the new hash"
    assert (await Console(api).sign_in()).status == 303
