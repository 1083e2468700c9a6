"""The error envelope and error codes (spec part 7)."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import Field

from companion.api.schema.base import ResponseModel


class ErrorCode(StrEnum):
    INVALID_REQUEST = "INVALID_REQUEST"
    INVALID_BASE64 = "INVALID_BASE64"
    INVALID_IMAGE = "INVALID_IMAGE"
    INVALID_API_KEY = "INVALID_API_KEY"
    INSUFFICIENT_CREDITS = "INSUFFICIENT_CREDITS"
    API_ACCOUNT_NOT_ELIGIBLE = "API_ACCOUNT_NOT_ELIGIBLE"
    API_ACCOUNT_PAUSED = "API_ACCOUNT_PAUSED"
    INSUFFICIENT_SCOPE = "INSUFFICIENT_SCOPE"
    NOT_FOUND = "NOT_FOUND"
    IDEMPOTENCY_CONFLICT = "IDEMPOTENCY_CONFLICT"
    IDEMPOTENCY_IN_PROGRESS = "IDEMPOTENCY_IN_PROGRESS"
    PAYLOAD_TOO_LARGE = "PAYLOAD_TOO_LARGE"
    UNSUPPORTED_MEDIA_TYPE = "UNSUPPORTED_MEDIA_TYPE"
    IMAGE_DIMENSIONS_TOO_LARGE = "IMAGE_DIMENSIONS_TOO_LARGE"
    RATE_LIMITED = "RATE_LIMITED"
    QUEUE_LIMIT_EXCEEDED = "QUEUE_LIMIT_EXCEEDED"
    INTERNAL_ERROR = "INTERNAL_ERROR"
    API_DISABLED = "API_DISABLED"
    API_UNAVAILABLE = "API_UNAVAILABLE"
    PROVIDER_UNAVAILABLE = "PROVIDER_UNAVAILABLE"
    # Task-level codes (Task.error.code).
    EXPORT_FAILED = "EXPORT_FAILED"
    PROVIDER_CONTENT_REJECTED = "PROVIDER_CONTENT_REJECTED"


# HTTP status of each request-level code (spec part 7 table). 500 has no code in the
# spec; INTERNAL_ERROR is our choice for it.
STATUS_OF_CODE: dict[ErrorCode, int] = {
    ErrorCode.INVALID_REQUEST: 400,
    ErrorCode.INVALID_BASE64: 400,
    ErrorCode.INVALID_IMAGE: 400,
    ErrorCode.INVALID_API_KEY: 401,
    ErrorCode.INSUFFICIENT_CREDITS: 402,
    ErrorCode.API_ACCOUNT_NOT_ELIGIBLE: 403,
    ErrorCode.API_ACCOUNT_PAUSED: 403,
    ErrorCode.INSUFFICIENT_SCOPE: 403,
    ErrorCode.NOT_FOUND: 404,
    ErrorCode.IDEMPOTENCY_CONFLICT: 409,
    ErrorCode.IDEMPOTENCY_IN_PROGRESS: 409,
    ErrorCode.PAYLOAD_TOO_LARGE: 413,
    ErrorCode.UNSUPPORTED_MEDIA_TYPE: 415,
    ErrorCode.IMAGE_DIMENSIONS_TOO_LARGE: 422,
    ErrorCode.RATE_LIMITED: 429,
    ErrorCode.QUEUE_LIMIT_EXCEEDED: 429,
    ErrorCode.INTERNAL_ERROR: 500,
    ErrorCode.API_DISABLED: 503,
    ErrorCode.API_UNAVAILABLE: 503,
    ErrorCode.PROVIDER_UNAVAILABLE: 503,
}


class ErrorBody(ResponseModel):
    code: str
    message: str
    param: str | None = None
    details: dict[str, Any] = Field(default_factory=dict)
    request_id: str | None = None
    retryable: bool = False


class ErrorEnvelope(ResponseModel):
    error: ErrorBody
