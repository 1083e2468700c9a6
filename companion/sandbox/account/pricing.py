"""The sandbox's price table. A quote and the hold at create use the same functions on
the same normalised body, so a quote always equals the price at create.

| item | credits |
|---|---|
| video generation | 2 per started second of video (default 3 s), at least 4 |
| resolution 720p | x1.5 (rounded up); 1080p x2 |
| last frame | +2 |
| each reference image | +1 |
| alpha_key transparency | +2 |
| export | 1 + 1 per started 24 frames |
| each engine pack or alpha video format | +1 |
| one-click animation | video generation + export |
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from companion.api.formats import ALPHA_REQUIRED_FORMATS, ENGINE_PACKS
from companion.api.schema import ExportOptions, VideoOptions

DEFAULT_VIDEO_SECONDS = 3.0
# Formats that exist for their alpha channel and the engine packs cost more.
PREMIUM_FORMATS = ALPHA_REQUIRED_FORMATS | ENGINE_PACKS


@dataclass
class Price:
    video: int = 0
    export: int = 0
    items: list[dict[str, Any]] = field(default_factory=list)

    @property
    def total(self) -> int:
        return self.video + self.export

    def breakdown(self) -> dict[str, Any]:
        return {
            "video_generation": self.video,
            "animation_export": self.export,
            "items": self.items,
            "currency": "credits",
        }


def video_price(video: VideoOptions, has_last_frame: bool, reference_images: int) -> Price:
    seconds = video.duration_seconds or DEFAULT_VIDEO_SECONDS
    base = max(4, 2 * math.ceil(seconds - 1e-9))
    items: list[dict[str, Any]] = [{"item": "video_seconds", "seconds": seconds, "credits": base}]
    factor = {"720p": 1.5, "1080p": 2.0}.get(video.resolution or "", 1.0)
    amount = math.ceil(base * factor)
    if factor != 1.0:
        items.append({"item": "resolution", "value": video.resolution, "factor": factor})
    if has_last_frame:
        amount += 2
        items.append({"item": "last_frame", "credits": 2})
    if reference_images:
        amount += reference_images
        items.append(
            {"item": "reference_images", "count": reference_images, "credits": reference_images}
        )
    if video.transparency is not None and video.transparency.mode == "alpha_key":
        amount += 2
        items.append({"item": "alpha_key", "credits": 2})
    return Price(video=amount, items=items)


def export_price(options: ExportOptions, frames: int) -> Price:
    base = 1 + math.ceil(frames / 24)
    premium = sum(1 for f in options.formats if f in PREMIUM_FORMATS)
    items: list[dict[str, Any]] = [{"item": "frames", "count": frames, "credits": base}]
    if premium:
        items.append({"item": "premium_formats", "count": premium, "credits": premium})
    return Price(export=base + premium, items=items)


def frames_of(options: ExportOptions, selection_seconds: float) -> int:
    if options.fps is not None:
        return max(1, math.ceil(selection_seconds * options.fps - 1e-6))
    return options.frame_count or 24
