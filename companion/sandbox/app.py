"""The sandbox put together: its configuration, accounts and keys, and the gate every
operation passes (request ids, faults, authentication, scopes, rate limits, the error
envelope). The operations themselves live in handlers.py; server.py starts it."""

from __future__ import annotations

import asyncio
import json
import logging
import math
import uuid
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import web

from companion.api.operations import OPERATIONS_BY_NAME, READ, WRITE, Operation
from companion.api.schema import ErrorCode
from companion.sandbox.account.limiter import SlidingWindow
from companion.sandbox.account.tiers import TIERS, Limits
from companion.sandbox.errors import ApiError, not_found
from companion.sandbox.face import Face, face_named
from companion.sandbox.faults import Faults
from companion.sandbox.journal import Journal
from companion.sandbox.state import Account, ApiKey, State, StateFile, key_hash, stable_id
from companion.sandbox.storage import Storage
from companion.sandbox.tasks.other_clients import seed_other_tasks
from companion.sandbox.tasks.runner import Runner

log = logging.getLogger(__name__)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
REQUEST_ID = web.RequestKey("request_id", str)
KEY = web.RequestKey("key", ApiKey)
ACCOUNT = web.RequestKey("account", Account)
MAX_JSON_BODY = 32 * 2**20  # 20 MiB of inline images is about 27 MiB of Base64
DEFAULT_ACCOUNT = "default"


@dataclass
class SandboxConfig:
    api_keys: list[str] = field(default_factory=lambda: ["sk-sandbox"])
    read_only_keys: list[str] = field(default_factory=list)
    paused_keys: list[str] = field(default_factory=list)
    ineligible_keys: list[str] = field(default_factory=list)
    disabled_keys: list[str] = field(default_factory=list)
    credits: int = 1000
    task_seconds: float = 2.0
    tier: str = "registered"
    limits: Limits | None = None  # overrides the tier's limits (tests, benchmarks)
    faults: str = "none"
    # How the details the spec leaves open are answered (companion.sandbox.face).
    face: str | Face = "default"
    state: Path | None = None
    url_seconds: int = 300
    accept_seconds: float = 0.0
    min_retry_after: int = 1
    workers: int = 2
    journal: bool = False  # record every request (tests of client behaviour)
    rate_window: float = 60.0  # seconds; the spec's is a minute, tests shorten it


def _split(entry: str) -> tuple[str, str]:
    """`[account:]key`: keys name their account; without one they share the default."""
    account, sep, secret = entry.partition(":")
    return (account, secret) if sep and account and secret else (DEFAULT_ACCOUNT, entry)


