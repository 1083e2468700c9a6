"""What the operations share: who is asking, the JSON body as its model, ids in the path,
an account's own tasks and assets, and the JSON form of a task, an asset and a file."""

from __future__ import annotations

import json
import uuid
from typing import Any, TypeVar

from aiohttp import web
from pydantic import BaseModel, ValidationError

from companion.api.schema import ErrorCode
from companion.api.schema.base import first_error
from companion.sandbox.app import ACCOUNT, KEY, SandboxService
from companion.sandbox.errors import ApiError, invalid, not_found
from companion.sandbox.state import Account, ApiKey, AssetRecord, FileRecord, TaskRecord, iso
from companion.sandbox.tasks import outputs as task_outputs

Body = TypeVar("Body", bound=BaseModel)


def who(request: web.Request) -> tuple[Account, ApiKey]:
    return request[ACCOUNT], request[KEY]


async def read_body(request: web.Request, model: type[Body]) -> Body:
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


def path_id(request: web.Request, name: str) -> str:
    value = request.match_info[name]
    try:
        return str(uuid.UUID(value))
    except ValueError as exc:
        raise invalid(f"{name} must be a UUID", name) from exc


def file_json(record: FileRecord) -> dict[str, Any]:
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


class Views:
    def __init__(self, service: SandboxService) -> None:
        self.s = service
        self.state = service.state

    def asset_json(self, asset: AssetRecord) -> dict[str, Any]:
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

    def task_json(self, task: TaskRecord) -> dict[str, Any]:
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
            "outputs": [
                self.asset_json(self.state.assets[i])
                for i in task_outputs.shown_order(self.s.face, task.output_ids)
            ],
        }

    def task_response(self, task: TaskRecord, status: int = 200) -> web.Response:
        retry = self.s.retry_after_for(self.s.runner.remaining_seconds(task))
        return web.json_response(
            self.task_json(task), status=status, headers={"Retry-After": str(retry)}
        )

    def owned_task(self, request: web.Request, kind: str, name: str) -> TaskRecord:
        account, _ = who(request)
        task = self.state.tasks.get(path_id(request, name))
        if task is None or task.account_id != account.id or task.object != kind:
            raise not_found("task")
        return task

    def owned_asset(self, account: Account, asset_id: str, param: str | None = None) -> AssetRecord:
        asset = self.state.assets.get(asset_id)
        if asset is None or asset.account_id != account.id:
            error = not_found("asset")
            error.param = param
            raise error
        return asset
