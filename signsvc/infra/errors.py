"""The errors a request can end in; one middleware turns each into `{"error": message}`."""

from __future__ import annotations


class ServiceError(Exception):
    status = 500
    message = "Internal server error"
    retry_after: int | None = None  # seconds, sent as `Retry-After` (a 503 of a busy part of the service)

    def __init__(self, message: str | None = None) -> None:
        super().__init__(message or self.message)
        self.message = message or self.message


class NotAuthenticated(ServiceError):
    status = 401
    message = "Not authenticated"


class Forbidden(ServiceError):
    """The account has no approved API access."""

    status = 403
    message = "Forbidden"


class NotAuthorized(ServiceError):
    """The record belongs to another account."""

    status = 403
    message = "Not authorized"


class NotFound(ServiceError):
    status = 404
    message = "Not found"


class MethodNotAllowed(ServiceError):
    status = 405
    message = "Method not allowed"


class PayloadTooLarge(ServiceError):
    status = 413
    message = "Request body is too large"


class UnsupportedMediaType(ServiceError):
    status = 415
    message = "Request body must be JSON sent with Content-Type: application/json"


class Gone(ServiceError):
    status = 410
    message = "Gone"


# A place in a request body: its keys and array indexes from the top, as ("submitters", 1, "email").
Location = tuple[str | int, ...]


class Invalid(ServiceError):
    """Understood but invalid: the message names the field or rule, and `location` is the value it is about, as
    data, for those who show the message beside an input (the console) without reading it; () for no one value."""

    status = 422

    def __init__(self, message: str | None = None, *, location: Location = ()) -> None:
        super().__init__(message)
        self.location = location

    @property
    def field(self) -> str:
        """The innermost key of the location: `email` of `submitters[1].email`, `events` of `events[2]`."""
        return next((part for part in reversed(self.location) if isinstance(part, str)), "")

    @property
    def path(self) -> str:
        return written(self.location)


class TooManyRequests(ServiceError):
    status = 429
    message = "Too many requests"


class Unavailable(ServiceError):
    status = 503
    message = "Service unavailable: the database does not answer"


class FileStoreUnavailable(Unavailable):
    message = "Service unavailable: the file store does not answer; try again later"


def written(location: Location) -> str:
    """A location as the API's messages write it: `submitters[1].email`."""
    return "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in location).removeprefix(".")


def located(message: str, where: Location, *about: str | int) -> Invalid:
    """`message` with the place in the body it is in, as ``email is invalid in `submitters[1]`.``: the reference's
    form, the place in backticks and a full stop after it, which clients of this API already parse; the message
    alone at the top of the body. `about` is the value in `where` the message is about (`email`)."""
    return Invalid(f"{message} in `{written(where)}`." if where else message, location=(*where, *about))


def at(location: Location, problem: str) -> Invalid:
    """The place of the value first, then what is wrong with it, as `documents[0].fields[1].page must be an
    integer`: the form of the endpoints the reference has no wording for."""
    return Invalid(f"{written(location)} {problem}", location=location)


# The JSON types as the reference names them in its type errors (`submitters must be a Array`): Ruby's class
# names, with Hash called Object.
_TYPE_NAMES: dict[type, str] = {str: "String", list: "Array", dict: "Object"}


def must_be(expected: type) -> str:
    """The wording of a type error, the same on every endpoint: `must be a String`."""
    return f"must be a {_TYPE_NAMES[expected]}"
