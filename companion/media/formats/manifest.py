"""A small JSON manifest of frame order, durations and fps, for engines whose sheet
importers make sprites but no animation (Unreal's flipbooks, Cocos Creator clips)."""

from __future__ import annotations

import json

from companion.media.formats.common import Animation


def animation_manifest(animation: Animation) -> bytes:
    document = {
        "name": animation.name,
        "fps": animation.fps,
        "loop": True,
        "frame_width": animation.frame_width,
        "frame_height": animation.frame_height,
        "pivot": dict(zip(("x", "y"), animation.pivot_xy_down, strict=True)),
        "frames": [
            {
                "name": rect.name,
                "sheet": animation.pages[rect.page].path.name,
                "duration_seconds": round(rect.duration, 6),
            }
            for rect in animation.frames
        ],
    }
    return (json.dumps(document, indent=1) + "\n").encode()
