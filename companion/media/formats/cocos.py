"""Cocos Creator: a cocos2d-x plist (format 3) beside each sheet page; Creator writes
its own .meta on import. A manifest gives the frame order and fps for the clip."""

from __future__ import annotations

import plistlib
from pathlib import Path
from typing import Any

from companion.media.formats.common import Animation, SheetPage, write_zip
from companion.media.formats.manifest import animation_manifest


def sheet_plist(page: SheetPage) -> bytes:
    frames: dict[str, Any] = {}
    for rect in page.frames:
        size = f"{{{rect.width},{rect.height}}}"
        source_w, source_h = rect.source_size
        # cocos2d measures a trimmed frame's offset from the whole frame's centre, y up.
        offset_x = rect.offset_x + rect.width / 2 - source_w / 2
        offset_y = source_h / 2 - rect.offset_y - rect.height / 2
        frames[f"{rect.name}.png"] = {
            "aliases": [],
            "spriteOffset": f"{{{offset_x:g},{offset_y:g}}}",
            "spriteSize": size,
            "spriteSourceSize": f"{{{source_w},{source_h}}}",
            "textureRect": f"{{{{{rect.x},{rect.y}}},{size}}}",
            "textureRotated": False,
        }
    document = {
        "frames": frames,
        "metadata": {
            "format": 3,
            "pixelFormat": "RGBA8888",
            "premultiplyAlpha": False,
            "realTextureFileName": page.path.name,
            "size": f"{{{page.width},{page.height}}}",
            "textureFileName": page.path.name,
        },
    }
    return plistlib.dumps(document, fmt=plistlib.FMT_XML, sort_keys=False)


def write_cocos_pack(animation: Animation, folder: Path) -> Path:
    members: list[tuple[str, bytes | Path]] = []
    for page in animation.pages:
        members.append((page.path.name, page.path))
        members.append((page.path.with_suffix(".plist").name, sheet_plist(page)))
    members.append((f"{animation.name}_animation.json", animation_manifest(animation)))
    path = folder / f"{animation.name}_cocos.zip"
    write_zip(path, members)
    return path
