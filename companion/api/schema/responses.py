"""Resources of spec part 2: tasks, credits, assets, files, quotes, account, previews."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any
from uuid import UUID

from pydantic import Field

from companion.api.schema.base import ResponseModel


class TaskStatus(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    CANCELLING = "cancelling"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"


TERMINAL_STATUSES = frozenset({TaskStatus.SUCCEEDED, TaskStatus.FAILED, TaskStatus.CANCELLED})


class TaskObject(StrEnum):
    ANIMATION = "animation"
    VIDEO_GENERATION = "video_generation"
    ANIMATION_EXPORT = "animation_export"


class CreditStatus(StrEnum):
    HELD = "held"
    CHARGED = "charged"
    RELEASED = "released"
    REFUNDED = "refunded"
    MANAGED = "managed"


class MediaResponse(ResponseModel):
    duration_seconds: float | None = None
    fps: float | None = None
    frame_count: int | None = None
    height: int | None = None
    width: int | None = None


class Asset(ResponseModel):
    object: str = "asset"
    id: UUID
    format: str
    mime_type: str
    byte_size: int
    created_at: datetime
    # A signed URL is a bearer secret: keep it out of reprs and therefore out of logs.
    download_url: str = Field(repr=False)
    download_expires_at: datetime
    media: MediaResponse | None = None


class CreditUsage(ResponseModel):
    quoted: int
    held: int
    charged: int
    refunded: int = 0
    released: int = 0
    status: CreditStatus | str | None = None


class TaskError(ResponseModel):
    code: str
    message: str
    retryable: bool = False


class Task(ResponseModel):
    id: UUID
    object: TaskObject | str
    status: TaskStatus | str
    stage: str
    progress: float
    created_at: datetime
    started_at: datetime | None = None
    finished_at: datetime | None = None
    credits: CreditUsage
    error: TaskError | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    normalized_input: dict[str, Any] = Field(default_factory=dict)
    outputs: list[Asset] = Field(default_factory=list)

    @property
    def is_terminal(self) -> bool:
        return self.status in TERMINAL_STATUSES

    def outputs_of(self, fmt: str) -> list[Asset]:
        """Outputs have no order (spec 2.1): always select by format."""
        return [asset for asset in self.outputs if asset.format == fmt]


class TaskList(ResponseModel):
    object: str = "list"
    data: list[Task]
    next_cursor: str | None = None


class FileResponse(ResponseModel):
    object: str = "file"
    id: UUID
    mime_type: str
    width: int
    height: int
    byte_size: int
    sha256: str
    created_at: datetime


class QuoteResponse(ResponseModel):
    object: str = "quote"
    credits: int
    breakdown: dict[str, Any] = Field(default_factory=dict)


class AccountAPIKey(ResponseModel):
    id: UUID
    scopes: list[str]


class AccountLimits(ResponseModel):
    concurrency: int
    create_per_minute: int
    other_per_minute: int
    queue: int


class AccessTier(StrEnum):
    REGISTERED = "registered"
    BASIC = "basic"
    EXPERT = "expert"
    ULTRA = "ultra"


class AccountPlan(ResponseModel):
    code: AccessTier | str
    cancel_at_period_end: bool = False
    current_period_end: datetime | None = None


class AccountResponse(ResponseModel):
    """The spec's service closes this object; we stay tolerant like every response."""

    object: str = "account"
    id: UUID
    api_key: AccountAPIKey
    limits: AccountLimits
    plan: AccountPlan


class CreditsBalanceResponse(ResponseModel):
    object: str = "credit_balance"
    available: int


class PreviewRect(ResponseModel):
    x: int
    y: int
    width: int
    height: int


class PreviewCell(ResponseModel):
    index: int
    rect: PreviewRect
    requested_time_seconds: float
    source_time_seconds: float


class VideoPreviewResponse(ResponseModel):
    object: str = "video_preview"
    source_video_asset_id: UUID
    width: int
    height: int
    image: Asset
    cells: list[PreviewCell]
