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


class Invalid(ServiceError):
    """Understood but invalid: the message names the field or rule."""

    status = 422


class TooManyRequests(ServiceError):
    status = 429
    message = "Too many requests"


class Unavailable(ServiceError):
    status = 503
    message = "Service unavailable: the database does not answer"


class FileStoreUnavailable(Unavailable):
    message = "Service unavailable: the file store does not answer; try again later"


def located(message: str, where: str | None) -> str:
    """`message` with the place in the input it is about, as ``email is invalid in `submitters[1]`.``:
    the place in backticks and a full stop after it, the form clients of this API already parse.
    Without a place, the message alone."""
    return f"{message} in `{where}`." if where else message
