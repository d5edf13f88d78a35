"""The console's users: signing in with a password, one-time links that set one (the first user's setup
link, invitations, password resets), inviting and deactivating users, and what only the instance
administrator may do (approve an account's API access).

Sign-in attempts are counted per client address in the rate-limit windows, and failures per email and client
address with a growing wait (`SignInBackoff`), whether the email belongs to a user or not, so that a stranger's
guesses never lock the owner out from their own address; a wrong password takes as long and reads the same as an
unknown email.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import storage.accounts as stored
from signsvc.accounts import passwords
from signsvc.accounts.accounts import Accounts
from signsvc.accounts.rate_limits import RateLimits, sign_in_source
from signsvc.accounts.user_links import LIFETIMES, RESET, SETUP, LinkUnusable, UserLinks
from signsvc.infra import errors, jobs, languages, mail, tokens
from signsvc.infra.clock import Clock
from signsvc.infra.mail import Outbox
from storage import Connection, Database
from storage.records import Account, User

RESET_JOB = "console.password_reset"


class SignInRefused(Exception):
    """A wrong email or password: one answer for both."""


@dataclass
class LockedOut(Exception):
    """Too many sign-in attempts from this address, or failures for this email from it; try again in
    `retry_after` seconds."""

    retry_after: int


@dataclass
class PasswordRefused(Exception):
    problem: str  # passwords.TOO_SHORT or TOO_LONG


class ConsoleUsers:
    def __init__(
        self, db: Database, clock: Clock, rate_limits: RateLimits, outbox: Outbox, links: UserLinks, accounts: Accounts
    ) -> None:
        self.db, self.clock, self.rate_limits, self.outbox, self.links = db, clock, rate_limits, outbox, links
        self.accounts = accounts

    async def sign_in(self, email: str, password: str, *, client: str) -> User:
        email, client = email.strip().lower(), sign_in_source(client)
        quota = await self.rate_limits.take_sign_in(client=client, email=email)
        if quota.exceeded:
            raise LockedOut(quota.retry_after)
        backoff = self.rate_limits.sign_in_backoff
        if wait := await backoff.retry_after(email, client):
            raise LockedOut(wait)
        user = await stored.find_user_by_email(self.db, email) if email else None
        matches = await passwords.verify(password, user.password_hash if user else None)
        if user is None or not matches or user.archived_at is not None:
            await backoff.failed(email, client)
            raise SignInRefused()
        await backoff.succeeded(email, client)
        return await self._rehashed(user, password)

    async def _rehashed(self, user: User, password: str) -> User:
        """The user, their hash made again with the current kind and parameters if it was made with older ones
        (their other sessions then end: a session holds a mark of the hash)."""
        if user.password_hash is None or not passwords.outdated(user.password_hash):
            return user
        password_hash = await passwords.hash_password(password)
        async with self.db.transaction() as tx:
            rehashed = await stored.rehash_password(tx, user.id, user.password_hash, password_hash)
        return rehashed or user

    async def session_user(self, user_id: int, password_mark: str, epoch: int) -> User | None:
        """The user a console session names, while they are active, their password is the one they signed in
        with (a new password ends every other session) and they have not signed out since."""
        user = await stored.get_user(self.db, user_id)
        if (
            user is None
            or user.archived_at is not None
            or password_mark != self.password_mark(user)
            or epoch != user.session_epoch
        ):
            return None
        return user

    async def sign_out(self, user_id: int) -> None:
        """Ends every console session of the user, in every browser."""
        async with self.db.transaction() as tx:
            await stored.end_sessions(tx, user_id)

    @staticmethod
    def password_mark(user: User) -> str:
        """A short mark of the user's password hash, kept in their session cookie."""
        return tokens.digest(user.password_hash or "")[:16]

    async def open_link(self, token: str, purpose: str) -> User:
        """The user a link sets the password of; LinkUnusable when it sets nothing now."""
        _, user = await self.links.usable(self.db, token, purpose)
        return user

    async def set_password(self, token: str, purpose: str, password: str) -> User:
        """Sets the password through a link, which is then used up with every other unused link of the user.
        The link is checked before the password is hashed: a made-up link costs no hashing."""
        await self.links.usable(self.db, token, purpose)
        if problem := passwords.problem(password):
            raise PasswordRefused(problem)
        password_hash = await passwords.hash_password(password)
        async with self.db.transaction() as tx:
            link, _ = await self.links.usable(tx, token, purpose)
            if await stored.use_user_link(tx, link.id, self.clock.now()) is None:
                raise LinkUnusable("used")
            await stored.void_all_user_links(tx, link.user_id, self.clock.now())
            return await stored.set_password(tx, link.user_id, password_hash)

    async def request_reset(self, email: str, *, client: str, language: str = languages.DEFAULT) -> None:
        """Queues a reset link for whoever signs in with this address, its email in `language` (the page's that
        asked for it). The request does the same work for every address (the job finds the user, or nobody), so its
        answer and timing tell nothing."""
        email, client = email.strip().lower(), sign_in_source(client)
        quota = await self.rate_limits.take_reset(client=client, email=email)
        if quota.exceeded:
            raise LockedOut(quota.retry_after)
        async with self.db.transaction() as tx:
            await jobs.enqueue(tx, self.clock, RESET_JOB, {"email": email, "language": language})

    def kinds(self) -> list[jobs.Kind]:
        return [jobs.Kind(RESET_JOB, self._send_reset)]

    async def _send_reset(self, payload: dict[str, Any]) -> None:
        """Emails a reset link to the active user with the address, if there is one."""
        async with self.db.transaction() as tx:
            user = await stored.find_user_by_email(tx, payload["email"])
            if user is None or user.archived_at is not None:
                return
            link = await self.links.issue(tx, user, RESET)
            await self._email(tx, user, link, RESET, languages.of(payload.get("language")))

    async def invite(
        self,
        inviter: User,
        *,
        email: str,
        first_name: str | None,
        last_name: str | None,
        language: str = languages.DEFAULT,
    ) -> User:
        """A new user of the inviter's account, emailed a setup link in `language` (the inviter's console's)."""
        async with self.db.transaction() as tx:
            user = await self.accounts.add_user(tx, inviter.account_id, email, first_name, last_name)
            link = await self.links.issue(tx, user, SETUP)
            await self._email(tx, user, link, SETUP, language, inviter=inviter)
        return user

    async def resend_invitation(self, actor: User, user_id: int, language: str = languages.DEFAULT) -> User:
        """A new setup link emailed to an invited user of the actor's account who has not set a password yet, in
        `language` (the actor's console's); the links sent before stop working."""
        async with self.db.transaction() as tx:
            user = await self._colleague(tx, actor, user_id)
            if user.archived_at is not None:
                raise errors.Invalid("This user was deactivated")
            if user.password_hash is not None:
                raise errors.Invalid("This user has set a password already")
            link = await self.links.issue(tx, user, SETUP)
            await self._email(tx, user, link, SETUP, language, inviter=actor)
        return user

    async def deactivate(self, actor: User, user_id: int) -> User:
        """Ends a user of the actor's account: their keys and sessions stop working at once. Only an instance
        administrator ends another."""
        if user_id == actor.id:
            raise errors.Invalid("You cannot deactivate yourself")
        user = await self._colleague(self.db, actor, user_id)
        if user.is_admin and not actor.is_admin:
            raise errors.Invalid("Only an instance administrator can deactivate an instance administrator")
        return await self.accounts.deactivate_user(user_id)

    async def reactivate(self, actor: User, user_id: int) -> User:
        """A deactivated user of the actor's account active again: their password signs in as before, and their
        API keys are new ones (shown in their console; the keys they had stay revoked). Only an instance
        administrator brings back another."""
        async with self.db.transaction() as tx:
            user = await self._colleague(tx, actor, user_id)
            if user.archived_at is None:
                return user
            if user.is_admin and not actor.is_admin:
                raise errors.Invalid("Only an instance administrator can reactivate an instance administrator")
            user = await stored.restore_user(tx, user.id)
            await self.accounts.replace_keys(tx, user)
            return user

    async def colleague(self, actor: User, user_id: int) -> User:
        """A user of the actor's account; not found for anyone else."""
        return await self._colleague(self.db, actor, user_id)

    async def live_accounts(self, actor: User) -> list[Account]:
        """Every live account with its API access approval, for the instance administrator only."""
        _require_admin(actor)
        return await self.accounts.list_accounts()

    async def set_api_access(self, actor: User, account_id: int, approved: bool) -> Account:
        """The instance administrator approves or revokes an account's API access (its test account follows)."""
        _require_admin(actor)
        return await self.accounts.set_api_access(account_id, approved)

    async def find_by_email(self, email: str) -> User:
        user = await stored.find_user_by_email(self.db, email.strip().lower())
        if user is None:
            raise errors.NotFound(f"User {email} not found")
        return user

    async def account(self, user: User) -> Account:
        return await stored.required_account(self.db, user.account_id)

    async def _colleague(self, conn: Connection, actor: User, user_id: int) -> User:
        user = await stored.get_user(conn, user_id)
        if user is None or user.account_id != actor.account_id:
            raise errors.NotFound(f"User {user_id} not found")
        return user

    async def _email(
        self, tx: Connection, user: User, link: str, purpose: str, language: str, inviter: User | None = None
    ) -> None:
        account = await stored.required_account(tx, user.account_id)
        composed = compose(
            purpose,
            name=_name(user),
            account_name=account.name,
            link=link,
            expire_at=self.clock.now() + LIFETIMES[purpose],
            inviter=_name(inviter) if inviter else None,
            language=language,
        )
        await self.outbox.queue(
            tx, account_id=user.account_id, kind=f"console_{purpose}", to=user.email, composed=composed
        )


