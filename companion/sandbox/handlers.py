"""The 22 operations of spec part 4, validated by the shared schema."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import ipaddress
import json
import socket
import uuid
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

import aiohttp
from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from pydantic import BaseModel, ValidationError
from yarl import URL

from companion.api.schema import (
    ALPHA_REQUIRED_FORMATS,
    AnimationCreate,
    AnimationExportCreate,
    AnimationExportQuote,
    AnimationQuote,
    Base64ImageInput,
    ErrorCode,
    FileImageInput,
    GenerationInput,
    PreviewRequest,
    VideoGenerationCreate,
    VideoGenerationQuote,
)
from companion.api.schema.base import first_error
from companion.api.schema.images import check_image_url_shape, is_blocked_address
from companion.api.schema.requests import IDEMPOTENCY_KEY_MAX, IDEMPOTENCY_KEY_MIN
from companion.media.preview import build_contact_sheet
from companion.sandbox.errors import ApiError, invalid, not_found
from companion.sandbox.images import (
    MAX_INLINE_TOTAL,
    MAX_UPLOAD_BYTES,
    CheckedImage,
    check_image,
    decode_base64,
)
from companion.sandbox.models import MODELS, check_video
from companion.sandbox.pricing import Price, export_price, frames_of, video_price
from companion.sandbox.service import ACCOUNT, KEY, Handler, SandboxService
from companion.sandbox.state import (
    Account,
    ApiKey,
    AssetRecord,
    FileRecord,
    IdempotencyRecord,
    TaskRecord,
    iso,
    now,
)

Body = TypeVar("Body", bound=BaseModel)
KINDS = {
    "video_generation": "video_generation",
    "animation_export": "animation_export",
    "animation": "animation",
}
URL_FETCH_TIMEOUT = 10.0


@dataclass
class Intake:
    """What a create keeps of its image inputs: file ids, and their normalised form."""

    files: dict[str, Any]
    normalized: dict[str, Any]


class Handlers:
    def __init__(self, service: SandboxService) -> None:
        self.s = service
        self.state = service.state

    def routes(self) -> dict[str, Handler]:
        routes: dict[str, Handler] = {
            "get_account": self.get_account,
            "get_credit_balance": self.get_balance,
            "list_models": self.list_models,
            "upload_file": self.upload_file,
            "get_asset": self.get_asset,
            "download_asset": self.download_asset,
            "preview_asset": self.preview_asset,
            "quote_video_generation": self.quote_video_generation,
            "quote_animation_export": self.quote_animation_export,
            "quote_animation": self.quote_animation,
            "create_video_generation": self.create_video_generation,
            "create_animation_export": self.create_animation_export,
            "create_animation": self.create_animation,
        }
        for kind, plural in (
            ("video_generation", "video_generations"),
            ("animation_export", "animation_exports"),
            ("animation", "animations"),
        ):
            routes[f"list_{plural}"] = self._lister(kind)
            routes[f"get_{kind}"] = self._getter(kind)
            routes[f"cancel_{kind}"] = self._canceller(kind)
        return routes

    # -- helpers ----------------------------------------------------------------------

    @staticmethod
    def _who(request: web.Request) -> tuple[Account, ApiKey]:
        return request[ACCOUNT], request[KEY]

    @staticmethod
    async def _body(request: web.Request, model: type[Body]) -> Body:
        if request.content_type != "application/json":
            raise ApiError(
                ErrorCode.UNSUPPORTED_MEDIA_TYPE,
                "send the body as application/json",
                param="Content-Type",
            )
        raw = await request.read()
        try:
            data = json.loads(raw or b"null")
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise invalid(f"the body is not valid JSON: {exc}") from exc
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            param, message = first_error(exc)
            raise invalid(message, param) from exc

    @staticmethod
    def _path_id(request: web.Request, name: str) -> str:
        value = request.match_info[name]
        try:
            return str(uuid.UUID(value))
        except ValueError as exc:
            raise invalid(f"{name} must be a UUID", name) from exc

    def _asset_json(self, asset: AssetRecord) -> dict[str, Any]:
        url, expires = self.s.storage.download_url(asset)
        return {
            "object": "asset",
            "id": asset.id,
            "format": asset.format,
            "mime_type": asset.mime_type,
            "byte_size": asset.byte_size,
            "created_at": asset.created_at,
            "download_url": url,
            "download_expires_at": iso(expires),
            "media": asset.media,
        }

    def _task_json(self, task: TaskRecord) -> dict[str, Any]:
        return {
            "object": task.object,
            "id": task.id,
            "status": task.status,
            "stage": task.stage,
            "progress": task.progress,
            "created_at": task.created_at,
            "started_at": task.started_at,
            "finished_at": task.finished_at,
            "credits": {
                "quoted": task.quoted,
                "held": task.held,
                "charged": task.charged,
                "refunded": task.refunded,
                "released": task.released,
                "status": task.credit_status,
            },
            "error": task.error,
            "metadata": task.metadata,
            "normalized_input": task.normalized_input,
            "outputs": [self._asset_json(self.state.assets[i]) for i in task.output_ids],
        }

    def _task_response(self, task: TaskRecord, status: int = 200) -> web.Response:
        retry = self.s.retry_after_for(self.s.runner.remaining_seconds(task))
        return web.json_response(
            self._task_json(task), status=status, headers={"Retry-After": str(retry)}
        )

    def _owned_task(self, request: web.Request, kind: str, name: str) -> TaskRecord:
        account, _ = self._who(request)
        task = self.state.tasks.get(self._path_id(request, name))
        if task is None or task.account_id != account.id or task.object != kind:
            raise not_found("task")
        return task

    def _owned_asset(
        self, account: Account, asset_id: str, param: str | None = None
    ) -> AssetRecord:
        asset = self.state.assets.get(asset_id)
        if asset is None or asset.account_id != account.id:
            error = not_found("asset")
            error.param = param
            raise error
        return asset

    # -- account, credits, models --------------------------------------------------------

    async def get_account(self, request: web.Request) -> web.Response:
        account, key = self._who(request)
        limits = self.s.limits_of(account.id)
        paid = account.tier != "registered"
        period_end = (now() + timedelta(days=30)).replace(microsecond=0) if paid else None
        return web.json_response(
            {
                "object": "account",
                "id": account.id,
                "api_key": {"id": key.id, "scopes": key.scopes},
                "limits": {
                    "concurrency": limits.concurrency,
                    "queue": limits.queue,
                    "create_per_minute": limits.create_per_minute,
                    "other_per_minute": limits.other_per_minute,
                },
                "plan": {
                    "code": account.tier,
                    "cancel_at_period_end": False,
                    "current_period_end": iso(period_end),
                },
            }
        )

    async def get_balance(self, request: web.Request) -> web.Response:
        account, _ = self._who(request)
        return web.json_response({"object": "credit_balance", "available": account.available})

    async def list_models(self, request: web.Request) -> web.Response:
        return web.json_response({"object": "list", "data": MODELS})

    # -- upload --------------------------------------------------------------------------

    async def upload_file(self, request: web.Request) -> web.Response:
        account, _ = self._who(request)
        if not request.content_type.startswith("multipart/"):
            raise invalid("upload the image as multipart/form-data in the field 'file'", "file")
        try:
            data = await self._multipart_file(request)
        except (ValueError, aiohttp.ClientError, HttpProcessingError, UnicodeDecodeError) as exc:
            raise invalid(f"the multipart body is malformed: {exc}", "file") from exc
        if data is None:
            raise invalid("the multipart body has no 'file' field", "file")
        checked = check_image(data, "file")
        record = self._store_image(account, checked, uploaded=True)
        self.s.save()
        return web.json_response(self._file_json(record), status=201)

    @staticmethod
    async def _multipart_file(request: web.Request) -> bytes | None:
        data: bytes | None = None
        reader = await request.multipart()
        while (part := await reader.next()) is not None:
            if isinstance(part, aiohttp.BodyPartReader) and part.name == "file":
                chunks, size = [], 0
                while chunk := await part.read_chunk(1 << 16):
                    size += len(chunk)
                    if size > MAX_UPLOAD_BYTES:
                        raise ApiError(
                            ErrorCode.PAYLOAD_TOO_LARGE,
                            f"uploads are at most {MAX_UPLOAD_BYTES} bytes",
                            param="file",
                        )
                    chunks.append(chunk)
                data = b"".join(chunks)
        return data

    def _store_image(self, account: Account, image: CheckedImage, *, uploaded: bool) -> FileRecord:
        suffix = {"image/png": ".png", "image/jpeg": ".jpg", "image/webp": ".webp"}[image.mime_type]
        path = self.s.storage.new_path(suffix)
        path.write_bytes(image.data)
        record = FileRecord(
            id=str(uuid.uuid4()),
            account_id=account.id,
            mime_type=image.mime_type,
            width=image.width,
            height=image.height,
            byte_size=len(image.data),
            sha256=hashlib.sha256(image.data).hexdigest(),
            created_at=iso(now()) or "",
            path=str(path),
            uploaded=uploaded,
        )
        self.state.files[record.id] = record
        return record

    @staticmethod
    def _file_json(record: FileRecord) -> dict[str, Any]:
        return {
            "object": "file",
            "id": record.id,
            "mime_type": record.mime_type,
            "width": record.width,
            "height": record.height,
            "byte_size": record.byte_size,
            "sha256": record.sha256,
            "created_at": record.created_at,
        }

    # -- image inputs ----------------------------------------------------------------------

    async def _intake(self, account: Account, given: GenerationInput, *, persist: bool) -> Intake:
        slots: list[tuple[str, str, Any]] = [
            ("first_frame", "input.first_frame", given.first_frame)
        ]
        if given.last_frame is not None:
            slots.append(("last_frame", "input.last_frame", given.last_frame))
        slots += [
            (f"reference_{i}", f"input.reference_images.{i}", image)
            for i, image in enumerate(given.reference_images)
        ]
        files: dict[str, Any] = {}
        normalized: dict[str, Any] = {}
        inline_total = 0
        for slot, param, image in slots:
            if isinstance(image, FileImageInput):
                record = self.state.files.get(str(image.file_id))
                if record is None or record.account_id != account.id or not record.uploaded:
                    error = not_found("file")
                    error.param = f"{param}.file_id"
                    raise error
                files[slot] = record.id
                normalized[slot] = {"type": "file", "file_id": record.id}
                continue
            if isinstance(image, Base64ImageInput):
                data = decode_base64(image.data, f"{param}.data")
                inline_total += len(data)
                if inline_total > MAX_INLINE_TOTAL:
                    raise ApiError(
                        ErrorCode.PAYLOAD_TOO_LARGE,
                        f"inline images may decode to at most {MAX_INLINE_TOTAL} "
                        "bytes in one request",
                        param=f"{param}.data",
                    )
                checked = check_image(data, f"{param}.data", image.media_type)
                form = {"type": "base64", "media_type": image.media_type}
            else:
                checked = await _fetch_image(image.url, f"{param}.url")
                form = {"type": "url", "url": image.url}
            form["sha256"] = hashlib.sha256(checked.data).hexdigest()
            normalized[slot] = form
            if persist:  # base64 and URL bytes are persisted before the create is accepted
                files[slot] = self._store_image(account, checked, uploaded=False).id
        return Intake(files, normalized)

    # -- quotes ------------------------------------------------------------------------------

    def _generation_price(self, body: VideoGenerationCreate) -> Price:
        check_video(
            body.video,
            prompt=body.prompt,
            negative_prompt=body.negative_prompt,
            has_last_frame=body.input.last_frame is not None,
            reference_images=len(body.input.reference_images),
        )
        return video_price(
            body.video, body.input.last_frame is not None, len(body.input.reference_images)
        )

    def _check_alpha(self, export: Any, alpha_key: bool) -> None:
        if alpha_key:
            return
        if export.transparent.enabled:
            raise invalid(
                "transparent export needs an alpha_key source video", "export.transparent"
            )
        needing = [f.value for f in export.formats if f in ALPHA_REQUIRED_FORMATS]
        if needing:
            raise invalid(
                f"{', '.join(needing)} need an alpha_key source video", "export.output_formats"
            )

    def _animation_price(self, body: AnimationCreate) -> Price:
        price = self._generation_price(body)
        transparency = body.video.transparency
        self._check_alpha(
            body.export, transparency is not None and transparency.mode == "alpha_key"
        )
        seconds = body.video.duration_seconds or 3.0
        export = export_price(body.export, frames_of(body.export, seconds))
        return Price(price.video, export.export, price.items + export.items)

    def _export_price(
        self, account: Account, body: AnimationExportCreate
    ) -> tuple[Price, AssetRecord]:
        source = self._owned_asset(
            account, str(body.source_video_asset_id), "source_video_asset_id"
        )
        if source.media is None or source.format != "clip_video":
            raise invalid(
                "the source must be a video asset (format clip_video)", "source_video_asset_id"
            )
        self._check_alpha(body.export, source.key_color is not None)
        duration = float(source.media.get("duration_seconds") or 0)
        start = body.selection.start_seconds
        if start >= duration:
            raise invalid(
                f"the selection starts after the video ends ({duration:.3f} s)",
                "selection.start_seconds",
            )
        span = min(duration - start, body.selection.duration_seconds or duration)
        return export_price(body.export, frames_of(body.export, span)), source

    @staticmethod
    def _quote_json(price: Price) -> web.Response:
        return web.json_response(
            {"object": "quote", "credits": price.total, "breakdown": price.breakdown()}
        )

    async def quote_video_generation(self, request: web.Request) -> web.Response:
        body = await self._body(request, VideoGenerationQuote)
        check_video(
            body.video,
            prompt="-",
            negative_prompt="",
            has_last_frame=body.has_last_frame,
            reference_images=body.reference_image_count,
        )
        return self._quote_json(
            video_price(body.video, body.has_last_frame, body.reference_image_count)
        )

    async def quote_animation(self, request: web.Request) -> web.Response:
        account, _ = self._who(request)
        body = await self._body(request, AnimationQuote)
        await self._intake(account, body.input, persist=False)
        return self._quote_json(self._animation_price(body))

    async def quote_animation_export(self, request: web.Request) -> web.Response:
        account, _ = self._who(request)
        body = await self._body(request, AnimationExportQuote)
        price, _ = self._export_price(account, body)
        return self._quote_json(price)

    # -- creates -----------------------------------------------------------------------------

    async def create_video_generation(self, request: web.Request) -> web.StreamResponse:
        return await self._create(request, "video_generation", VideoGenerationCreate)

    async def create_animation(self, request: web.Request) -> web.StreamResponse:
        return await self._create(request, "animation", AnimationCreate)

    async def create_animation_export(self, request: web.Request) -> web.StreamResponse:
        return await self._create(request, "animation_export", AnimationExportCreate)

    async def _create(
        self, request: web.Request, kind: str, model: type[BaseModel]
    ) -> web.StreamResponse:
        account, key = self._who(request)
        idempotency_key = request.headers.get("Idempotency-Key", "")
        if not IDEMPOTENCY_KEY_MIN <= len(idempotency_key) <= IDEMPOTENCY_KEY_MAX:
            raise invalid(
                f"the Idempotency-Key header must be {IDEMPOTENCY_KEY_MIN} to "
                f"{IDEMPOTENCY_KEY_MAX} characters",
                "Idempotency-Key",
            )
        body = await self._body(request, model)
        canonical = json.dumps(body.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
        body_hash = hashlib.sha256(canonical.encode()).hexdigest()
        scope = f"{account.id}:create_{kind}:{key.id}:{idempotency_key}"
        record = self.state.idempotency.get(scope)
        if record is not None:
            if record.body_hash != body_hash:
                raise ApiError(
                    ErrorCode.IDEMPOTENCY_CONFLICT,
                    "this Idempotency-Key was used with a different body",
                    param="Idempotency-Key",
                )
            if record.state == "in_progress" or record.task_id is None:
                raise ApiError(
                    ErrorCode.IDEMPOTENCY_IN_PROGRESS,
                    "the original request is still being accepted; resend it",
                    param="Idempotency-Key",
                    retryable=True,
                    retry_after=1,
                )
            return self._task_response(self.state.tasks[record.task_id], status=202)
        record = IdempotencyRecord(scope, body_hash, "in_progress", iso(now()) or "")
        self.state.idempotency[scope] = record
        try:
            task = await self._accept(account, kind, body)
        except BaseException:
            self.state.idempotency.pop(scope, None)  # nothing was accepted: the key is free
            raise
        record.state, record.task_id = "done", task.id
        self.s.save()
        response = self._task_response(task, status=202)  # as accepted: queued, progress 0
        self.s.runner.kick(account.id)
        if self.s.faults.drop_create():
            if request.transport is not None:
                request.transport.abort()
            raise ConnectionResetError("fault: create response dropped after recording")
        return response

    async def _accept(self, account: Account, kind: str, body: Any) -> TaskRecord:
        files: dict[str, Any] = {}
        normalized = body.model_dump(mode="json")
        if kind == "animation_export":
            price, _ = self._export_price(account, body)
        else:
            price = (
                self._animation_price(body) if kind == "animation" else self._generation_price(body)
            )
        limits = self.s.limits_of(account.id)
        if self.s.runner.queued_count(account.id) >= limits.queue:
            raise ApiError(
                ErrorCode.QUEUE_LIMIT_EXCEEDED,
                f"at most {limits.queue} queued tasks for this account",
                retryable=True,
                retry_after=self.s.retry_after_for(self.s.config.task_seconds),
                details={"queue": limits.queue},
            )
        if account.available < price.total:
            raise ApiError(
                ErrorCode.INSUFFICIENT_CREDITS,
                f"this costs {price.total} credits and {account.available} are "
                "available; nothing is purchased automatically",
                details={"required": price.total, "available": account.available},
            )
        if kind != "animation_export":
            intake = await self._intake(account, body.input, persist=True)
            files = intake.files
            normalized["input"] = intake.normalized
        if self.s.config.accept_seconds:
            await asyncio.sleep(self.s.config.accept_seconds)
        if account.available < price.total:  # another create spent it meanwhile
            raise ApiError(
                ErrorCode.INSUFFICIENT_CREDITS,
                "not enough credits",
                details={"required": price.total, "available": account.available},
            )
        task = TaskRecord(
            id=str(uuid.uuid4()),
            account_id=account.id,
            object=KINDS[kind],
            seq=self.state.next_seq(),
            created_at=iso(now()) or "",
            normalized_input=normalized,
            metadata=dict(body.metadata),
            price_video=price.video,
            price_export=price.export,
            held=price.total,
            inputs=files,
        )
        account.available -= price.total
        self.state.tasks[task.id] = task
        return task

    # -- reads, lists, cancels -----------------------------------------------------------------

    def _getter(self, kind: str) -> Handler:
        name = "animation_id" if kind == "animation" else "job_id"

        async def get(request: web.Request) -> web.StreamResponse:
            return self._task_response(self._owned_task(request, kind, name))

        return get

    def _canceller(self, kind: str) -> Handler:
        name = "animation_id" if kind == "animation" else "job_id"

        async def cancel(request: web.Request) -> web.StreamResponse:
            task = self._owned_task(request, kind, name)
            self.s.runner.request_cancel(task)
            return self._task_response(task)

        return cancel

    def _lister(self, kind: str) -> Handler:
        async def list_tasks(request: web.Request) -> web.StreamResponse:
            account, _ = self._who(request)
            raw_limit = request.query.get("limit", "20")
            if not raw_limit.isdigit() or not 1 <= int(raw_limit) <= 100:
                raise invalid("limit must be an integer from 1 to 100", "limit")
            limit = int(raw_limit)
            before = self._read_cursor(request.query.get("cursor"), kind)
            tasks = sorted(
                (
                    t
                    for t in self.state.tasks.values()
                    if t.account_id == account.id
                    and t.object == kind
                    and (before is None or t.seq < before)
                ),
                key=lambda t: -t.seq,
            )
            page = tasks[:limit]
            cursor = self._make_cursor(page[-1].seq, kind) if len(tasks) > limit else None
            return web.json_response(
                {
                    "object": "list",
                    "data": [self._task_json(t) for t in page],
                    "next_cursor": cursor,
                }
            )

        return list_tasks

    def _cursor_signature(self, seq: int, kind: str) -> str:
        message = f"cursor:{kind}:{seq}".encode()
        return hmac.new(self.state.secret.encode(), message, hashlib.sha256).hexdigest()[:16]

    def _make_cursor(self, seq: int, kind: str) -> str:
        raw = f"{seq}.{self._cursor_signature(seq, kind)}".encode()
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    def _read_cursor(self, cursor: str | None, kind: str) -> int | None:
        if cursor is None or cursor in ("", "null"):
            return None
        try:
            raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
            seq_text, signature = raw.split(".", 1)
            seq = int(seq_text)
        except (ValueError, UnicodeDecodeError) as exc:
            raise invalid("cursor is not one this service issued", "cursor") from exc
        if not hmac.compare_digest(signature, self._cursor_signature(seq, kind)):
            raise invalid("cursor is not one this service issued", "cursor")
        return seq

    # -- assets --------------------------------------------------------------------------------

    async def get_asset(self, request: web.Request) -> web.Response:
        account, _ = self._who(request)
        asset = self._owned_asset(account, self._path_id(request, "asset_id"))
        return web.json_response(self._asset_json(asset))

    async def download_asset(self, request: web.Request) -> web.StreamResponse:
        if "Authorization" in request.headers:
            raise invalid("download URLs are signed; send no Authorization header", "Authorization")
        asset = self.state.assets.get(request.match_info["asset_id"])
        if asset is None or not self.s.storage.verify(
            asset.id, request.query.get("expires"), request.query.get("signature"), "api"
        ):
            raise not_found("signed asset (signature invalid or expired)")
        return web.Response(
            status=302,
            headers={"Location": self.s.storage.storage_url(asset), "Cache-Control": "no-store"},
        )

    async def preview_asset(self, request: web.Request) -> web.Response:
        account, _ = self._who(request)
        asset = self._owned_asset(account, self._path_id(request, "asset_id"))
        body = await self._body(request, PreviewRequest)
        if asset.media is None or not asset.mime_type.startswith("video/"):
            raise invalid("previews are made of video assets", "asset_id")
        end = float(asset.media.get("duration_seconds") or 0)
        late = [t for t in body.timestamps_seconds if t >= end]
        if late:
            raise invalid(
                f"timestamp {late[0]:g} s is at or past the end ({end:.3f} s)", "timestamps_seconds"
            )
        cache_key = f"{asset.id}:{body.max_frame_size}:{json.dumps(body.timestamps_seconds)}"
        preview = next((a for a in self.state.assets.values() if a.preview_key == cache_key), None)
        if preview is None:
            path = self.s.storage.new_path(".png")
            loop = asyncio.get_running_loop()
            sheet = await loop.run_in_executor(
                self.s.pool,
                build_contact_sheet,
                Path(asset.path),
                path,
                list(body.timestamps_seconds),
                body.max_frame_size,
            )
            preview = AssetRecord(
                id=str(uuid.uuid4()),
                account_id=account.id,
                format="video_preview",
                mime_type="image/png",
                byte_size=path.stat().st_size,
                created_at=iso(now()) or "",
                path=str(path),
                preview_key=cache_key,
                preview={
                    "width": sheet.width,
                    "height": sheet.height,
                    "cells": [
                        {
                            "index": c.index,
                            "rect": {"x": c.x, "y": c.y, "width": c.width, "height": c.height},
                            "requested_time_seconds": c.requested_time,
                            "source_time_seconds": c.source_time,
                        }
                        for c in sheet.cells
                    ],
                },
            )
            self.state.assets[preview.id] = preview
            self.s.save()
        assert preview.preview is not None
        return web.json_response(
            {
                "object": "video_preview",
                "source_video_asset_id": asset.id,
                "width": preview.preview["width"],
                "height": preview.preview["height"],
                "image": self._asset_json(preview),
                "cells": preview.preview["cells"],
            }
        )


async def _fetch_image(url: str, param: str) -> CheckedImage:
    """Fetch a URL input as the service does: public addresses only, redirects checked,
    no cookies, bounded size."""
    current = url
    timeout = aiohttp.ClientTimeout(total=URL_FETCH_TIMEOUT)
    async with aiohttp.ClientSession(
        timeout=timeout, cookie_jar=aiohttp.DummyCookieJar()
    ) as session:
        for _ in range(4):
            await _check_resolves_public(current, param)
            try:
                async with session.get(current, allow_redirects=False) as response:
                    if response.status in (301, 302, 303, 307, 308):
                        target = str(response.url.join(URL(response.headers.get("Location", ""))))
                        try:
                            check_image_url_shape(target)
                        except ValueError as exc:
                            raise invalid(
                                f"the URL redirects somewhere not allowed: {exc}", param
                            ) from exc
                        current = target
                        continue
                    if response.status != 200:
                        raise ApiError(
                            ErrorCode.INVALID_IMAGE,
                            f"fetching the URL gave HTTP {response.status}",
                            param=param,
                        )
                    data = await response.content.read(MAX_UPLOAD_BYTES + 1)
            except (aiohttp.ClientError, TimeoutError) as exc:
                raise ApiError(
                    ErrorCode.INVALID_IMAGE, "the URL could not be fetched", param=param
                ) from exc
            if len(data) > MAX_UPLOAD_BYTES:
                raise ApiError(
                    ErrorCode.PAYLOAD_TOO_LARGE, "the image at the URL is too large", param=param
                )
            return check_image(data, param)
    raise invalid("the URL redirects too many times", param)


async def _check_resolves_public(url: str, param: str) -> None:
    host = urlsplit(url).hostname or ""
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(host, 443, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise ApiError(
            ErrorCode.INVALID_IMAGE, f"the URL's host {host!r} does not resolve", param=param
        ) from exc
    for info in infos:
        if is_blocked_address(ipaddress.ip_address(info[4][0])):
            raise invalid("the URL resolves to a private, loopback or link-local address", param)
