"""HTTP for the client: authentication, timeouts, pacing, and the retry rules of spec
parts 3, 4 and 7, all decided in one function (`decide`).

| what is sent | transport failure | 429 | 409 IN_PROGRESS | 500/503 retryable | other |
|---|---|---|---|---|---|
| read (GET, quote, cancel) | retry | wait Retry-After | - | retry | raise |
| create (same key and bytes) | retry | wait Retry-After | wait, resend | retry | raise |
| upload (no key) | raise UncertainRequestError | wait Retry-After | - | retry | raise |

Retry-After is honoured in both forms (seconds or HTTP date); otherwise waits grow
exponentially with full jitter. Every call has a maximum attempt count and an overall
deadline. Each retry is logged at INFO with its reason and wait; the Authorization header
and request bodies never are."""

from __future__ import annotations

import asyncio
import email.utils
import enum
import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import aiohttp

from companion.api.errors import (
    ApiStatusError,
    DeadlineExceededError,
    IdempotencyInProgressError,
    RateLimitError,
    TransportError,
    UncertainRequestError,
    error_for,
)
from companion.api.pacing import Pacer, Room

log = logging.getLogger("companion.api")


class Kind(enum.Enum):
    READ = "read"
    CREATE = "create"
    UPLOAD = "upload"


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 8
    deadline: float = 120.0  # seconds for the whole call, retries included
    backoff_base: float = 0.5
    backoff_cap: float = 10.0


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: Any
    retry_after: float | None


@dataclass(frozen=True)
class Decision:
    retry: bool
    wait: float = 0.0
    reason: str = ""


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait, from an integer or an HTTP date; None when absent or unreadable."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        moment = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if moment is None:
        return None
    return max(0.0, moment.timestamp() - (time.time() if now is None else now))


def backoff(attempt: int, policy: RetryPolicy, rng: Callable[[], float] = random.random) -> float:
    """Full jitter: uniform in [0, min(cap, base * 2**attempt)]."""
    return float(rng() * min(policy.backoff_cap, policy.backoff_base * 2**attempt))


def decide(
    kind: Kind, attempt: int, policy: RetryPolicy, failure: ApiStatusError | TransportError
) -> Decision:
    """The one place that says whether a failed attempt is tried again, and when."""
    if isinstance(failure, TransportError):
        if kind is Kind.UPLOAD:
            return Decision(False, reason="an upload is never resent blindly")
        return Decision(True, backoff(attempt, policy), f"transport: {failure}")
    retry_after = failure.retry_after
    if isinstance(failure, RateLimitError):
        return Decision(
            True,
            retry_after if retry_after is not None else backoff(attempt, policy),
            f"{failure.status} {failure.code}",
        )
    if isinstance(failure, IdempotencyInProgressError):
        if kind is Kind.CREATE and failure.retryable:
            return Decision(
                True,
                retry_after if retry_after is not None else 1.0,
                "409 IDEMPOTENCY_IN_PROGRESS: the original is still being accepted",
            )
        return Decision(False)
    if failure.status in (500, 503) and failure.retryable:
        wait = retry_after if retry_after is not None else backoff(attempt, policy)
        return Decision(True, wait, f"{failure.status} {failure.code} (retryable)")
    return Decision(False)