class SandboxService:
    def __init__(self, config: SandboxConfig) -> None:
        if config.tier not in TIERS:
            raise ValueError(f"unknown tier {config.tier!r}; choose from {', '.join(TIERS)}")
        self.config = config
        face = config.face
        self.face: Face = face_named(face) if isinstance(face, str) else face
        self.faults = Faults(config.faults)
        self.state_file = StateFile(config.state)
        self.state: State = self.state_file.load()
        data_dir = (
            config.state.with_name(config.state.name + ".data")
            if config.state
            else Path.cwd() / ".sandbox-data"
        )
        self._temporary: Any = None
        if config.state is None:
            import tempfile

            self._temporary = tempfile.TemporaryDirectory(prefix="companion-sandbox-")
            data_dir = Path(self._temporary.name)
        self.storage = Storage(data_dir, self.state, self.faults, config.url_seconds, self.face)
        self.pool = ThreadPoolExecutor(max_workers=config.workers, thread_name_prefix="sandbox")
        self.runner = Runner(
            self.state,
            self.storage,
            self.limits_of,
            config.task_seconds,
            self.pool,
            self.save,
            face=self.face,
        )
        self.window = SlidingWindow(config.rate_window)
        self.journal: Journal | None = Journal() if config.journal else None
        self.storage.journal = self.journal
        self._register_keys()

    # -- accounts and keys --------------------------------------------------------------

    def _register_keys(self) -> None:
        groups: list[tuple[list[str], list[str], str | None]] = [
            (self.config.api_keys, [READ, WRITE], None),
            (self.config.read_only_keys, [READ], None),
            (self.config.paused_keys, [READ, WRITE], "paused"),
            (self.config.ineligible_keys, [READ, WRITE], "ineligible"),
            (self.config.disabled_keys, [READ, WRITE], "disabled"),
        ]
        self.state.keys = {}
        for entries, scopes, status in groups:
            for entry in entries:
                name, secret = _split(entry)
                if status is not None:
                    name = f"{status}:{secret}"  # each special key is its own account
                account_id = stable_id("account", name)
                account = self.state.accounts.get(account_id)
                if account is None:
                    account = Account(account_id, name, self.config.tier, self.config.credits)
                    self.state.accounts[account_id] = account
                    seed_other_tasks(self.state, account_id, self.face.other_tasks)
                account.tier = self.config.tier
                account.status = status or "active"
                digest = key_hash(secret)
                self.state.keys[digest] = ApiKey(
                    stable_id("key", digest), digest, account_id, scopes
                )

    def limits_of(self, account_id: str) -> Limits:
        return self.config.limits or TIERS[self.state.accounts[account_id].tier]

    def save(self) -> None:
        self.state_file.save(self.state)

    # -- the application ----------------------------------------------------------------

    def build_app(self, routes: dict[str, Handler]) -> web.Application:
        app = web.Application(
            client_max_size=MAX_JSON_BODY, middlewares=[self._envelope, self._gate]
        )
        for name, handler in routes.items():
            op = OPERATIONS_BY_NAME[name]
            app.router.add_route(op.method, "/v1" + op.path, handler, name=name)
        return app

    def operation_of(self, request: web.Request) -> Operation | None:
        route = request.match_info.route
        name = getattr(route, "name", None)
        return OPERATIONS_BY_NAME.get(name) if name else None

    @web.middleware
    async def _envelope(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """Every failure leaves as the spec's error envelope, never as a bare 500."""
        request_id = f"req_{uuid.uuid4().hex[:20]}"
        request[REQUEST_ID] = request_id
        entry = None
        if self.journal is not None:
            # Only JSON is read ahead: a multipart stream can be read once.
            json_body = request.can_read_body and request.content_type == "application/json"
            body = await request.read() if json_body else None
            entry = self.journal.open(
                "api", request.method, request.path, dict(request.headers), body
            )
        try:
            response = await self._answer(request, handler, request_id)
        except BaseException:
            if entry is not None:
                Journal.close(entry, None, None)
            raise
        if entry is not None:
            code = None
            if response.status >= 400 and isinstance(response, web.Response) and response.body:
                try:
                    code = json.loads(response.body)["error"]["code"]  # type: ignore[arg-type]
                except (ValueError, KeyError, TypeError):
                    code = None
            Journal.close(entry, response.status, response.headers.get("Retry-After"), code)
        return response

    async def _answer(
        self, request: web.Request, handler: Handler, request_id: str
    ) -> web.StreamResponse:
        try:
            response = await handler(request)
        except ApiError as error:
            response = web.json_response(error.body(request_id), status=error.status)
            if error.retry_after is not None:
                response.headers["Retry-After"] = str(error.retry_after)
        except web.HTTPRequestEntityTooLarge:
            response = web.json_response(
                ApiError(ErrorCode.PAYLOAD_TOO_LARGE, "the request body is over the limit").body(
                    request_id
                ),
                status=413,
            )
        except web.HTTPNotFound:
            response = web.json_response(not_found("resource").body(request_id), status=404)
        except web.HTTPMethodNotAllowed as exc:
            response = web.json_response(
                ApiError(
                    ErrorCode.INVALID_REQUEST, f"{request.method} is not allowed here", status=405
                ).body(request_id),
                status=405,
                headers={"Allow": ",".join(exc.allowed_methods)},
            )
        except web.HTTPException as exc:
            if exc.status < 400:
                raise
            response = web.json_response(
                ApiError(
                    ErrorCode.PAYLOAD_TOO_LARGE if exc.status == 413 else ErrorCode.INVALID_REQUEST,
                    exc.reason,
                    status=exc.status,
                ).body(request_id),
                status=exc.status,
            )
        except (asyncio.CancelledError, ConnectionResetError):
            raise
        except Exception:
            log.exception("unexpected failure in %s %s", request.method, request.path)
            response = web.json_response(
                ApiError(
                    ErrorCode.INTERNAL_ERROR, "internal failure; retry later", retryable=True
                ).body(request_id),
                status=500,
            )
        response.headers["X-Request-Id"] = request_id
        return response

    @web.middleware
    async def _gate(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """Faults, authentication, scope and account-wide rate limits, in that order."""
        op = self.operation_of(request)
        if op is None or op.scope is None:
            return await handler(request)  # unknown routes and signed downloads
        await self._inject_faults(request, op)
        key = self._authenticate(request)
        account = self.state.accounts[key.account_id]
        if account.status == "paused":
            raise ApiError(ErrorCode.API_ACCOUNT_PAUSED, "the account is paused")
        if account.status == "ineligible":
            raise ApiError(
                ErrorCode.API_ACCOUNT_NOT_ELIGIBLE,
                "the account is not eligible for API access; verify it first",
            )
        if account.status == "disabled":
            raise ApiError(
                ErrorCode.API_DISABLED, "API access is disabled for this account", retryable=False
            )
        if op.scope not in key.scopes:
            raise ApiError(
                ErrorCode.INSUFFICIENT_SCOPE,
                f"this key lacks the {op.scope} scope",
                details={"needed": op.scope},
            )
        limits = self.limits_of(account.id)
        kind, limit = (
            ("create", limits.create_per_minute)
            if op.idempotent_create
            else ("other", limits.other_per_minute)
        )
        wait = self.window.admit(account.id, kind, limit)
        if wait is not None:
            raise ApiError(
                ErrorCode.RATE_LIMITED,
                f"over {limit} {kind} requests per minute for this account",
                retryable=True,
                retry_after=wait,
                details={"limit": limit, "window_seconds": 60, "kind": kind},
            )
        request[KEY] = key
        request[ACCOUNT] = account
        return await handler(request)

    async def _inject_faults(self, request: web.Request, op: Operation) -> None:
        faults = self.faults
        if not faults.active:
            return
        delay = faults.delay()
        if delay:
            await asyncio.sleep(delay)
        if faults.reset():
            if request.transport is not None:
                request.transport.abort()
            raise ConnectionResetError("fault: connection reset")
        if faults.storming():
            raise ApiError(
                ErrorCode.RATE_LIMITED,
                "rate limit storm (sandbox fault)",
                retryable=True,
                retry_after=1,
            )
        if faults.unavailable():
            code = (
                ErrorCode.PROVIDER_UNAVAILABLE
                if op.idempotent_create
                else ErrorCode.API_UNAVAILABLE
            )
            raise ApiError(
                code, "temporarily unavailable (sandbox fault)", retryable=True, retry_after=1
            )
        if faults.internal():
            raise ApiError(
                ErrorCode.INTERNAL_ERROR, "internal failure (sandbox fault)", retryable=True
            )

    def _authenticate(self, request: web.Request) -> ApiKey:
        header = request.headers.get("Authorization", "")
        scheme, _, secret = header.partition(" ")
        key = self.state.keys.get(key_hash(secret.strip())) if scheme.lower() == "bearer" else None
        if key is None:
            raise ApiError(
                ErrorCode.INVALID_API_KEY,
                "missing, expired or revoked API key; send Authorization: Bearer <key>",
            )
        return key

    def retry_after_for(self, remaining_seconds: float) -> int:
        floor = self.config.min_retry_after
        return max(floor, min(5, math.ceil(remaining_seconds / 3)))

    async def close(self) -> None:
        await self.runner.close()
        self.pool.shutdown(wait=True, cancel_futures=True)
        self.save()
        if self._temporary is not None:
            self._temporary.cleanup()
