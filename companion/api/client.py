"""The async client of the Animation Generation Service: one typed method per operation.

    async with Client(base_url, api_key) as client:
        await client.refresh_limits()            # paces every later call
        task = await client.create_animation(body, idempotency_key=new_idempotency_key())
        task = await client.wait_for_task(task, timeout=600, on_progress=print)
        for asset in task.outputs:
            await client.download_asset(asset, folder / name_for(asset))

Create methods take the Idempotency-Key from the caller, who persists it before the call
so that a retry after a crash reuses it. Bodies are serialised once and the same bytes
are sent on every attempt."""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TypeVar

import aiohttp
from pydantic import BaseModel

from companion.api.download import Downloader
from companion.api.errors import WaitTimeoutError
from companion.api.pacing import Pacer
from companion.api.schema import (
    AccountResponse,
    AnimationCreate,
    AnimationExportCreate,
    AnimationExportQuote,
    AnimationQuote,
    Asset,
    CreditsBalanceResponse,
    FileResponse,
    ModelsResponse,
    PreviewRequest,
    QuoteResponse,
    Task,
    TaskList,
    VideoGenerationCreate,
    VideoGenerationQuote,
    VideoPreviewResponse,
)
from companion.api.transport import Kind, Reply, RetryPolicy, Transport

Model = TypeVar("Model", bound=BaseModel)
Progress = Callable[[Task], None]

PATHS = {
    "video_generation": "/video-generations",
    "animation_export": "/animation-exports",
    "animation": "/animations",
}
# Every client of one account in this process shares one pacer (the limits are account-wide).
_PACERS: dict[str, Pacer] = {}
DEFAULT_POLL = 2.0
MAX_POLL = 10.0


def shared_pacer(base_url: str, api_key: str) -> Pacer:
    identity = hashlib.sha256(f"{base_url}\x1f{api_key}".encode()).hexdigest()
    return _PACERS.setdefault(identity, Pacer())


def _json(model: BaseModel) -> bytes:
    return model.model_dump_json().encode()


