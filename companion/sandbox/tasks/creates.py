"""Creates, as the service takes them: an Idempotency-Key scoped to the account, the
operation and the key, the same body answered with the same task (another body refused,
one still being accepted asked again), the price held before the task exists, the queue
limit, and the images persisted before the create is accepted."""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import uuid
from datetime import datetime
from typing import Any

from aiohttp import web
from pydantic import BaseModel

from companion.api.schema import ErrorCode
from companion.api.schema.requests import IDEMPOTENCY_KEY_MAX, IDEMPOTENCY_KEY_MIN
from companion.sandbox.account.quoting import animation_price, export_price_of, generation_price
from companion.sandbox.app import SandboxService
from companion.sandbox.errors import ApiError, invalid
from companion.sandbox.inputs.intake import Images
from companion.sandbox.state import Account, IdempotencyRecord, TaskRecord, iso, now
from companion.sandbox.views import Views, read_body, who


class Creates:
    def __init__(self, service: SandboxService, views: Views, images: Images) -> None:
        self.s = service
        self.state = service.state
        self.views = views
        self.images = images

    async def create(
        self, request: web.Request, kind: str, model: type[BaseModel]
    ) -> web.StreamResponse:
        account, key = who(request)
        idempotency_key = request.headers.get("Idempotency-Key", "")
        if not IDEMPOTENCY_KEY_MIN <= len(idempotency_key) <= IDEMPOTENCY_KEY_MAX:
            raise invalid(
                f"the Idempotency-Key header must be {IDEMPOTENCY_KEY_MIN} to "
                f"{IDEMPOTENCY_KEY_MAX} characters",
                "Idempotency-Key",
            )
        body = await read_body(request, model)
        dumped = body.model_dump(mode="json")  # hashed here, kept as the task's input
        canonical = json.dumps(dumped, sort_keys=True, separators=(",", ":"))
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
                raise _still_being_accepted()
            original = self.state.tasks[record.task_id]
            self._still_accepting(original)
            return self.views.task_response(original, status=202)
        record = IdempotencyRecord(scope, body_hash, "in_progress", iso(now()) or "")
        self.state.idempotency[scope] = record
        try:
            task = await self._accept(account, kind, body, dumped)
        except BaseException:
            self.state.idempotency.pop(scope, None)  # nothing was accepted: the key is free
            raise
        record.state, record.task_id = "done", task.id
        self.s.save()
        response = self.views.task_response(task, status=202)  # as accepted: queued, progress 0
        self.s.runner.kick(account.id)
        if self.s.faults.drop_create():
            if request.transport is not None:
                request.transport.abort()
            raise ConnectionResetError("fault: create response dropped after recording")
        return response

    def _still_accepting(self, task: TaskRecord) -> None:
        """Face.in_progress_seconds: a resend this soon after its original was accepted is
        told the original is still being accepted (spec 7 gives that answer no bound)."""
        window = self.s.face.in_progress_seconds
        if not window:
            return
        accepted = datetime.fromisoformat(task.created_at)
        if (now() - accepted).total_seconds() < window:
            raise _still_being_accepted()

    async def _accept(
        self, account: Account, kind: str, body: Any, normalized: dict[str, Any]
    ) -> TaskRecord:
        files: dict[str, Any] = {}
        if kind == "animation_export":
            price = export_price_of(self.views, account, body)
        else:
            priced = animation_price if kind == "animation" else generation_price
            price = priced(body, self.s.face)
        rise = self.s.face.create_price_rise
        if rise:  # 4.4: creation recalculates the price; the charge follows the hold
            # Up by at least one credit, or down by at least one (never to nothing).
            change = max(1, math.ceil(price.total * abs(rise)))
            if rise < 0:
                change = -min(change, price.total - 1)
            if kind == "animation_export":
                price.export += change
            else:
                price.video += change
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
            intake = await self.images.take(account, body.input, persist=True)
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
            object=kind,
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


def _still_being_accepted() -> ApiError:
    return ApiError(
        ErrorCode.IDEMPOTENCY_IN_PROGRESS,
        "the original request is still being accepted; resend it",
        param="Idempotency-Key",
        retryable=True,
        retry_after=1,
    )
