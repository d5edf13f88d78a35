"""What a webhook carries as `data`: the JSON of the record an event is about, built when the delivery is
sent, so links in it are fresh. A webhook is the same wire format as the API, sent the other way.

A batch of deliveries reads its records as a list page does: each kind of record, and each relation of the records
of one account, in one statement for the whole batch, whatever the number of deliveries."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Any, TypeVar

import storage.clickwraps as stored_clickwraps
import storage.submissions as stored_submissions
import storage.templates as stored_templates
from signsvc.infra.clock import Clock
from signsvc.infra.files import Files
from signsvc.loaders import submissions as submission_loaders
from signsvc.loaders import templates as template_loaders
from signsvc.wire import clickwrap_json, submission_json, template_json
from signsvc.wire.related import Related
from storage import Connection
from storage.records import Submission, Submitter, Template, TemplateDocument

# What a payload is built from: the record's type and id, and the event type.
Key = tuple[str, int, str]
Data = dict[str, Any] | None  # None: the record no longer exists
R = TypeVar("R", Submission, Submitter, Template)
Builder = Callable[[Connection, list[Key]], Awaitable[dict[Key, Data | Exception]]]  # the payloads of a group of keys


class Payloads:
    def __init__(self, clock: Clock, files: Files) -> None:
        self.clock, self.files = clock, files

    async def submitter(self, conn: Connection, submitter_id: int) -> Data:
        """form.* events carry the submitter, with its submission and template (the test webhook's sample)."""
        key = ("submitter", submitter_id, "form.completed")
        built = (await self.data_of_many(conn, [key]))[key]
        if isinstance(built, Exception):
            raise built
        return built

    async def data_of_many(self, conn: Connection, keys: Iterable[Key]) -> dict[Key, Data | Exception]:
        """The JSON of each record for its event type, the records of each type read together. What could not be
        built stands as the exception that stopped it, for its own key alone: when reading a type's records
        together fails, each of them is read again on its own, so one bad record does not fail the deliveries of
        the others (of other accounts too)."""
        builders: dict[str, Builder] = {
            "template": self._templates,
            "submitter": self._submitters,
            "submission": self._submissions,
            "consent": self._consents,
        }
        by_type: dict[str, list[Key]] = {}
        for key in dict.fromkeys(keys):
            by_type.setdefault(key[0], []).append(key)
        built: dict[Key, Data | Exception] = {}
        for record_type, group in by_type.items():
            if record_type not in builders:
                built |= dict.fromkeys(group, LookupError(f"no webhook payload is defined for {record_type} records"))
                continue
            try:
                built |= await builders[record_type](conn, group)
            except Exception as error:  # the deliveries of these records are retried
                built |= await _one_by_one(conn, builders[record_type], group) if len(group) > 1 else {group[0]: error}
        return built

    async def _templates(self, conn: Connection, keys: list[Key]) -> dict[Key, Data | Exception]:
        """template.created and template.updated carry the template record."""
        found = await stored_templates.templates_by_ids(conn, _ids(keys))
        documents: dict[int, list[TemplateDocument]] = {}
        for account_id, templates in _by_account(found.values()).items():
            documents |= await template_loaders.documents(conn, account_id, templates)
        return _shaped(keys, found, lambda t, _: template_json.template_json(self.files.links, t, documents[t.id]))

    async def _submitters(self, conn: Connection, keys: list[Key]) -> dict[Key, Data | Exception]:
        """form.* events carry the submitter, with its submission and template."""
        found, now = await stored_submissions.submitters_by_ids(conn, _ids(keys)), self.clock.now()
        related: dict[int, Related] = {}
        for account_id, submitters in _by_account(found.values()).items():
            shown = await submission_loaders.submitters(conn, self.files, account_id, submitters, siblings=True)
            related |= dict.fromkeys((s.id for s in submitters), shown)
        return _shaped(
            keys, found, lambda s, _: submission_json.webhook_submitter(self.files.links, now, related[s.id], s)
        )

    async def _submissions(self, conn: Connection, keys: list[Key]) -> dict[Key, Data | Exception]:
        """submission.* events carry the submission as GET /submissions/{id} answers it; archiving, less."""
        found, now = await stored_submissions.submissions_by_ids(conn, _ids(keys)), self.clock.now()
        whole = {key[1] for key in keys if key[2] != "submission.archived"}
        related: dict[int, Related] = {}
        for account_id, submissions in _by_account(s for s in found.values() if s.id in whole).items():
            read = await submission_loaders.records(conn, self.files, account_id, submissions, events=True)
            related |= dict.fromkeys((s.id for s in submissions), read)

        def shape(submission: Submission, event_type: str) -> dict[str, Any]:
            if event_type == "submission.archived":
                return {"id": submission.id, "slug": submission.slug, "archived_at": submission.archived_at}
            return submission_json.submission_record(
                self.files.links, now, related[submission.id], submission, with_events=True
            )

        return _shaped(keys, found, shape)

    async def _consents(self, conn: Connection, keys: list[Key]) -> dict[Key, Data | Exception]:
        """consent.created carries the consent as GET /consents/{id} answers it."""
        found = await stored_clickwraps.consents_by_ids(conn, _ids(keys))
        return _shaped(keys, found, lambda consent, _: clickwrap_json.consent_json(self.files.links, consent))


async def _one_by_one(conn: Connection, build: Builder, keys: list[Key]) -> dict[Key, Data | Exception]:
    """Each key built on its own, after building them together failed: the error stays with the keys it is of."""
    built: dict[Key, Data | Exception] = {}
    for key in keys:
        try:
            built |= await build(conn, [key])
        except Exception as error:  # this record's deliveries are retried, the others go
            built[key] = error
    return built


def _ids(keys: list[Key]) -> list[int]:
    return sorted({key[1] for key in keys})


def _by_account(records: Iterable[R]) -> dict[int, list[R]]:
    """Records by their account: the loaders read an account's relations (a batch seldom spans many)."""
    found: dict[int, list[R]] = {}
    for record in records:
        found.setdefault(record.account_id, []).append(record)
    return found


def _shaped(
    keys: list[Key], found: dict[int, Any], shape: Callable[[Any, str], dict[str, Any]]
) -> dict[Key, Data | Exception]:
    """Each key's JSON (None for a record that no longer exists); a shape that fails stands for its key alone."""
    built: dict[Key, Data | Exception] = {}
    for key in keys:
        try:
            built[key] = shape(found[key[1]], key[2]) if key[1] in found else None
        except Exception as error:  # this record's deliveries are retried, the others go
            built[key] = error
    return built
