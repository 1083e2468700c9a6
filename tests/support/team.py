"""What the team-mode tests and the team benchmark share: a picture large enough to be
uploaded (not inlined), and a one-click animation request for it."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from PIL import Image


def big_picture(path: Path, seed: int = 1) -> Path:
    """A noisy 400x400 PNG (about 480 KB): over the inline limit, so it is uploaded."""
    rng = random.Random(seed)
    image = Image.frombytes("RGB", (400, 400), rng.randbytes(400 * 400 * 3))
    image.save(path)
    return path


def animation_request(image: Path) -> dict[str, Any]:
    return {
        "image": str(image),
        "prompt": "idle",
        "video": {"duration_seconds": 1, "resolution": "360p"},
        "export": {
            "frame_count": 4,
            "output_width": 64,
            "output_height": 64,
            "output_formats": ["spritesheet", "spritesheet_json"],
        },
    }
