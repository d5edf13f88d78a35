"""The console's users: the account's users and their state, invitations by email (a setup link that lets the
new user set a password and sign in), sending one again, deactivation (keys, sign-in and sessions end at once),
and the instance administrator's approval of every account's API access."""

import html
import re
from urllib.parse import urlsplit

import pytest

import storage.emails as emails
from signsvc.accounts.accounts import Accounts
from signsvc.http.appkeys import ACCOUNTS, CONSOLE_USERS, DB
from tests.support.console import Console, location, signed_in

PAGE = "/console/users"
REFUSED = "The email address or the password is not right."
BOB = "bob@example.com"
BOB_PASSWORD = "bob's long password"


def text(reply) -> str:
    return reply.body.decode()


def visible(markup: str) -> str:
    """Text as a person (or a screen reader) reads it: tags dropped, entities decoded, spaces collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", markup)).split())


def user_rows(page: str) -> dict[str, str]:
    """The rows of the users table by the name (or email) each shows first."""
    table = page.split('<table class="list stacked users">')[1].split("</table>")[0]
    return {re.search(r"<strong>([^<]+)</strong>", row)[1]: row for row in table.split("<tr>")[2:]}


async def sent_links(api, to: str = BOB) -> list[str]:
    """The setup links emailed to an address, oldest first (the outbox keeps them: no SMTP server here)."""
    found = await emails.list_emails(api.app[DB], 1, limit=100)
    return [
        urlsplit(re.search(r"http://signsvc\.test(/console/setup/\S+)", email.text_body)[1]).path
        for email in reversed(found)
        if email.to_address == to
    ]


async def invite(console: Console, email: str = BOB, first_name: str = "Bob", last_name: str = "Stone"):
    await console.get(PAGE)
    return await console.post(f"{PAGE}/invite", {"email": email, "first_name": first_name, "last_name": last_name})


async def user_id(api, email: str) -> int:
    return (await api.app[CONSOLE_USERS].find_by_email(email)).id


async def invited_and_signed_in(api, admin: Console) -> Console:
    """Bob, invited by the admin, has set his password through the emailed link and is signed in."""
    assert (await invite(admin)).status == 303
    bob = Console(api)
    [link] = await sent_links(api)
    assert (await bob.set_password(link, BOB_PASSWORD)).status == 303
    await bob.get("/console")
    return bob


async def deactivate(console: Console, target: int, form: dict | None = None):
    await console.get(f"{PAGE}/{target}/deactivate")
    return await console.post(f"{PAGE}/{target}/deactivate", {"confirm": "yes"} if form is None else form)


# The list


async def test_the_users_page_lists_each_user_with_their_state(api, db, clock):
    admin = await signed_in(api)
    await invite(admin)
    await Accounts(db, clock).create_user(account_id=1, email="carol@example.com", first_name="Carol")
    await api.app[ACCOUNTS].deactivate_user(await user_id(api, "carol@example.com"))
    page = text(await admin.get(PAGE))
    rows = user_rows(page)
    assert list(rows) == ["Carol", "Bob Stone", "Admin User"]
    assert "Deactivated" in rows["Carol"] and "/deactivate" not in rows["Carol"]
    assert "Invited" in rows["Bob Stone"] and "Send the invitation again" in rows["Bob Stone"]
    assert BOB in rows["Bob Stone"] and "Deactivate… bob@example.com" in visible(rows["Bob Stone"])
    me = rows["Admin User"]
    assert "Active" in me and "Instance administrator" in me and "(you)" in me and "/deactivate" not in me


async def test_the_list_pages_through_many_users(api, db, clock):
    for n in range(50):
        await Accounts(db, clock).create_user(account_id=1, email=f"user{n}@example.com")
    admin = await signed_in(api)
    first = text(await admin.get(PAGE))
    assert len(user_rows(first)) == 50 and "user49@example.com" in user_rows(first)
    older = re.search(r'href="(/console/users\?after=\d+)">Older<', first)[1]
    second = text(await admin.get(older))
    assert list(user_rows(second)) == ["Admin User"] and ">Older<" not in second
    assert 'href="/console/users">Newest<' in second


@pytest.mark.parametrize("after", ["²", "abc", "-1", "0", "9" * 40])
async def test_a_page_link_edited_by_hand_shows_the_first_page(api, after):
    admin = await signed_in(api)
    reply = await admin.get(f"{PAGE}?after={after}")
    assert reply.status == 200 and list(user_rows(text(reply))) == ["Admin User"]


async def test_the_users_table_has_a_caption_and_its_buttons_are_named_after_their_visible_text(api, other_account):
    admin = await signed_in(api)
    await invite(admin)
    page = text(await admin.get(PAGE))
    assert '<caption class="visually-hidden">The account&#39;s users, newest first</caption>' in page
    bob = user_rows(page)["Bob Stone"]
    assert "aria-label" not in bob
    assert 'Send the invitation again<span class="visually-hidden"> to bob@example.com</span>' in bob
    assert 'Deactivate…<span class="visually-hidden"> bob@example.com</span>' in bob
    assert 'Revoke<span class="visually-hidden"> API access of Other</span>' in page


# Invitations


async def test_an_invitation_emails_a_setup_link_that_lets_the_new_user_set_a_password_and_sign_in(api):
    admin = await signed_in(api)
    reply = await invite(admin)
    assert (reply.status, location(reply)) == (303, f"{PAGE}?done=user_invited")
    assert "the invitation is kept in the outbox" in text(await admin.get(location(reply)))  # no SMTP server
    [email] = [e for e in await emails.list_emails(api.app[DB], 1, limit=10) if e.to_address == BOB]
    assert (email.kind, email.subject) == ("console_setup", "You are invited to signsvc")
    assert "Admin User invited you" in email.text_body

    bob = Console(api)
    [link] = await sent_links(api)
    assert (await bob.set_password(link, BOB_PASSWORD)).status == 303
    assert "Welcome, Bob" in text(await bob.get("/console"))
    assert (await Console(api).sign_in(BOB, BOB_PASSWORD)).status == 303
    keys_page = text(await bob.get("/console/settings/api"))
    key = re.search(r'id="key-live-value">([^<]+)<', keys_page)[1]
    assert (await api.with_key(key).get("/api/user")).json["email"] == BOB
    assert "Active" in user_rows(text(await admin.get(PAGE)))["Bob Stone"]


async def test_an_invitation_for_a_taken_or_wrong_email_says_why_and_keeps_the_values(api):
    admin = await signed_in(api)
    for address, message in (
        ("admin@example.com", "email admin@example.com is already taken"),
        ("not an address", "is not an email address"),
    ):
        refused = await invite(admin, address, "Ann", "Lee")
        page = text(refused)
        assert refused.status == 422 and message in page
        assert f'value="{address}"' in page and 'value="Ann"' in page and 'value="Lee"' in page
        assert 'aria-describedby="invite-email-problem" aria-invalid="true"' in page
    assert await emails.list_emails(api.app[DB], 1, limit=10) == []


async def test_an_address_of_another_accounts_user_is_refused_without_saying_it_is_taken(api, other_account):
    admin = await signed_in(api)
    refused = await invite(admin, "Other@Example.com ", "Ann", "Lee")
    page = text(refused)
    assert refused.status == 422 and "This email address can&#39;t be invited" in page
    assert "taken" not in page and 'value="Other@Example.com"' in page
    assert 'aria-describedby="invite-email-problem" aria-invalid="true"' in page
    assert await emails.list_emails(api.app[DB], 1, limit=10) == []


@pytest.mark.parametrize("path", ["/invite", "/{bob}/invitation"])
async def test_switching_modes_on_a_page_a_refused_post_showed_returns_to_the_users_page(api, path):
    admin = await signed_in(api)
    await invited_and_signed_in(api, admin)  # Bob has set his password: an invitation again is refused
    await admin.get(PAGE)
    address = PAGE + path.format(bob=await user_id(api, BOB))
    refused = await admin.post(address, {"email": "admin@example.com"})
    assert refused.status == 422 and f'name="next" value="{address}"' in text(refused)
    switched = await admin.post("/console/mode", {"test_mode": "on", "next": address})
    assert location(switched) == address
    landed = await admin.get(address, allow_redirects=False)
    assert (landed.status, location(landed)) == (303, PAGE)
    assert "Test mode:" in text(await admin.get(address))


async def test_sending_an_invitation_again_emails_a_new_link_and_ends_the_earlier_one(api):
    admin = await signed_in(api)
    await invite(admin)
    bob_id = await user_id(api, BOB)
    await admin.get(PAGE)
    reply = await admin.post(f"{PAGE}/{bob_id}/invitation")
    assert (reply.status, location(reply)) == (303, f"{PAGE}?done=invitation_sent")
    first, second = await sent_links(api)
    assert (await Console(api).get(first)).status == 410
    assert (await Console(api).set_password(second, BOB_PASSWORD)).status == 303

    await admin.get(PAGE)
    refused = await admin.post(f"{PAGE}/{bob_id}/invitation")
    assert refused.status == 422 and "This user has set a password already" in text(refused)
    assert len(await sent_links(api)) == 2


# Deactivation


async def test_deactivation_asks_for_a_confirmation_first(api):
    admin = await signed_in(api)
    bob = await invited_and_signed_in(api, admin)
    bob_id = await user_id(api, BOB)
    confirm_page = await admin.get(f"{PAGE}/{bob_id}/deactivate")
    assert confirm_page.status == 200 and "Deactivate bob@example.com?" in text(confirm_page)
    for form in ({}, {"confirm": "no"}):
        refused = await deactivate(admin, bob_id, form)
        assert refused.status == 422 and "Please confirm: tick the box." in text(refused)
    assert (await bob.get("/console")).status == 200


async def test_a_deactivated_user_cannot_use_their_keys_sign_in_or_keep_their_session(api):
    admin = await signed_in(api)
    bob = await invited_and_signed_in(api, admin)
    keys_page = text(await bob.get("/console/settings/api"))
    live, test = (re.search(rf'id="key-{mode}-value">([^<]+)<', keys_page)[1] for mode in ("live", "test"))
    assert (await api.with_key(live).get("/api/user")).status == 200

    reply = await deactivate(admin, await user_id(api, BOB))
    assert (reply.status, location(reply)) == (303, f"{PAGE}?done=user_deactivated")
    assert "their keys and sessions no longer work" in text(await admin.get(location(reply)))
    assert [(await api.with_key(key).get("/api/user")).status for key in (live, test)] == [401, 401]
    ended = await bob.get("/console/settings/api", allow_redirects=False)
    assert (ended.status, location(ended)) == (303, "/console/sign-in?next=/console/settings/api")
    refused = await Console(api).sign_in(BOB, BOB_PASSWORD)
    wrong_password = await Console(api).sign_in("admin@example.com", "not the password")
    assert (refused.status, wrong_password.status) == (401, 401)
    assert REFUSED in text(refused) and REFUSED in text(wrong_password)
    assert "Deactivated" in user_rows(text(await admin.get(PAGE)))["Bob Stone"]


async def test_a_reactivated_user_signs_in_with_their_password_and_has_new_keys_the_old_ones_stay_refused(api):
    admin = await signed_in(api)
    bob = await invited_and_signed_in(api, admin)
    old = re.search(r'id="key-live-value">([^<]+)<', text(await bob.get("/console/settings/api")))[1]
    bob_id = await user_id(api, BOB)
    await deactivate(admin, bob_id)
    assert f"/console/users/{bob_id}/reactivate" in text(await admin.get(PAGE))

    reply = await admin.post(f"{PAGE}/{bob_id}/reactivate")
    assert (reply.status, location(reply)) == (303, f"{PAGE}?done=user_reactivated")
    assert "Active" in user_rows(text(await admin.get(PAGE)))["Bob Stone"]
    assert (await api.with_key(old).get("/api/user")).status == 401
    back = Console(api)
    assert (await back.sign_in(BOB, BOB_PASSWORD)).status == 303
    new = re.search(r'id="key-live-value">([^<]+)<', text(await back.get("/console/settings/api")))[1]
    assert new != old and (await api.with_key(new).get("/api/user")).json["email"] == BOB


async def test_reactivating_takes_the_csrf_token_and_a_user_of_the_account(api, other_account):
    admin = await signed_in(api)
    await invited_and_signed_in(api, admin)
    bob_id = await user_id(api, BOB)
    await deactivate(admin, bob_id)
    assert (await admin.post(f"{PAGE}/{bob_id}/reactivate", csrf=False)).status == 403
    assert "Deactivated" in user_rows(text(await admin.get(PAGE)))["Bob Stone"]
    assert (await admin.post(f"{PAGE}/{other_account.user.id}/reactivate")).status == 404


async def test_you_cannot_deactivate_yourself(api):
    admin = await signed_in(api)
    refused = await deactivate(admin, 1)
    assert refused.status == 422 and "You cannot deactivate yourself" in text(refused)
    assert (await admin.get("/console")).status == 200
    assert (await api.get("/api/user")).status == 200


async def test_only_an_instance_administrator_deactivates_an_instance_administrator(api):
    admin = await signed_in(api)
    bob = await invited_and_signed_in(api, admin)
    assert "/console/users/1/deactivate" not in text(await bob.get(PAGE))
    refused = await deactivate(bob, 1)
    assert refused.status == 422 and "Only an instance administrator can deactivate an instance administrator" in text(
        refused
    )
    assert (await api.get("/api/user")).status == 200 and (await admin.get("/console")).status == 200


async def test_a_user_of_another_account_cannot_be_seen_or_deactivated(api, other_account):
    admin = await signed_in(api)
    other = other_account.user.id
    page = await admin.get(f"{PAGE}/{other}/deactivate")
    assert page.status == 404
    await admin.get(PAGE)
    for path in (f"{PAGE}/{other}/deactivate", f"{PAGE}/{other}/invitation"):
        posted = await admin.post(path, {"confirm": "yes"})
        assert posted.status == 404, path
    assert "other@example.com" not in text(await admin.get(PAGE)).split("</table>")[0]
    assert (await api.with_key(other_account.live).get("/api/user")).status == 200


# API access approval


async def test_only_the_instance_administrator_sees_and_changes_api_access(api, other_account):
    admin = await signed_in(api)
    page = text(await admin.get(PAGE))
    assert "API access of every account" in page and "Revoke API access of Other" in visible(page)

    bob = await invited_and_signed_in(api, admin)
    assert "API access of every account" not in text(await bob.get(PAGE))
    refused = await bob.post(f"{PAGE}/accounts/{other_account.user.account_id}/api-access", {"approved": "off"})
    assert refused.status == 404
    assert (await api.with_key(other_account.live).get("/api/user")).status == 200


async def test_approving_and_revoking_api_access_flips_the_accounts_api_requests(api):
    waiting = await api.app[ACCOUNTS].create_account(name="Waiting", email="ops@waiting.test")
    admin = await signed_in(api)
    forbidden = await api.with_key(waiting.live).get("/api/user")
    assert (forbidden.status, forbidden.json) == (403, {"error": "Forbidden"})
    assert "Approve API access of Waiting" in visible(text(await admin.get(PAGE)))

    account_id = waiting.user.account_id
    reply = await admin.post(f"{PAGE}/accounts/{account_id}/api-access", {"approved": "on"})
    assert (reply.status, location(reply)) == (303, f"{PAGE}?done=api_access_approved")
    assert [(await api.with_key(key).get("/api/user")).status for key in (waiting.live, waiting.test)] == [200, 200]

    page = text(await admin.get(location(reply)))
    assert "API access approved." in page and "Revoke API access of Waiting" in visible(page)
    reply = await admin.post(f"{PAGE}/accounts/{account_id}/api-access", {"approved": "off"})
    assert location(reply) == f"{PAGE}?done=api_access_revoked"
    assert (await api.with_key(waiting.live).get("/api/user")).status == 403
    assert (await api.get("/api/user")).status == 200, "the admin's own account is unchanged"


async def test_an_administrator_made_by_the_command_line_sees_the_approval_section(api):
    admin = await signed_in(api)
    bob = await invited_and_signed_in(api, admin)
    await api.app[ACCOUNTS].set_admin(await user_id(api, BOB), True)
    assert "API access of every account" in text(await bob.get(PAGE))
    await api.app[ACCOUNTS].set_admin(1, False)
    assert "API access of every account" not in text(await admin.get(PAGE))
