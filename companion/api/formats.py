"""The thirteen export formats (spec 2.8) and what each one is: the one table that the
schema's enum and rules, the media engine's catalog, the sandbox and the command line's
value lists read.

Plain data, no pydantic: `companion --help` loads it to list the formats."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Literal


class ExportFormat(StrEnum):
    CLIP_VIDEO = "clip_video"
    WEBM_ALPHA = "webm_alpha"
    PRORES_4444 = "prores_4444"
    GIF = "gif"
    FRAMES_ZIP = "frames_zip"
    SPRITESHEET = "spritesheet"
    SPRITESHEET_JSON = "spritesheet_json"
    UNITY_META = "unity_meta"
    UNITY_PACK = "unity_pack"
    GODOT_PACK = "godot_pack"
    UNREAL_PAPER2D_PACK = "unreal_paper2d_pack"
    COCOS_CREATOR_PACK = "cocos_creator_pack"
    CONSTRUCT3_PACK = "construct3_pack"


@dataclass(frozen=True)
class Format:
    """mime_type: the output's (spec 2.8); suffix: the ending of its file name, for a
    local export and a downloaded output alike; sheet: drawn from the sprite sheet's
    pages; pack: an engine pack; alpha: whether its pixels carry alpha ("never": the
    H.264 clip and metadata; "required": it exists for its alpha channel and needs an
    alpha_key source); texture: the format a metadata format describes, useless without
    it."""

    mime_type: str
    suffix: str
    sheet: bool = False
    pack: bool = False
    alpha: Literal["never", "capable", "required"] = "capable"
    texture: ExportFormat | None = None


F = ExportFormat
TABLE: dict[ExportFormat, Format] = {
    F.CLIP_VIDEO: Format("video/mp4", ".mp4", alpha="never"),
    F.WEBM_ALPHA: Format("video/webm", ".webm", alpha="required"),
    F.PRORES_4444: Format("video/quicktime", ".mov", alpha="required"),
    F.GIF: Format("image/gif", ".gif"),
    F.FRAMES_ZIP: Format("application/zip", "_frames.zip"),
    F.SPRITESHEET: Format("image/png", ".png", sheet=True),
    F.SPRITESHEET_JSON: Format(
        "application/json", ".json", sheet=True, alpha="never", texture=F.SPRITESHEET
    ),
    F.UNITY_META: Format(
        "text/yaml", ".png.meta", sheet=True, alpha="never", texture=F.SPRITESHEET
    ),
    F.UNITY_PACK: Format("application/gzip", ".unitypackage", sheet=True, pack=True),
    F.GODOT_PACK: Format("application/zip", "_godot.zip", sheet=True, pack=True),
    F.UNREAL_PAPER2D_PACK: Format("application/zip", "_paper2d.zip", sheet=True, pack=True),
    F.COCOS_CREATOR_PACK: Format("application/zip", "_cocos.zip", sheet=True, pack=True),
    # Construct 3 imports an animation as numbered frames: a sequence, not a sheet.
    F.CONSTRUCT3_PACK: Format("application/zip", "_construct3.zip", pack=True),
}
del F

FORMAT_NAMES: tuple[str, ...] = tuple(f.value for f in ExportFormat)
METADATA_TEXTURE: dict[ExportFormat, ExportFormat] = {
    f: row.texture for f, row in TABLE.items() if row.texture is not None
}
ALPHA_REQUIRED_FORMATS: frozenset[ExportFormat] = frozenset(
    f for f, row in TABLE.items() if row.alpha == "required"
)
ALPHA_CAPABLE_FORMATS: frozenset[ExportFormat] = frozenset(
    f for f, row in TABLE.items() if row.alpha != "never"
)
ENGINE_PACKS: frozenset[ExportFormat] = frozenset(f for f, row in TABLE.items() if row.pack)
