"""The console's reminder settings: the account's up to three reminder delays (each counted from the invitation)
and the wording of its reminder emails. Console sends follow them; API submissions only when they ask."""

from __future__ import annotations

from aiohttp import web

from signsvc.http.appkeys import REMINDERS
from signsvc.http.web import catalogue
from signsvc.http.web.console import shell
from signsvc.http.web.console.forms import InputOf, Refusal, by_key, text
from signsvc.infra import errors
from signsvc.submissions import reminder_schedule, reminders

PAGE = "/console/settings/reminders"
WORDING = ("subject", "body")
# The catalogue's label of each select and of each duration, written out so the catalogue's test finds them used.
SLOT_LABELS = {
    "first_duration": "console.reminders.first_duration",
    "second_duration": "console.reminders.second_duration",
    "third_duration": "console.reminders.third_duration",
}
DURATION_LABELS = {
    "one_hour": "console.reminders.duration.one_hour",
    "two_hours": "console.reminders.duration.two_hours",
    "four_hours": "console.reminders.duration.four_hours",
    "eight_hours": "console.reminders.duration.eight_hours",
    "twelve_hours": "console.reminders.duration.twelve_hours",
    "twenty_four_hours": "console.reminders.duration.twenty_four_hours",
    "two_days": "console.reminders.duration.two_days",
    "three_days": "console.reminders.duration.three_days",
    "four_days": "console.reminders.duration.four_days",
    "five_days": "console.reminders.duration.five_days",
    "six_days": "console.reminders.duration.six_days",
    "seven_days": "console.reminders.duration.seven_days",
    "eight_days": "console.reminders.duration.eight_days",
    "fifteen_days": "console.reminders.duration.fifteen_days",
    "twenty_one_days": "console.reminders.duration.twenty_one_days",
    "thirty_days": "console.reminders.duration.thirty_days",
}


async def page(request: web.Request) -> web.Response:
    console = await shell.signed_in(request)
    schedule, email = await request.app[REMINDERS].settings(console.principal.account_id)
    return _form(request, console, {**schedule, **email})


async def save(request: web.Request) -> web.Response:
    console = await shell.signed_in(request)
    form = await shell.posted(request, console.session)
    entered = {name: text(form, name, strip=name != "body") for name in (*reminder_schedule.SLOTS, *WORDING)}
    schedule = {slot: entered[slot] for slot in reminder_schedule.SLOTS}
    try:
        await request.app[REMINDERS].change_settings(
            console.principal.account_id, schedule, {name: entered[name] for name in WORDING}
        )
    except errors.Invalid as refused:
        inputs = {f"reminders.{slot}": slot for slot in reminder_schedule.SLOTS} | {name: name for name in WORDING}
        return _form(request, console, entered, status=422, refused=_in_words(request, refused, by_key(inputs)))
    raise shell.done(PAGE, "reminders_saved")


def _in_words(request: web.Request, refused: errors.Invalid, input_of: InputOf) -> Refusal:
    """The refusal beside its input, in the page's words: a delay not after the one before it, one the selects do
    not offer, or wording longer than its limit (the last two only from a crafted form)."""
    found = Refusal.of(refused, input_of)
    t = catalogue.translator(catalogue.language(request))
    if found.input in reminders.WORDING_LIMITS:
        return Refusal(t("console.reminders.too_long", limit=reminders.WORDING_LIMITS[found.input]), found.input)
    if found.input not in SLOT_LABELS:
        return found
    if reminder_schedule.out_of_order(refused):
        return Refusal(t("console.reminders.not_later"), found.input)
    return Refusal(t("console.reminders.not_offered"), found.input)


def _form(
    request: web.Request,
    console: shell.Console,
    entered: dict[str, str],
    *,
    status: int = 200,
    refused: Refusal | None = None,
) -> web.Response:
    return shell.render(
        request,
        "console/reminder_settings.html",
        console.session,
        console=console,
        status=status,
        entered=entered,
        slots=SLOT_LABELS,
        durations=DURATION_LABELS,
        refused=refused,
    )


ROUTES: list[web.RouteDef] = [web.get(PAGE, page), web.post(PAGE, save)]
