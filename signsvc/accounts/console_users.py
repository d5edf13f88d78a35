"""The console's users: signing in with a password, one-time links that set one (the first user's setup
link, invitations, password resets), inviting and deactivating users, and who is the instance administrator.

Sign-in attempts are counted per client address and per email address in the rate-limit windows, whether
the email belongs to a user or not, and a wrong password takes as long and reads the same as an unknown email.
"""

from __future__ import annotations

from dataclasses import dataclass

import storage.accounts as stored
from signsvc.accounts import accounts, passwords
from signsvc.accounts.rate_limits import RateLimits
from signsvc.accounts.user_links import LIFETIMES, RESET, SETUP, LinkUnusable, UserLinks
from signsvc.infra import errors, mail, tokens
from signsvc.infra.clock import Clock
from signsvc.infra.mail import Outbox
from storage import Connection, Database
from storage.records import Account, User


class SignInRefused(Exception):
    """A wrong email or password: one answer for both."""


@dataclass
class LockedOut(Exception):
    """Too many sign-in attempts from this address or for this email; try again in `retry_after` seconds."""

    retry_after: int


@dataclass
class PasswordRefused(Exception):
    problem: str  # a catalogue key


class ConsoleUsers:
    def __init__(self, db: Database, clock: Clock, rate_limits: RateLimits, outbox: Outbox, links: UserLinks) -> None:
        self.db, self.clock, self.rate_limits, self.outbox, self.links = db, clock, rate_limits, outbox, links

    async def sign_in(self, email: str, password: str, *, client: str) -> User:
        email = email.strip().lower()
        quota = await self.rate_limits.take_sign_in(client=client, email=email)
        if quota.exceeded:
            raise LockedOut(quota.retry_after)
        user = await stored.find_user_by_email(self.db, email) if email else None
        matches = await passwords.verify(password, user.password_hash if user else None)
        if user is None or not matches or user.archived_at is not None:
            raise SignInRefused()
        return user

    async def session_user(self, user_id: int, password_mark: str) -> User | None:
        """The user a console session names, while they are active and their password is the one they
        signed in with (a new password ends every other session)."""
        user = await stored.get_user(self.db, user_id)
        if user is None or user.archived_at is not None or password_mark != self.password_mark(user):
            return None
        return user

    @staticmethod
    def password_mark(user: User) -> str:
        """A short mark of the user's password hash, kept in their session cookie."""
        return tokens.digest(user.password_hash or "")[:16]

    async def open_link(self, token: str, purpose: str) -> User:
        """The user a link sets the password of; LinkUnusable when it sets nothing now."""
        _, user = await self.links.usable(self.db, token, purpose)
        return user

    async def set_password(self, token: str, purpose: str, password: str) -> User:
        """Sets the password through a link, which is then used up."""
        if problem := passwords.problem(password):
            raise PasswordRefused(problem)
        password_hash = await passwords.hash_password(password)
        async with self.db.transaction() as tx:
            link, _ = await self.links.usable(tx, token, purpose)
            if await stored.use_user_link(tx, link.id, self.clock.now()) is None:
                raise LinkUnusable("used")
            return await stored.set_password(tx, link.user_id, password_hash)

    async def request_reset(self, email: str, *, client: str) -> None:
        """Emails a reset link to an active user with this address; says nothing either way."""
        email = email.strip().lower()
        quota = await self.rate_limits.take_sign_in(client=client, email=email)
        if quota.exceeded:
            raise LockedOut(quota.retry_after)
        async with self.db.transaction() as tx:
            user = await stored.find_user_by_email(tx, email)
            if user is None or user.archived_at is not None:
                return
            link = await self.links.issue(tx, user, RESET)
            await self._email(tx, user, link, RESET)

    async def invite(self, inviter: User, *, email: str, first_name: str | None, last_name: str | None) -> User:
        """A new user of the inviter's account, emailed a setup link."""
        async with self.db.transaction() as tx:
            user = await accounts.add_user(tx, self.clock, inviter.account_id, email, first_name, last_name)
            link = await self.links.issue(tx, user, SETUP)
            await self._email(tx, user, link, SETUP, inviter=inviter)
        return user

    async def deactivate(self, actor: User, user_id: int) -> User:
        """Ends a user of the actor's account: their keys and sessions stop working at once."""
        if user_id == actor.id:
            raise errors.Invalid("You cannot deactivate yourself")
        async with self.db.transaction() as tx:
            user = await stored.get_user(tx, user_id)
            if user is None or user.account_id != actor.account_id:
                raise errors.NotFound(f"User {user_id} not found")
            return await stored.archive_user(tx, user.id, self.clock.now()) or user

    async def set_admin(self, user_id: int, is_admin: bool) -> User:
        async with self.db.transaction() as tx:
            user = await stored.set_admin(tx, user_id, is_admin)
        if user is None:
            raise errors.NotFound(f"User {user_id} not found")
        return user

    async def find_by_email(self, email: str) -> User:
        user = await stored.find_user_by_email(self.db, email.strip().lower())
        if user is None:
            raise errors.NotFound(f"User {email} not found")
        return user

    async def account(self, user: User) -> Account:
        return await stored.required_account(self.db, user.account_id)

    async def _email(self, tx: Connection, user: User, link: str, purpose: str,
                     inviter: User | None = None) -> None:
        account = await stored.required_account(tx, user.account_id)
        expire_at = mail.format_time(self.clock.now() + LIFETIMES[purpose])
        if purpose == RESET:
            subject, intro, action = ("Reset your password", "Someone asked to reset the password of your "
                                      f"{account.name} account. Choose a new one here:", "Choose a new password")
            closing = "If it was not you, ignore this email: your password stays as it is."
        else:
            subject = f"You are invited to {account.name}"
            intro = f"{_name(inviter) if inviter else 'An administrator'} invited you to the {account.name} account."
            action, closing = "Set your password", "Please ignore this email if you were not expecting it."
        composed = mail.compose("console_link", subject, {
            "name": _name(user), "intro": intro, "action": action, "link": link, "expire_at": expire_at,
            "closing": closing, "account_name": account.name})
        await self.outbox.queue(tx, account_id=user.account_id, kind=f"console_{purpose}", to=user.email,
                                composed=composed)


def _name(user: User) -> str:
    return " ".join(part for part in (user.first_name, user.last_name) if part) or user.email
