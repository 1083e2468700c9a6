"""Spritesheet JSON in the hash layout (TexturePacker/Aseprite/Phaser readers), one file
per page, with per-frame durations in ms, the fps and the animation's frame order."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from companion import __version__
from companion.media.formats.common import Animation, SheetPage, rounded_steps


def sheet_json(animation: Animation, page: SheetPage, related: list[str]) -> dict[str, Any]:
    pivot_x, pivot_y = animation.pivot_xy_down
    millis = rounded_steps(animation.durations, 0.001)
    frames: dict[str, Any] = {}
    for rect in page.frames:
        frames[f"{rect.name}.png"] = {
            "frame": {"x": rect.x, "y": rect.y, "w": rect.width, "h": rect.height},
            "rotated": False,
            "trimmed": False,
            "spriteSourceSize": {"x": 0, "y": 0, "w": rect.width, "h": rect.height},
            "sourceSize": {"w": rect.width, "h": rect.height},
            "pivot": {"x": pivot_x, "y": pivot_y},
            "duration": millis[rect.index],
        }
    meta: dict[str, Any] = {
        "app": "companion",
        "version": __version__,
        "image": page.path.name,
        "format": "RGBA8888",
        "size": {"w": page.width, "h": page.height},
        "scale": "1",
        "fps": animation.fps,
        "frameTags": [
            {"name": animation.name, "from": 0, "to": animation.count - 1, "direction": "forward"}
        ],
        "animations": {
            animation.name: [f"{animation.frame_name(i)}.png" for i in range(animation.count)]
        },
    }
    if related:
        meta["related_multi_packs"] = related
    return {"frames": frames, "meta": meta}


def write_sheet_json(animation: Animation, folder: Path) -> list[Path]:
    names = [page.path.with_suffix(".json").name for page in animation.pages]
    paths: list[Path] = []
    for page, own in zip(animation.pages, names, strict=True):
        related = [n for n in names if n != own]
        path = folder / own
        path.write_text(json.dumps(sheet_json(animation, page, related), indent=1) + "\n")
        paths.append(path)
    return paths
