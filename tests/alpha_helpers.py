"""What a transparent sheet must look like, read from its pixels: the corners and the
background fully transparent, and no pixel of the key colour left visible (neither the
background nor a fringe)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image

GREEN = (0, 255, 0)


def keyed_out(sheet: Path, key: tuple[int, int, int] = GREEN) -> dict[str, float]:
    """The sheet's figures: corner alphas, the share of fully transparent pixels, and how
    many visible pixels lie near the key colour (asserted by the callers)."""
    with Image.open(sheet) as opened:
        pixels = np.asarray(opened.convert("RGBA"), dtype=np.int32)
    h, w = pixels.shape[:2]
    corners = [pixels[0, 0, 3], pixels[0, w - 1, 3], pixels[h - 1, 0, 3], pixels[h - 1, w - 1, 3]]
    visible = pixels[pixels[..., 3] > 0][:, :3]
    near_key = np.abs(visible - np.array(key)).max(axis=1) < 60 if visible.size else np.array([])
    return {
        "corner_alpha": float(max(corners)),
        "clear_share": float((pixels[..., 3] == 0).mean()),
        "key_pixels": float(near_key.sum()),
    }


def assert_keyed(sheet: Path, key: tuple[int, int, int] = GREEN) -> None:
    found = keyed_out(sheet, key)
    assert found["corner_alpha"] == 0, (sheet, found)
    assert found["clear_share"] > 0.3, (sheet, found)  # the background, not a coloured box
    assert found["key_pixels"] == 0, (sheet, found)


def hex_key(text: str) -> tuple[int, int, int]:
    text = text.lstrip("#")
    return (int(text[0:2], 16), int(text[2:4], 16), int(text[4:6], 16))
