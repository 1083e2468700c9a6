"""Request bodies of spec part 4: creates, quotes and the preview."""

from __future__ import annotations

import json
from uuid import UUID

from pydantic import Field, field_validator

from companion.api.schema.base import RequestModel
from companion.api.schema.export import ExportOptions, Selection
from companion.api.schema.images import MAX_REFERENCE_IMAGES, GenerationInput
from companion.api.schema.video import VideoOptions

MAX_PROMPT = 8000
MAX_NEGATIVE_PROMPT = 4000
MAX_METADATA_BYTES = 4096
IDEMPOTENCY_KEY_MIN = 8
IDEMPOTENCY_KEY_MAX = 200

MetadataValue = str | int | float | bool | None


def _check_metadata(value: dict[str, MetadataValue]) -> dict[str, MetadataValue]:
    size = len(json.dumps(value, separators=(",", ":")).encode())
    if size > MAX_METADATA_BYTES:
        raise ValueError(f"metadata is {size} bytes of JSON; at most {MAX_METADATA_BYTES}")
    return value


class VideoGenerationCreate(RequestModel):
    input: GenerationInput
    prompt: str = Field(default="", max_length=MAX_PROMPT)
    negative_prompt: str = Field(default="", max_length=MAX_NEGATIVE_PROMPT)
    video: VideoOptions = Field(default_factory=VideoOptions)
    metadata: dict[str, MetadataValue] = Field(default_factory=dict)

    _metadata = field_validator("metadata")(_check_metadata)


def one_click_export(export: ExportOptions) -> ExportOptions:
    """Spec 2.8: fps sampling is for independent exports only; a one-click animation
    takes a frame count over the video's duration."""
    if export.fps is not None:
        raise ValueError("export.fps is for animation exports only; use frame_count")
    return export


class AnimationCreate(VideoGenerationCreate):
    export: ExportOptions = Field(default_factory=ExportOptions)
    selection: Selection = Field(default_factory=Selection)

    _no_fps_sampling = field_validator("export")(one_click_export)


class AnimationExportCreate(RequestModel):
    source_video_asset_id: UUID
    export: ExportOptions = Field(default_factory=ExportOptions)
    selection: Selection = Field(default_factory=Selection)
    metadata: dict[str, MetadataValue] = Field(default_factory=dict)

    _metadata = field_validator("metadata")(_check_metadata)


class VideoGenerationQuote(RequestModel):
    has_last_frame: bool = False
    reference_image_count: int = Field(default=0, ge=0, le=MAX_REFERENCE_IMAGES)
    video: VideoOptions = Field(default_factory=VideoOptions)


class AnimationQuote(AnimationCreate):
    """Same body as animation creation (spec 4.4)."""


class AnimationExportQuote(AnimationExportCreate):
    """Same body as animation export creation (spec 4.4)."""


class PreviewRequest(RequestModel):
    timestamps_seconds: list[float] = Field(min_length=1, max_length=12)
    max_frame_size: int = Field(default=256, ge=32, le=512)

    @field_validator("timestamps_seconds")
    @classmethod
    def _non_negative(cls, value: list[float]) -> list[float]:
        if any(t < 0 for t in value):
            raise ValueError("timestamps must be at least 0")
        return value
