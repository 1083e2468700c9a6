"""ExportOptions (spec 2.8), Selection (spec 2.9) and their rules."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import Field, PrivateAttr, field_validator, model_validator

from companion.api.formats import METADATA_TEXTURE, ExportFormat
from companion.api.schema.base import RequestModel, ResponseModel

DEFAULT_FRAME_COUNT = 24
MIN_OUTPUT_SIDE = 64
MAX_OUTPUT_SIDE = 1024
# Not the service's: the smallest frame the companion makes, scaled down after the
# download from the service's smallest (pixel-art sizes, 16 and 32 px).
LOCAL_MIN_SIDE = 16


class Pivot(StrEnum):
    """Sprite pivots. The spec shows only bottom_center; the other eight are the
    alignments every engine offers (Unity's SpriteAlignment without Custom)."""

    CENTER = "center"
    TOP_LEFT = "top_left"
    TOP_CENTER = "top_center"
    TOP_RIGHT = "top_right"
    LEFT_CENTER = "left_center"
    RIGHT_CENTER = "right_center"
    BOTTOM_LEFT = "bottom_left"
    BOTTOM_CENTER = "bottom_center"
    BOTTOM_RIGHT = "bottom_right"


class ExportTransparency(RequestModel):
    enabled: bool = False


class UnityOptions(RequestModel):
    pivot: Pivot = Pivot.BOTTOM_CENTER
    pixels_per_unit: float = Field(default=100, gt=0, le=10000)


class ExportOptions(RequestModel):
    """Normalised on validation: the frame count default, the per-mode default formats,
    duplicates removed and the legacy boolean `transparent` turned into its object."""

    fps: float | None = Field(default=None, gt=0, le=60)
    frame_count: int | None = Field(default=None, ge=1, le=240)
    output_formats: list[ExportFormat] | None = Field(default=None, min_length=1)
    output_width: int = Field(default=512, ge=MIN_OUTPUT_SIDE, le=MAX_OUTPUT_SIDE)
    output_height: int = Field(default=512, ge=MIN_OUTPUT_SIDE, le=MAX_OUTPUT_SIDE)
    transparent: ExportTransparency = Field(
        default_factory=ExportTransparency,
        description="Object form; a legacy boolean is accepted and normalised to it.",
    )
    unity: UnityOptions = Field(default_factory=UnityOptions)
    # Were output_formats given, or filled with the default below? A project's engine
    # fills them its own way (companion.jobs.ask.defaults) only when nobody chose them.
    _formats_given: bool = PrivateAttr(default=True)

    @field_validator("transparent", mode="before")
    @classmethod
    def _legacy_boolean(cls, value: Any) -> Any:
        if isinstance(value, bool):
            return {"enabled": value}
        return value

    @field_validator("output_formats")
    @classmethod
    def _deduplicate(cls, value: list[ExportFormat] | None) -> list[ExportFormat] | None:
        return None if value is None else list(dict.fromkeys(value))

    @model_validator(mode="after")
    def _rules(self) -> ExportOptions:
        if self.fps is not None and self.frame_count is not None:
            raise ValueError("fps and frame_count are mutually exclusive; give one of them")
        if self.fps is None and self.frame_count is None:
            self.frame_count = DEFAULT_FRAME_COUNT
        if self.output_formats is None:
            self._formats_given = False
            self.output_formats = (
                [ExportFormat.SPRITESHEET]
                if self.fps is None
                else [ExportFormat.SPRITESHEET, ExportFormat.SPRITESHEET_JSON]
            )
        formats = set(self.output_formats)
        for metadata, texture in METADATA_TEXTURE.items():
            if metadata in formats and texture not in formats:
                raise ValueError(f"output format {metadata.value} needs {texture.value}")
        if (
            self.fps is not None
            and not {
                ExportFormat.SPRITESHEET,
                ExportFormat.SPRITESHEET_JSON,
            }
            <= formats
        ):
            raise ValueError("fps sampling needs the spritesheet and spritesheet_json formats")
        return self

    @property
    def formats_given(self) -> bool:
        """False when output_formats were left out and hold only the default."""
        return self._formats_given

    @property
    def formats(self) -> list[ExportFormat]:
        """The normalised format list (never None after validation)."""
        return list(self.output_formats or [])


class Selection(RequestModel):
    """The source interval. `full` keeps the defaults; `range` sets start and duration."""

    mode: Literal["full", "range"] = "full"
    start_seconds: float = Field(default=0, ge=0)
    duration_seconds: float | None = Field(default=None, gt=0)

    @model_validator(mode="after")
    def _full_means_everything(self) -> Selection:
        if self.mode == "full" and (self.start_seconds != 0 or self.duration_seconds is not None):
            raise ValueError("selection mode 'full' takes no start_seconds or duration_seconds")
        return self


class ExportWarning(ResponseModel):
    code: str
    message: str
    details: dict[str, Any] = Field(default_factory=dict)
