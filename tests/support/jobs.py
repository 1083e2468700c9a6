"""What several test modules share."""

from __future__ import annotations

from pathlib import Path
from typing import Any

FORMATS = ["spritesheet", "spritesheet_json", "godot_pack"]


def request_for(image: Path, prompt: str = "idle breathing") -> dict[str, Any]:
    return {
        "image": str(image),
        "prompt": prompt,
        "video": {"duration_seconds": 1, "resolution": "360p"},
        "export": {
            "frame_count": 4,
            "output_width": 64,
            "output_height": 64,
            "output_formats": FORMATS,
        },
    }
