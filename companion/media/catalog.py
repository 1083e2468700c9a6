"""The thirteen export formats: their names, MIME types and file name endings."""

from __future__ import annotations

FORMATS: tuple[str, ...] = (
    "clip_video",
    "webm_alpha",
    "prores_4444",
    "gif",
    "frames_zip",
    "spritesheet",
    "spritesheet_json",
    "unity_meta",
    "unity_pack",
    "godot_pack",
    "unreal_paper2d_pack",
    "cocos_creator_pack",
    "construct3_pack",
)
SHEET_FORMATS = frozenset(
    {
        "spritesheet",
        "spritesheet_json",
        "unity_meta",
        "unity_pack",
        "godot_pack",
        "unreal_paper2d_pack",
        "cocos_creator_pack",
    }
)
MIME_TYPES: dict[str, str] = {
    "clip_video": "video/mp4",
    "webm_alpha": "video/webm",
    "prores_4444": "video/quicktime",
    "gif": "image/gif",
    "frames_zip": "application/zip",
    "spritesheet": "image/png",
    "spritesheet_json": "application/json",
    "unity_meta": "text/yaml",
    "unity_pack": "application/gzip",
    "godot_pack": "application/zip",
    "unreal_paper2d_pack": "application/zip",
    "cocos_creator_pack": "application/zip",
    "construct3_pack": "application/zip",
}
# File name endings per format, shared by local exports and downloaded outputs.
FILE_SUFFIX: dict[str, str] = {
    "clip_video": ".mp4",
    "webm_alpha": ".webm",
    "prores_4444": ".mov",
    "gif": ".gif",
    "frames_zip": "_frames.zip",
    "spritesheet": ".png",
    "spritesheet_json": ".json",
    "unity_meta": ".png.meta",
    "unity_pack": ".unitypackage",
    "godot_pack": "_godot.zip",
    "unreal_paper2d_pack": "_paper2d.zip",
    "cocos_creator_pack": "_cocos.zip",
    "construct3_pack": "_construct3.zip",
    "video_preview": "_preview.png",
}
