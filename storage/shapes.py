"""The shapes of the JSON that records hold: template and submission roles, fields, documents, preferences and
values, as the services check them before they are stored. Optional keys are those a stored record may lack
(given only when asked for, or absent in records written before the key existed).

What a client gives as a free object (metadata, variables, a field's preferences and default value) is kept as
given, only bounded in size and depth: its contents have no shape here."""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict

# A JSON object stored as the client gave it (`signsvc.infra.json_fields.free_object_problem` bounds it).
FreeObject = dict[str, Any]

# A JSON value as a client gave it (what nests in its arrays and objects is not described: nothing reads it).
Json = str | int | float | bool | list[Any] | dict[str, Any] | None

# A value given for a field, as `signsvc.submissions.field_values` normalises it: a text (also a date, an option,
# a phone, a signature's or an image's file uuid), a number, a checkbox, the options of a `multiple` field or the
# file uuids of a `file` field; None is no value.
NormalisedValue = str | int | float | bool | list[str] | None
# A field's stored value: normalised, or taken at completion from the field's default, which is kept as the
# template was given it (any JSON).
FieldValue = NormalisedValue | Json
FieldValues = dict[str, FieldValue]  # by field uuid


class Role(TypedDict):
    """A submitter role of a template (and of the submissions made from it)."""

    name: str
    uuid: str


class Area(TypedDict):
    """Where a field is drawn: a box in fractions of the page, on a page (0-based) of a document."""

    x: float
    y: float
    w: float
    h: float
    attachment_uuid: str  # the document's uuid
    page: int
    cell_w: NotRequired[float]  # a `cells` field's cell width
    option_uuid: NotRequired[str]  # the option a radio or multiple field's area stands for


class Option(TypedDict):
    uuid: str
    value: str


class Validation(TypedDict, total=False):
    """A field's `validation`: only its pattern is checked; the rest is read where it is a number or a text."""

    pattern: str
    message: object
    min: object
    max: object


class Condition(TypedDict):
    """When a field or a document applies (`signsvc.submissions.conditions`): an action on another field's value.
    `value` is an option's uuid for a select, radio or multiple field, a number as text for a number field;
    `operation: "or"` joins the condition to the one before it (absent: and)."""

    field_uuid: str
    action: str
    value: NotRequired[str]
    operation: NotRequired[str]


class Field(TypedDict):
    uuid: str
    submitter_uuid: str  # the uuid of the field's role
    name: str  # "" for an unnamed field
    type: str  # one of `signsvc.templates.template_fields.FIELD_TYPES`
    required: bool
    readonly: bool
    preferences: FreeObject  # how the value is shown: format, font_size, align, valign, color...
    title: NotRequired[str]
    description: NotRequired[str]
    default_value: NotRequired[Json]  # as the client gave it, never null
    validation: NotRequired[Validation]
    options: NotRequired[list[Option]]  # select, radio and multiple fields
    conditions: NotRequired[list[Condition]]  # the field applies only while these hold
    areas: NotRequired[list[Area]]  # the service gives every field its list (last); readers take none as empty


class PageSize(TypedDict):
    """A document's page as displayed, in points, with its text (absent in documents stored before it was kept)."""

    width: float
    height: float
    text: NotRequired[str]


class Preview(TypedDict):
    """A stored picture of a document's page."""

    id: int  # the blob's id
    uuid: str
    filename: str


class SubmissionDocument(TypedDict):
    """A submission's own copy of one of its template's documents."""

    uuid: str  # the template document's uuid, which areas name
    name: str
    blob_id: int
    blob_uuid: str
    filename: str
    pages: list[PageSize]
    previews: NotRequired[list[Preview]]  # absent in submissions made before they kept their own
    conditions: NotRequired[list[Condition]]  # the document applies only while these hold


# A reminder schedule: `first_duration`, `second_duration`, `third_duration` (each optional), each a duration key
# of `signsvc.submissions.reminder_schedule.DURATIONS`.
ReminderSchedule = dict[str, str]


class Message(TypedDict):
    """A custom invitation: it replaces the default wording."""

    subject: str
    body: str


class Preferences(TypedDict, total=False):
    """The settings of a submission or of a submitter (`signsvc.submissions.inputs.preferences`); a submitter's
    override the submission's."""

    message: Message
    reply_to: str
    bcc_completed: str  # a submission's only
    completed_redirect_url: str
    language: str
    send_copy_email: bool  # a submitter's only
    send_email: bool  # a submitter's only
    require_email_2fa: bool  # a submission's applies to those of its submitters that don't say
    reminders: ReminderSchedule  # a submission's only, when it sends reminders


class TemplatePreferences(TypedDict, total=False):
    """A template's settings (`PUT /templates/{id}` with `preferences`: signsvc.templates.template_preferences)."""

    require_email_2fa: bool  # its submissions' signers prove their email address before the form opens
    invitation_reminder_email_subject: str  # the wording of its reminders, over the account's
    invitation_reminder_email_body: str