class Transport:
    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        pacer: Pacer | None = None,
        policy: RetryPolicy | None = None,
        connect_timeout: float = 10.0,
        read_timeout: float = 60.0,
        user_agent: str = "companion",
        proxy: bool = True,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._auth = f"Bearer {api_key}"
        self.pacer = pacer or Pacer()
        self.policy = policy or RetryPolicy()
        self._timeout = aiohttp.ClientTimeout(
            sock_connect=connect_timeout, sock_read=read_timeout, total=None
        )
        self._session: aiohttp.ClientSession | None = None
        self._user_agent = user_agent
        self._proxy = proxy

    async def session(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(
                timeout=self._timeout,
                cookie_jar=aiohttp.DummyCookieJar(),
                headers={"User-Agent": self._user_agent},
                trust_env=self._proxy,  # HTTPS_PROXY / HTTP_PROXY / NO_PROXY
            )
        return self._session

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()

    async def request(
        self,
        method: str,
        path: str,
        *,
        kind: Kind = Kind.READ,
        body: bytes | None = None,
        content_type: str | None = None,
        headers: dict[str, str] | None = None,
        form: Callable[[], aiohttp.FormData] | None = None,
        query: dict[str, str] | None = None,
        policy: RetryPolicy | None = None,
    ) -> Reply:
        """Send one logical request, retrying as the rules allow. `body` bytes are sent
        unchanged on every attempt, so a retried create is byte-for-byte the original."""
        policy = policy or self.policy
        deadline = time.monotonic() + policy.deadline
        url = self.base_url + path
        send_headers = {"Authorization": self._auth, **(headers or {})}
        if content_type:
            send_headers["Content-Type"] = content_type
        window = "create" if kind is Kind.CREATE else "other"
        attempt = 0
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise DeadlineExceededError(
                    f"{method} {path}: deadline of {policy.deadline:g} s passed"
                )
            room = await self._paced(window, deadline, method, path)
            failure: ApiStatusError | TransportError
            try:
                reply = await self._send(method, url, send_headers, body, form, query, remaining)
            except TransportError as exc:
                self.pacer.answered(room)
                failure = UncertainRequestError(str(exc)) if kind is Kind.UPLOAD else exc
            else:
                self.pacer.answered(room)
                if reply.status < 400:
                    return reply
                failure = error_for(
                    reply.status, reply.body, reply.headers.get("x-request-id"), reply.retry_after
                )
                if isinstance(failure, RateLimitError) and reply.retry_after is not None:
                    # Account-wide: nothing at all goes out before that moment.
                    self.pacer.hold_until(time.monotonic() + reply.retry_after)
            attempt += 1
            decision = decide(kind, attempt, policy, failure)
            if not decision.retry or attempt >= policy.max_attempts:
                raise failure
            if time.monotonic() + decision.wait > deadline:
                raise DeadlineExceededError(
                    f"{method} {path}: next try would pass the deadline"
                ) from failure
            log.info(
                "retrying %s %s in %.2f s (attempt %d of %d): %s",
                method,
                path,
                decision.wait,
                attempt + 1,
                policy.max_attempts,
                decision.reason,
            )
            await asyncio.sleep(decision.wait)

    async def _paced(self, window: str, deadline: float, method: str, path: str) -> Room:
        delay = self.pacer.delay_for(window, time.monotonic())
        if time.monotonic() + delay > deadline:
            raise DeadlineExceededError(
                f"{method} {path}: the account's rate limit leaves no room before the deadline"
            )
        room = await self.pacer.acquire(window)
        if room.waited > 0.05:
            log.info(
                "paced %s %s by %.2f s to stay within the account's limits",
                method,
                path,
                room.waited,
            )
        return room

    async def _send(
        self,
        method: str,
        url: str,
        headers: dict[str, str],
        body: bytes | None,
        form: Callable[[], aiohttp.FormData] | None,
        query: dict[str, str] | None,
        remaining: float,
    ) -> Reply:
        session = await self.session()
        data: Any = form() if form is not None else body
        try:
            async with session.request(
                method,
                url,
                data=data,
                headers=headers,
                params=query,
                allow_redirects=False,
                timeout=aiohttp.ClientTimeout(
                    total=remaining,
                    sock_connect=self._timeout.sock_connect,
                    sock_read=self._timeout.sock_read,
                ),
            ) as response:
                raw = await response.read()
                retry_after = parse_retry_after(response.headers.get("Retry-After"))
                try:
                    parsed = await response.json(content_type=None) if raw else None
                except ValueError:
                    parsed = None
                return Reply(
                    response.status,
                    {k.lower(): v for k, v in response.headers.items()},
                    parsed,
                    retry_after,
                )
        except (aiohttp.ClientError, TimeoutError, ConnectionError) as exc:
            raise TransportError(f"{type(exc).__name__} on {method} {_path_of(url)}") from exc


def _path_of(url: str) -> str:
    # Only the path: queries may hold signatures.
    return url.split("?", 1)[0]
