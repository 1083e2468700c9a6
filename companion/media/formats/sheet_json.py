"""Spritesheet JSON in the hash layout, one file per page, that its usual readers take as
written:

- TexturePacker JSON-hash readers (Phaser's `load.atlas`, Pixi's `Spritesheet`, Unreal's
  Paper2D importer): `frames` by key with `frame`, `rotated`, `trimmed`,
  `spriteSourceSize`, `sourceSize`, `pivot`, and `meta` with `app`, `image`, `size`,
  `scale`. Unreal warns about any `app` that does not start with TexturePacker's URL.
- Phaser 3's `anims.createFromAseprite`: it walks each `meta.frameTags` entry from `from`
  to `to` and looks every index up as `frames[String(i)]`, so frames are keyed by their
  index in the animation ("0", "1", ...) and carry their `duration` in ms.
- Pixi's `Spritesheet`: it reads a top-level `animations` {name: [frame keys]}.

A multi-page sheet lists the other pages in `meta.related_multi_packs` (Pixi loads them
with the first). Each page's `animations` holds its own frames under the animation's name
(concatenate the pages in order); each page's frame tag is named after the page's file
stem, because Phaser keeps only the first animation made under a key."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion import __version__
from companion.media.formats.common import Animation, FrameRect, SheetPage, rounded_steps

# Unreal's Paper2D importer recognises exporters by this prefix (and Adobe Flash's).
APP = "http://www.codeandweb.com/texturepacker (hash layout written by companion)"

FrameKey = Callable[[FrameRect], str]


def index_key(rect: FrameRect) -> str:
    return str(rect.index)


def name_key(rect: FrameRect) -> str:
    return rect.name


def sheet_json(
    animation: Animation, page: SheetPage, related: list[str], key: FrameKey = index_key
) -> dict[str, Any]:
    pivot_x, pivot_y = animation.pivot_xy_down
    millis = rounded_steps(animation.durations, 0.001)
    frames: dict[str, Any] = {}
    for rect in page.frames:
        source_w, source_h = rect.source_size
        frames[key(rect)] = {
            "frame": {"x": rect.x, "y": rect.y, "w": rect.width, "h": rect.height},
            "rotated": False,
            "trimmed": rect.trimmed,
            # Where the stored pixels go in the whole frame (TexturePacker's "crop, keep
            # position"): readers draw them there, so a trimmed frame never jumps.
            "spriteSourceSize": {
                "x": rect.offset_x,
                "y": rect.offset_y,
                "w": rect.width,
                "h": rect.height,
            },
            "sourceSize": {"w": source_w, "h": source_h},
            "pivot": {"x": pivot_x, "y": pivot_y},
            "duration": millis[rect.index],
        }
    indices = [rect.index for rect in page.frames]
    tag = animation.name if len(animation.pages) == 1 else page.path.stem
    meta: dict[str, Any] = {
        "app": APP,
        "version": __version__,
        "image": page.path.name,
        "format": "RGBA8888",
        "size": {"w": page.width, "h": page.height},
        "scale": "1",
        "fps": animation.fps,
        "frameTags": [
            {"name": tag, "from": min(indices), "to": max(indices), "direction": "forward"}
        ]
        if indices
        else [],
    }
    if related:
        meta["related_multi_packs"] = related
    return {
        "frames": frames,
        "animations": {animation.name: [key(rect) for rect in page.frames]},
        "meta": meta,
    }


def write_sheet_json(animation: Animation, folder: Path) -> list[Path]:
    names = [page.path.with_suffix(".json").name for page in animation.pages]
    paths: list[Path] = []
    for page, own in zip(animation.pages, names, strict=True):
        related = [n for n in names if n != own]
        path = folder / own
        path.write_text(json.dumps(sheet_json(animation, page, related), indent=1) + "\n")
        paths.append(path)
    return paths
