"""The 22 operations of spec part 4, validated by the shared schema. What they share is
in views.py; image intake, quoting, creates (idempotency) and list cursors each have a
module of their own."""

from __future__ import annotations

import asyncio
import json
import uuid
from datetime import timedelta
from pathlib import Path

import aiohttp
from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError

from companion import media
from companion.api.schema import (
    AnimationCreate,
    AnimationExportCreate,
    AnimationExportQuote,
    AnimationQuote,
    PreviewRequest,
    VideoGenerationCreate,
    VideoGenerationQuote,
)
from companion.sandbox.account.pricing import video_price
from companion.sandbox.account.quoting import animation_price, export_price_of, quote_json
from companion.sandbox.app import Handler, SandboxService
from companion.sandbox.cursors import make_cursor, read_cursor
from companion.sandbox.errors import invalid, not_found
from companion.sandbox.inputs.images import check_image
from companion.sandbox.inputs.intake import Images, multipart_file
from companion.sandbox.models import check_video, listing
from companion.sandbox.state import AssetRecord, iso, now
from companion.sandbox.tasks.creates import Creates
from companion.sandbox.views import Views, file_json, path_id, read_body, who


class Handlers:
    def __init__(self, service: SandboxService) -> None:
        self.s = service
        self.state = service.state
        self.views = Views(service)
        self.images = Images(service)
        self.creates = Creates(service, self.views, self.images)

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

    # -- account, credits, models --------------------------------------------------------

    async def get_account(self, request: web.Request) -> web.Response:
        account, key = who(request)
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
        account, _ = who(request)
        return web.json_response({"object": "credit_balance", "available": account.available})

    async def list_models(self, request: web.Request) -> web.Response:
        return web.json_response(listing(self.s.face))

    # -- upload --------------------------------------------------------------------------

    async def upload_file(self, request: web.Request) -> web.Response:
        account, _ = who(request)
        if not request.content_type.startswith("multipart/"):
            raise invalid("upload the image as multipart/form-data in the field 'file'", "file")
        try:
            data = await multipart_file(request)
        except (ValueError, aiohttp.ClientError, HttpProcessingError, UnicodeDecodeError) as exc:
            raise invalid(f"the multipart body is malformed: {exc}", "file") from exc
        if data is None:
            raise invalid("the multipart body has no 'file' field", "file")
        checked = check_image(data, "file", max_side=self.s.face.max_image_side)
        record = self.images.store(account, checked, uploaded=True)
        self.s.save()
        return web.json_response(file_json(record), status=201)

    # -- quotes ------------------------------------------------------------------------------

    async def quote_video_generation(self, request: web.Request) -> web.Response:
        body = await read_body(request, VideoGenerationQuote)
        check_video(
            body.video,
            prompt="-",
            negative_prompt="",
            has_last_frame=body.has_last_frame,
            reference_images=body.reference_image_count,
            face=self.s.face,
        )
        return quote_json(video_price(body.video, body.has_last_frame, body.reference_image_count))

    async def quote_animation(self, request: web.Request) -> web.Response:
        account, _ = who(request)
        body = await read_body(request, AnimationQuote)
        await self.images.take(account, body.input, persist=False)
        return quote_json(animation_price(body, self.s.face))

    async def quote_animation_export(self, request: web.Request) -> web.Response:
        account, _ = who(request)
        body = await read_body(request, AnimationExportQuote)
        price = export_price_of(self.views, account, body)
        return quote_json(price)

    # -- creates -----------------------------------------------------------------------------

    async def create_video_generation(self, request: web.Request) -> web.StreamResponse:
        return await self.creates.create(request, "video_generation", VideoGenerationCreate)

    async def create_animation(self, request: web.Request) -> web.StreamResponse:
        return await self.creates.create(request, "animation", AnimationCreate)

    async def create_animation_export(self, request: web.Request) -> web.StreamResponse:
        return await self.creates.create(request, "animation_export", AnimationExportCreate)

    # -- reads, lists, cancels -----------------------------------------------------------------

    def _getter(self, kind: str) -> Handler:
        name = "animation_id" if kind == "animation" else "job_id"

        async def get(request: web.Request) -> web.StreamResponse:
            return self.views.task_response(self.views.owned_task(request, kind, name))

        return get

    def _canceller(self, kind: str) -> Handler:
        name = "animation_id" if kind == "animation" else "job_id"

        async def cancel(request: web.Request) -> web.StreamResponse:
            task = self.views.owned_task(request, kind, name)
            self.s.runner.request_cancel(task)
            return self.views.task_response(task)

        return cancel

    def _lister(self, kind: str) -> Handler:
        async def list_tasks(request: web.Request) -> web.StreamResponse:
            account, _ = who(request)
            raw_limit = request.query.get("limit", "20")
            if not raw_limit.isdigit() or not 1 <= int(raw_limit) <= 100:
                raise invalid("limit must be an integer from 1 to 100", "limit")
            # Face.page_cap: a page may hold fewer than `limit` (4.7: limit is a page size).
            limit = min(int(raw_limit), self.s.face.page_cap or 100)
            newest_first = self.s.face.lists_newest_first  # 2.2 gives no order
            secret = self.state.secret
            last = read_cursor(secret, request.query.get("cursor"), kind)
            tasks = sorted(
                (
                    t
                    for t in self.state.tasks.values()
                    if t.account_id == account.id
                    and t.object == kind
                    and (last is None or (t.seq < last if newest_first else t.seq > last))
                ),
                key=lambda t: -t.seq if newest_first else t.seq,
            )
            page = tasks[:limit]
            cursor = make_cursor(secret, page[-1].seq, kind) if len(tasks) > limit else None
            return web.json_response(
                {
                    "object": "list",
                    "data": [self.views.task_json(t) for t in page],
                    "next_cursor": cursor,
                }
            )

        return list_tasks

    # -- assets --------------------------------------------------------------------------------

    async def get_asset(self, request: web.Request) -> web.Response:
        account, _ = who(request)
        asset = self.views.owned_asset(account, path_id(request, "asset_id"))
        return web.json_response(self.views.asset_json(asset))

    async def download_asset(self, request: web.Request) -> web.StreamResponse:
        if "Authorization" in request.headers:
            raise invalid("download URLs are signed; send no Authorization header", "Authorization")
        asset = self.state.assets.get(request.match_info["asset_id"])
        if asset is None or not self.s.storage.verify(
            asset.id, request.query.get("expires"), request.query.get("signature"), "api"
        ):
            raise not_found("signed asset (signature invalid or expired)")
        refused = self.s.storage.refusal(asset.id)
        if refused is not None:
            return refused
        return web.Response(
            status=302,
            headers={"Location": self.s.storage.storage_url(asset), "Cache-Control": "no-store"},
        )

    async def preview_asset(self, request: web.Request) -> web.Response:
        account, _ = who(request)
        asset = self.views.owned_asset(account, path_id(request, "asset_id"))
        body = await read_body(request, PreviewRequest)
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
            source, timestamps = Path(asset.path), list(body.timestamps_seconds)
            # Looked up on the worker: the media code (NumPy, PyAV) loads there at the
            # first preview, never when the sandbox starts, and the loop never waits on it.
            sheet = await loop.run_in_executor(
                self.s.pool,
                lambda: media.build_contact_sheet(source, path, timestamps, body.max_frame_size),
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
                "image": self.views.asset_json(preview),
                "cells": preview.preview["cells"],
            }
        )