class Client:
    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        policy: RetryPolicy | None = None,
        pacer: Pacer | None = None,
        connect_timeout: float = 10.0,
        read_timeout: float = 60.0,
        proxy: bool = True,
    ) -> None:
        # proxy: HTTPS_PROXY, HTTP_PROXY and NO_PROXY from the environment are honoured,
        # as every HTTP client does; only a service on this machine (the embedded
        # sandbox) is reached directly.
        self.transport = Transport(
            base_url,
            api_key,
            pacer=pacer or shared_pacer(base_url, api_key),
            policy=policy,
            connect_timeout=connect_timeout,
            read_timeout=read_timeout,
            proxy=proxy,
        )
        # Per task: the monotonic moment before which it must not be read (Retry-After).
        self._not_before: dict[str, float] = {}
        # The account last read (GET /account): who owns what this client uploads.
        self.account: AccountResponse | None = None
        self.downloader = Downloader(
            self.get_asset,
            connect_timeout=connect_timeout,
            read_timeout=read_timeout,
            proxy=proxy,
        )

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        await self.transport.close()
        await self.downloader.close()

    @property
    def pacer(self) -> Pacer:
        return self.transport.pacer

    async def _get(
        self,
        path: str,
        model: type[Model],
        query: dict[str, str] | None = None,
        policy: RetryPolicy | None = None,
    ) -> Model:
        reply = await self.transport.request("GET", path, query=query, policy=policy)
        return model.model_validate(reply.body)

    async def _post(
        self,
        path: str,
        model: type[Model],
        body: BaseModel | bytes | None = None,
        *,
        kind: Kind = Kind.READ,
        headers: dict[str, str] | None = None,
    ) -> Model:
        reply = await self._send_post(path, body, kind=kind, headers=headers)
        return model.model_validate(reply.body)

    async def _send_post(
        self,
        path: str,
        body: BaseModel | bytes | None,
        *,
        kind: Kind,
        headers: dict[str, str] | None,
    ) -> Reply:
        """A model is serialised once here; bytes go out exactly as given."""
        payload = body if isinstance(body, bytes | None) else _json(body)
        return await self.transport.request(
            "POST",
            path,
            kind=kind,
            body=payload,
            headers=headers,
            content_type="application/json" if payload is not None else None,
        )

    # -- account, credits, models ---------------------------------------------------------

    async def get_account(self, policy: RetryPolicy | None = None) -> AccountResponse:
        self.account = await self._get("/account", AccountResponse, policy=policy)
        return self.account

    async def refresh_limits(self, policy: RetryPolicy | None = None) -> AccountResponse:
        """Read the account's limits and pace every later call by them."""
        account = await self.get_account(policy)
        self.pacer.configure(account.limits)
        return account

    async def get_credit_balance(self, policy: RetryPolicy | None = None) -> CreditsBalanceResponse:
        return await self._get("/credits/balance", CreditsBalanceResponse, policy=policy)

    async def list_models(self) -> ModelsResponse:
        return await self._get("/models", ModelsResponse)

    # -- files ---------------------------------------------------------------------------------

    async def upload_file(
        self, data: bytes, filename: str = "image.png", mime_type: str = "application/octet-stream"
    ) -> FileResponse:
        """Never resent after a transport failure (it has no idempotency key): that raises
        UncertainRequestError and the caller decides (inline the image, or report)."""

        def form() -> aiohttp.FormData:
            fields = aiohttp.FormData()
            fields.add_field("file", data, filename=filename, content_type=mime_type)
            return fields

        reply = await self.transport.request("POST", "/files", kind=Kind.UPLOAD, form=form)
        return FileResponse.model_validate(reply.body)

    # -- quotes --------------------------------------------------------------------------------

    async def quote_video_generation(self, body: VideoGenerationQuote) -> QuoteResponse:
        return await self._post("/video-generations/quote", QuoteResponse, body)

    async def quote_animation_export(
        self, body: AnimationExportQuote | AnimationExportCreate
    ) -> QuoteResponse:
        return await self._post("/animation-exports/quote", QuoteResponse, body)

    async def quote_animation(self, body: AnimationQuote | AnimationCreate) -> QuoteResponse:
        return await self._post("/animations/quote", QuoteResponse, body)

    # -- creates -------------------------------------------------------------------------------

    async def _create(self, kind: str, body: BaseModel | bytes, idempotency_key: str) -> Task:
        reply = await self._send_post(
            PATHS[kind], body, kind=Kind.CREATE, headers={"Idempotency-Key": idempotency_key}
        )
        task = Task.model_validate(reply.body)
        self._remember(str(task.id), reply.retry_after)
        return task

    def _remember(self, task_id: str, retry_after: float | None) -> None:
        if retry_after is not None:
            self._not_before[task_id] = time.monotonic() + retry_after

    async def create_video_generation(
        self, body: VideoGenerationCreate | bytes, *, idempotency_key: str
    ) -> Task:
        return await self._create("video_generation", body, idempotency_key)

    async def create_animation_export(
        self, body: AnimationExportCreate | bytes, *, idempotency_key: str
    ) -> Task:
        return await self._create("animation_export", body, idempotency_key)

    async def create_animation(
        self, body: AnimationCreate | bytes, *, idempotency_key: str
    ) -> Task:
        return await self._create("animation", body, idempotency_key)

    # -- reads, cancels, lists ---------------------------------------------------------------------

    async def _read_task(self, kind: str, task_id: str) -> tuple[Task, float | None]:
        """Every read of a task, whoever asks, waits for the task's last Retry-After."""
        delay = self._not_before.get(task_id, 0.0) - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        reply: Reply = await self.transport.request("GET", f"{PATHS[kind]}/{task_id}")
        self._remember(task_id, reply.retry_after)
        return Task.model_validate(reply.body), reply.retry_after

    async def get_task(self, kind: str, task_id: str) -> Task:
        return (await self._read_task(kind, task_id))[0]

    async def get_video_generation(self, task_id: str) -> Task:
        return await self.get_task("video_generation", task_id)

    async def get_animation_export(self, task_id: str) -> Task:
        return await self.get_task("animation_export", task_id)

    async def get_animation(self, task_id: str) -> Task:
        return await self.get_task("animation", task_id)

    async def cancel_task(self, kind: str, task_id: str) -> Task:
        """Best effort: the answer may still be nonterminal; keep polling."""
        return await self._post(f"{PATHS[kind]}/{task_id}/cancel", Task)

    async def cancel_video_generation(self, task_id: str) -> Task:
        return await self.cancel_task("video_generation", task_id)

    async def cancel_animation_export(self, task_id: str) -> Task:
        return await self.cancel_task("animation_export", task_id)

    async def cancel_animation(self, task_id: str) -> Task:
        return await self.cancel_task("animation", task_id)

    async def list_tasks(
        self, kind: str, *, limit: int = 20, cursor: str | None = None
    ) -> TaskList:
        query = {"limit": str(limit)}
        if cursor is not None:
            query["cursor"] = cursor
        return await self._get(PATHS[kind], TaskList, query)

    async def iter_tasks(self, kind: str, *, page_size: int = 100) -> AsyncIterator[Task]:
        """Every task of a kind, newest first, following next_cursor to the end."""
        cursor: str | None = None
        while True:
            page = await self.list_tasks(kind, limit=page_size, cursor=cursor)
            for task in page.data:
                yield task
            if page.next_cursor is None:
                return
            cursor = page.next_cursor

    # -- waiting -------------------------------------------------------------------------------

    async def wait_for_task(
        self, task: Task, *, timeout: float = 900.0, on_progress: Progress | None = None
    ) -> Task:
        """Poll until a terminal status, never sooner than each read's Retry-After. The
        timeout ends local waiting only (WaitTimeoutError carries the last state); the
        remote task goes on."""
        kind, task_id = str(task.object), str(task.id)
        deadline = time.monotonic() + timeout
        current = task
        polls = 0
        while not current.is_terminal:
            moment = self._not_before.get(task_id)
            if moment is None:  # no hint from the service: back off gently
                moment = time.monotonic() + min(MAX_POLL, DEFAULT_POLL * (1.5**polls))
                self._not_before[task_id] = moment
            if moment > deadline:
                raise WaitTimeoutError(
                    f"task {task_id} still {current.status} after {timeout:g} s; it continues "
                    "remotely",
                    current,
                )
            current, _ = await self._read_task(kind, task_id)
            polls += 1
            if on_progress is not None:
                on_progress(current)
        self._not_before.pop(task_id, None)
        return current

    # -- assets --------------------------------------------------------------------------------

    async def get_asset(self, asset_id: str) -> Asset:
        return await self._get(f"/assets/{asset_id}", Asset)

    async def preview_asset(self, asset_id: str, body: PreviewRequest) -> VideoPreviewResponse:
        return await self._post(f"/assets/{asset_id}/preview", VideoPreviewResponse, body)

    async def download_asset(self, asset: Asset, dest: Path, label: str | None = None) -> Path:
        return await self.downloader.download(asset, dest, label)
