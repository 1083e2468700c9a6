"""The sandbox's errors: it plays the service, so they are the service's, outside the
companion's tree. ApiError, raised anywhere, is rendered as the spec's error envelope;
StageFailure ends a task failed.

    Exception
    ├── ApiError
    └── StageFailure
"""

from __future__ import annotations

from typing import Any

from companion.api.schema import STATUS_OF_CODE, ErrorCode


class ApiError(Exception):
    """A request the service refuses, answered as the spec's error envelope."""

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        *,
        param: str | None = None,
        details: dict[str, Any] | None = None,
        retryable: bool = False,
        retry_after: int | None = None,
        status: int | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.status = status or STATUS_OF_CODE[code]
        self.message = message
        self.param = param
        self.details = details or {}
        self.retryable = retryable
        self.retry_after = retry_after

    def body(self, request_id: str) -> dict[str, Any]:
        return {
            "error": {
                "code": self.code.value,
                "message": self.message,
                "param": self.param,
                "details": self.details,
                "request_id": request_id,
                "retryable": self.retryable,
            }
        }


class StageFailure(Exception):
    """A task's stage failed: the task ends failed with this code (Task.error)."""

    def __init__(self, code: str, message: str, retryable: bool = False) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retryable = retryable


def not_found(what: str) -> ApiError:
    # Ownership failures look exactly like absence (spec part 7).
    return ApiError(ErrorCode.NOT_FOUND, f"{what} not found")


def invalid(message: str, param: str | None = None) -> ApiError:
    return ApiError(ErrorCode.INVALID_REQUEST, message, param=param)
