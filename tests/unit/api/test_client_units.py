"""The client's rules in isolation: Retry-After parsing, the retry decision table, the
exception mapping, idempotency keys and the pacer's window."""

from __future__ import annotations

import email.utils
import time
from pathlib import Path

import pytest

from companion.api import errors
from companion.api.keys import new_idempotency_key
from companion.api.pacing import MARGIN, Pacer
from companion.api.schema import AccountLimits
from companion.api.transport import Kind, RetryPolicy, decide, parse_retry_after


def test_retry_after_in_both_forms() -> None:
    assert parse_retry_after("7") == 7.0
    now = time.time()
    date = email.utils.formatdate(now + 30, usegmt=True)
    assert parse_retry_after(date, now=now) == pytest.approx(30, abs=1)
    assert parse_retry_after(email.utils.formatdate(now - 30, usegmt=True), now=now) == 0
    assert parse_retry_after(None) is None and parse_retry_after("soon") is None


def envelope(code: str, retryable: bool = False) -> dict[str, object]:
    return {
        "error": {
            "code": code,
            "message": "m",
            "param": None,
            "details": {},
            "request_id": "r",
            "retryable": retryable,
        }
    }


@pytest.mark.parametrize(
    "status,code,kind",
    [
        (400, "INVALID_BASE64", errors.BadRequestError),
        (401, "INVALID_API_KEY", errors.AuthenticationError),
        (402, "INSUFFICIENT_CREDITS", errors.InsufficientCreditsError),
        (403, "API_ACCOUNT_PAUSED", errors.AccountPausedError),
        (403, "INSUFFICIENT_SCOPE", errors.InsufficientScopeError),
        (404, "NOT_FOUND", errors.NotFoundError),
        (409, "IDEMPOTENCY_CONFLICT", errors.IdempotencyConflictError),
        (409, "IDEMPOTENCY_IN_PROGRESS", errors.IdempotencyInProgressError),
        (413, "PAYLOAD_TOO_LARGE", errors.PayloadTooLargeError),
        (415, "UNSUPPORTED_MEDIA_TYPE", errors.UnsupportedMediaTypeError),
        (422, "IMAGE_DIMENSIONS_TOO_LARGE", errors.ImageTooLargeError),
        (429, "QUEUE_LIMIT_EXCEEDED", errors.QueueLimitError),
        (500, "INTERNAL_ERROR", errors.InternalServerError),
        (503, "PROVIDER_UNAVAILABLE", errors.ServiceUnavailableError),
        (418, "TEAPOT", errors.ApiStatusError),
    ],
)
def test_exceptions_by_status_and_code(status: int, code: str, kind: type) -> None:
    error = errors.error_for(status, envelope(code, True), "req-1", 3.0)
    assert type(error) is kind and error.code == code and error.status == status
    assert error.retryable and error.retry_after == 3.0 and error.request_id == "r"


def test_malformed_error_bodies_still_raise_the_right_class() -> None:
    error = errors.error_for(503, "<html>bad gateway</html>", "req-9", None)
    assert isinstance(error, errors.ServiceUnavailableError) and error.request_id == "req-9"
    assert error.retryable is False


POLICY = RetryPolicy()


def api_error(
    status: int, code: str, retryable: bool = False, retry_after: float | None = None
) -> errors.ApiStatusError:
    return errors.error_for(status, envelope(code, retryable), None, retry_after)


@pytest.mark.parametrize(
    "kind,failure,retry,wait",
    [
        (Kind.READ, errors.TransportError("reset"), True, None),
        (Kind.CREATE, errors.TransportError("reset"), True, None),
        (Kind.UPLOAD, errors.TransportError("reset"), False, None),
        (Kind.READ, api_error(429, "RATE_LIMITED", True, 4), True, 4),
        (Kind.UPLOAD, api_error(429, "RATE_LIMITED", True, 4), True, 4),
        (Kind.CREATE, api_error(409, "IDEMPOTENCY_IN_PROGRESS", True, 1), True, 1),
        (Kind.CREATE, api_error(409, "IDEMPOTENCY_CONFLICT"), False, None),
        (Kind.READ, api_error(503, "API_UNAVAILABLE", True, 2), True, 2),
        (Kind.READ, api_error(503, "API_DISABLED", False), False, None),
        (Kind.CREATE, api_error(500, "INTERNAL_ERROR", False), False, None),
        (Kind.CREATE, api_error(500, "INTERNAL_ERROR", True), True, None),
        (Kind.READ, api_error(400, "INVALID_REQUEST"), False, None),
        (Kind.CREATE, api_error(402, "INSUFFICIENT_CREDITS"), False, None),
    ],
)
def test_retry_decisions(kind: Kind, failure: Exception, retry: bool, wait: float | None) -> None:
    decision = decide(kind, 1, POLICY, failure)  # type: ignore[arg-type]
    assert decision.retry is retry
    if wait is not None:
        assert decision.wait == wait
    elif retry:
        assert 0 <= decision.wait <= POLICY.backoff_cap


def test_idempotency_keys() -> None:
    keys = {new_idempotency_key("animation") for _ in range(100)}
    assert len(keys) == 100
    assert all(8 <= len(k) <= 200 and k.startswith("animation-") for k in keys)


def test_pacer_mirrors_a_sliding_window() -> None:
    pacer = Pacer(AccountLimits(concurrency=1, queue=3, create_per_minute=3, other_per_minute=60))
    window = pacer._windows["create"]
    window.hits.extend([100.0, 110.0, 120.0])
    assert pacer.delay_for("create", 125.0) == pytest.approx(100 + 60 - 125 + MARGIN)
    assert pacer.delay_for("create", 161.0) == 0  # the first hit left the window
    assert pacer.delay_for("other", 125.0) == 0
    pacer.hold_until(200.0)
    assert pacer.delay_for("other", 150.0) == pytest.approx(50.0)


def test_headroom_keeps_part_of_the_other_window_free() -> None:
    pacer = Pacer(headroom=0.25)
    pacer.configure(AccountLimits(concurrency=1, queue=3, create_per_minute=3, other_per_minute=60))
    assert pacer._windows["other"].limit == 45 and pacer._windows["create"].limit == 3


def test_the_retry_count_is_a_setting(tmp_path: Path) -> None:
    """Eight tries a call by default; retry_attempts (config.yaml) or
    COMPANION_RETRY_ATTEMPTS sets it, within 1 to 20, and the client is made with it."""
    from companion.runtime.assemble import open_client
    from companion.settings.config import load_settings
    from companion.settings.endpoint import Endpoint
    from companion.settings.errors import ConfigError

    home = {"COMPANION_HOME": str(tmp_path)}
    assert load_settings(home).retry_attempts == RetryPolicy().max_attempts == 8
    (tmp_path / "config.yaml").write_text("retry_attempts: 3\n")
    assert load_settings(home).retry_attempts == 3
    assert load_settings({**home, "COMPANION_RETRY_ATTEMPTS": "1"}).retry_attempts == 1
    client = open_client(Endpoint("http://127.0.0.1:9/v1", "sk-x", sandbox=True), 3)
    assert client.transport.policy.max_attempts == 3
    (tmp_path / "config.yaml").write_text("retry_attempts: 0\n")
    with pytest.raises(ConfigError, match="retry_attempts"):
        load_settings(home)