def compose(
    purpose: str,
    *,
    name: str,
    account_name: str,
    link: str,
    expire_at: datetime,
    inviter: str | None = None,
    language: str = languages.DEFAULT,
) -> mail.Composed:
    """The email with a console link that sets a password: a reset (RESET), or an invitation (SETUP) from
    `inviter`, else from an administrator; in `language`."""
    t = languages.translator(language)
    if purpose == RESET:
        subject = t("email.console.reset.subject")
        intro = t("email.console.reset.intro", account=account_name)
        action, closing = t("email.console.reset.action"), t("email.console.reset.closing")
    else:
        subject = t("email.console.invite.subject", account=account_name)
        intro = (
            t("email.console.invite.intro", name=inviter, account=account_name)
            if inviter
            else t("email.console.invite.intro_admin", account=account_name)
        )
        action, closing = t("email.console.invite.action"), t("email.console.invite.closing")
    context = {
        "name": name,
        "intro": intro,
        "action": action,
        "link": link,
        "expire_at": mail.format_time(expire_at, language),
        "closing": closing,
        "account_name": account_name,
    }
    return mail.compose("console_link", subject, context, language)


def _require_admin(actor: User) -> None:
    """What only the instance administrator may do is not there for anyone else."""
    if not actor.is_admin:
        raise errors.NotFound("Not found")


def _name(user: User) -> str:
    return " ".join(part for part in (user.first_name, user.last_name) if part) or user.email
