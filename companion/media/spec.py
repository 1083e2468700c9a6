"""What an export is asked for (ExportSpec, checked by check_spec) and what it made."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from companion.media.catalog import FORMATS, MIME_TYPES
from companion.media.errors import MediaError
from companion.media.formats.common import PIVOTS, RGBA
from companion.media.formats.sheet import MAX_SHEET_SIDE, MAX_SPACING
from companion.media.formats.unity import DEFAULT_UNITY_DIR
from companion.media.names import clean_name, is_clean_name
from companion.media.pixel.art import PixelArt
from companion.media.source.sampling import SamplePlan
from companion.media.source.video_info import VideoInfo


@dataclass(frozen=True)
class ExportSpec:
    formats: tuple[str, ...]
    frame_count: int | None = 24
    fps: float | None = None
    width: int = 512
    height: int = 512
    start: float = 0.0
    duration: float | None = None
    key_color: tuple[int, int, int] | None = None
    pivot: str = "bottom_center"
    pixels_per_unit: float = 100.0
    pixel_art: bool = False
    # With pixel_art: the art's palette, grid and place, read from its picture; each
    # frame is brought to them (None: nearest-neighbour scaling alone).
    pixel: PixelArt | None = None
    name: str = "animation"
    godot_res_dir: str | None = None
    unity_dir: str = DEFAULT_UNITY_DIR
    # Gaps laid out by the companion itself; the service's options carry none.
    padding: int = 0
    extrude: int = 0
    max_sheet_side: int = MAX_SHEET_SIDE  # smaller for devices with small texture limits
    # Local finishing the service's options do not carry; all off here, so an export
    # made without them stays byte for byte what it was. The doors turn them on.
    trim: bool = False  # sheets: frames cut to their content, position kept, once each
    in_place: bool = False  # frames registered on the character's core (shake removed)
    loop: bool = False  # the selection searched for the seamless loop in the clip


@dataclass(frozen=True)
class ExportOutput:
    format: str
    path: Path

    @property
    def mime_type(self) -> str:
        return MIME_TYPES[self.format]


@dataclass
class ExportResult:
    outputs: list[ExportOutput]
    plan: SamplePlan
    source: VideoInfo
    warnings: list[str] = field(default_factory=list)
    # With loop: the exported frames' last into their first, in median steps between
    # neighbouring frames (1 flows like any step).
    seam: float | None = None

    def paths(self, fmt: str) -> list[Path]:
        return [o.path for o in self.outputs if o.format == fmt]

    def loop_summary(self) -> dict[str, float] | None:
        """With loop: the span chosen (seconds) and its seam in median steps."""
        if self.seam is None:
            return None
        return {
            "start": round(self.plan.start, 6),
            "end": round(self.plan.end, 6),
            "seam": round(self.seam, 4),
        }


class FrameSink(Protocol):
    def add(self, index: int, frame: RGBA) -> None: ...


Progress = Callable[[float], None]


def check_spec(spec: ExportSpec) -> None:
    unknown = [f for f in spec.formats if f not in FORMATS]
    if unknown:
        raise MediaError(f"unknown format {unknown[0]!r}; choose from {', '.join(FORMATS)}")
    if not spec.formats:
        raise MediaError("no output format given")
    if not is_clean_name(spec.name):
        raise MediaError(
            f"name {spec.name!r} holds characters a file system or engine refuses; "
            f"use {clean_name(spec.name)!r}"
        )
    if spec.pivot not in PIVOTS:
        raise MediaError(f"unknown pivot {spec.pivot!r}; choose from {', '.join(PIVOTS)}")
    if spec.width < 1 or spec.height < 1:
        raise MediaError("output width and height must be positive")
    for field_name, value in (("padding", spec.padding), ("extrude", spec.extrude)):
        if not 0 <= value <= MAX_SPACING:
            raise MediaError(f"{field_name} must be 0 to {MAX_SPACING} pixels, not {value}")
    slot = max(spec.width, spec.height) + 2 * spec.extrude + 2 * spec.padding
    if not slot <= spec.max_sheet_side <= MAX_SHEET_SIDE:
        raise MediaError(
            f"max sheet side must be {slot} to {MAX_SHEET_SIDE} pixels (one frame with its "
            f"padding and extrusion must fit), not {spec.max_sheet_side}"
        )
