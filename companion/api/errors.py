"""Every failure the client raises, in one tree keyed by HTTP status and error.code.

    CompanionError
    └── CompanionApiError
        ├── TransportError            no HTTP answer: refused, reset, timed out
        │   └── UncertainRequestError sent, maybe processed, not safe to resend (uploads)
        ├── DeadlineExceededError     the call's overall deadline passed while retrying
        │   └── WaitTimeoutError      waiting for a task ended locally; the task goes on
        ├── DownloadError             a download stayed short or wrong after its retries
        │   └── ContentEncodingError  a compressed answer damaged, cut short or undecodable
        └── ApiStatusError            an HTTP error with the spec's envelope
            ├── BadRequestError             400 INVALID_REQUEST, INVALID_BASE64,
            │                                   INVALID_IMAGE
            ├── AuthenticationError         401 INVALID_API_KEY
            ├── InsufficientCreditsError    402 INSUFFICIENT_CREDITS
            ├── PermissionDeniedError       403
            │   ├── AccountNotEligibleError     API_ACCOUNT_NOT_ELIGIBLE
            │   ├── AccountPausedError          API_ACCOUNT_PAUSED
            │   └── InsufficientScopeError      INSUFFICIENT_SCOPE
            ├── NotFoundError               404 NOT_FOUND (also: not owned, URL expired)
            ├── ConflictError               409
            │   ├── IdempotencyConflictError    IDEMPOTENCY_CONFLICT: stop
            │   └── IdempotencyInProgressError  IDEMPOTENCY_IN_PROGRESS: wait, resend
            ├── PayloadTooLargeError        413 PAYLOAD_TOO_LARGE
            ├── UnsupportedMediaTypeError   415 UNSUPPORTED_MEDIA_TYPE
            ├── ImageTooLargeError          422 IMAGE_DIMENSIONS_TOO_LARGE
            ├── RateLimitError              429 RATE_LIMITED
            │   └── QueueLimitError             QUEUE_LIMIT_EXCEEDED
            ├── InternalServerError         500
            └── ServiceUnavailableError     503 API_DISABLED, API_UNAVAILABLE,
                                                PROVIDER_UNAVAILABLE

Every ApiStatusError carries status, code, message, param, details, request_id,
retryable and retry_after (seconds, from the Retry-After header). Branch on the class or
on `code`, never on `message`.
"""

from __future__ import annotations

from typing import Any

from companion import CompanionError


class CompanionApiError(CompanionError):
    """Root of everything the client raises."""


class TransportError(CompanionApiError):
    """No HTTP answer arrived (connection refused or reset, timeout)."""


class UncertainRequestError(TransportError):
    """The request may have been processed; resending it blindly is not safe."""


class DeadlineExceededError(CompanionApiError):
    """The call's overall deadline passed; the last failure is the cause."""


class WaitTimeoutError(DeadlineExceededError):
    """Local waiting ended; the remote task continues. `task` is its last known state."""

    def __init__(self, message: str, task: object) -> None:
        super().__init__(message)
        self.task = task


class DownloadError(CompanionApiError):
    """A download could not be completed with the right size."""


class ContentEncodingError(DownloadError):
    """A compressed answer is damaged or cut short, or compressed in a way not undone here."""


class ApiStatusError(CompanionApiError):
    """The service answered with an HTTP error and the spec's envelope."""

    exit_code = 3  # the service refused

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        param: str | None = None,
        details: dict[str, Any] | None = None,
        request_id: str | None = None,
        retryable: bool = False,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(f"{status} {code}: {message}" + (f" (param: {param})" if param else ""))
        self.status = status
        self.code = code
        self.message = message
        self.param = param
        self.details = details or {}
        self.request_id = request_id
        self.retryable = retryable
        self.retry_after = retry_after


class BadRequestError(ApiStatusError):
    """The service found the request malformed (400)."""


class AuthenticationError(ApiStatusError):
    """The service does not know the API key (401)."""


class InsufficientCreditsError(ApiStatusError):
    """The account has too few credits for this (402)."""


class PermissionDeniedError(ApiStatusError):
    """The account may not do this (403)."""


class AccountNotEligibleError(PermissionDeniedError):
    """The account is not eligible for the API (403)."""


class AccountPausedError(PermissionDeniedError):
    """The account's API access is paused (403)."""


class InsufficientScopeError(PermissionDeniedError):
    """The API key lacks the scope this needs (403)."""


class NotFoundError(ApiStatusError):
    """Not found, not the account's, or its URL expired (404)."""


class ConflictError(ApiStatusError):
    """The request conflicts with one made before (409)."""


class IdempotencyConflictError(ConflictError):
    """The idempotency key was used for another request (409)."""


class IdempotencyInProgressError(ConflictError):
    """The request under this idempotency key is still running (409)."""


class PayloadTooLargeError(ApiStatusError):
    """The request or its image is too large (413)."""


class UnsupportedMediaTypeError(ApiStatusError):
    """The image's type is not one the service takes (415)."""


class ImageTooLargeError(ApiStatusError):
    """The image's dimensions are over the service's limit (422)."""


class RateLimitError(ApiStatusError):
    """Too many requests for now (429)."""


class QueueLimitError(RateLimitError):
    """Too many tasks waiting in the account's queue (429)."""


class InternalServerError(ApiStatusError):
    """The service failed inside (500)."""


class ServiceUnavailableError(ApiStatusError):
    """The service or its provider is unavailable now (503)."""


BY_STATUS: dict[int, type[ApiStatusError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    402: InsufficientCreditsError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    413: PayloadTooLargeError,
    415: UnsupportedMediaTypeError,
    422: ImageTooLargeError,
    429: RateLimitError,
    500: InternalServerError,
    503: ServiceUnavailableError,
}
BY_CODE: dict[tuple[int, str], type[ApiStatusError]] = {
    (403, "API_ACCOUNT_NOT_ELIGIBLE"): AccountNotEligibleError,
    (403, "API_ACCOUNT_PAUSED"): AccountPausedError,
    (403, "INSUFFICIENT_SCOPE"): InsufficientScopeError,
    (409, "IDEMPOTENCY_CONFLICT"): IdempotencyConflictError,
    (409, "IDEMPOTENCY_IN_PROGRESS"): IdempotencyInProgressError,
    (429, "QUEUE_LIMIT_EXCEEDED"): QueueLimitError,
}


def error_for(
    status: int, body: Any, request_id: str | None, retry_after: float | None
) -> ApiStatusError:
    """Build the right exception from a status and a (possibly malformed) envelope."""
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        error = {"code": f"HTTP_{status}", "message": "the service answered without an error body"}
    code = str(error.get("code") or f"HTTP_{status}")
    kind = BY_CODE.get((status, code)) or BY_STATUS.get(status, ApiStatusError)
    return kind(
        status,
        code,
        str(error.get("message", "")),
        param=error.get("param"),
        details=error.get("details") if isinstance(error.get("details"), dict) else {},
        request_id=error.get("request_id") or request_id,
        retryable=bool(error.get("retryable", False)),
        retry_after=retry_after,
    )
