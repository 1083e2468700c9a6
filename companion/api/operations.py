"""The 22 operations of spec part 4, as data.

One table serves the OpenAPI generator now and the client and sandbox routes later, so
a path, scope or status is written down once."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel

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

READ = "animations:read"
WRITE = "animations:write"

ERRORS_READ = (400, 401, 403, 404, 429, 500, 503)
ERRORS_QUOTE = (400, 401, 402, 403, 404, 413, 415, 422, 429, 500, 503)
ERRORS_CREATE = (400, 401, 402, 403, 404, 409, 413, 415, 422, 429, 500, 503)
ERRORS_UPLOAD = (400, 401, 403, 404, 413, 415, 422, 429, 500, 503)


@dataclass(frozen=True)
class Operation:
    name: str
    method: str
    path: str
    scope: str | None
    success: int
    response: type[BaseModel] | None
    body: type[BaseModel] | None = None
    errors: tuple[int, ...] = ERRORS_READ
    idempotent_create: bool = False
    multipart_upload: bool = False
    paginated: bool = False
    summary: str = ""

    @property
    def is_create(self) -> bool:
        return self.idempotent_create


def _task_family(
    kind: str, plural: str, ident: str, create: type[BaseModel], quote: type[BaseModel]
) -> list[Operation]:
    base = f"/{plural}"
    return [
        Operation(
            f"quote_{kind}",
            "POST",
            f"{base}/quote",
            WRITE,
            200,
            QuoteResponse,
            quote,
            ERRORS_QUOTE,
            summary=f"Quote a {kind.replace('_', ' ')}",
        ),
        Operation(
            f"create_{kind}",
            "POST",
            base,
            WRITE,
            202,
            Task,
            create,
            ERRORS_CREATE,
            idempotent_create=True,
            summary=f"Create a {kind.replace('_', ' ')} task",
        ),
        Operation(
            f"list_{plural.replace('-', '_')}",
            "GET",
            base,
            READ,
            200,
            TaskList,
            paginated=True,
            summary=f"List {kind.replace('_', ' ')} tasks",
        ),
        Operation(
            f"get_{kind}",
            "GET",
            f"{base}/{{{ident}}}",
            READ,
            200,
            Task,
            summary=f"Read a {kind.replace('_', ' ')} task",
        ),
        Operation(
            f"cancel_{kind}",
            "POST",
            f"{base}/{{{ident}}}/cancel",
            WRITE,
            200,
            Task,
            summary=f"Cancel a {kind.replace('_', ' ')} task",
        ),
    ]


OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "get_account",
        "GET",
        "/account",
        READ,
        200,
        AccountResponse,
        summary="The authenticated account, tier, key identity and limits",
    ),
    Operation(
        "get_credit_balance",
        "GET",
        "/credits/balance",
        READ,
        200,
        CreditsBalanceResponse,
        summary="Available credits",
    ),
    Operation(
        "list_models",
        "GET",
        "/models",
        READ,
        200,
        ModelsResponse,
        summary="Live model capabilities",
    ),
    Operation(
        "upload_file",
        "POST",
        "/files",
        WRITE,
        201,
        FileResponse,
        errors=ERRORS_UPLOAD,
        multipart_upload=True,
        summary="Upload an image",
    ),
    *_task_family(
        "video_generation",
        "video-generations",
        "job_id",
        VideoGenerationCreate,
        VideoGenerationQuote,
    ),
    *_task_family(
        "animation_export",
        "animation-exports",
        "job_id",
        AnimationExportCreate,
        AnimationExportQuote,
    ),
    *_task_family("animation", "animations", "animation_id", AnimationCreate, AnimationQuote),
    Operation(
        "get_asset",
        "GET",
        "/assets/{asset_id}",
        READ,
        200,
        Asset,
        summary="An asset with a fresh signed download URL",
    ),
    Operation(
        "download_asset",
        "GET",
        "/assets/{asset_id}/content",
        None,
        200,
        None,
        errors=(400, 404),
        summary="Signed asset download (no Authorization header)",
    ),
    Operation(
        "preview_asset",
        "POST",
        "/assets/{asset_id}/preview",
        READ,
        200,
        VideoPreviewResponse,
        PreviewRequest,
        ERRORS_QUOTE,
        summary="Labelled contact sheet of a source video",
    ),
)

OPERATIONS_BY_NAME: dict[str, Operation] = {op.name: op for op in OPERATIONS}
