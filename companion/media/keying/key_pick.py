"""The key colour for a picture whose background is to be keyed out: of the colours a
keyer tells apart best (pure green, magenta, blue), the one furthest in chroma from the
picture's own visible colours, so no part of the character is keyed with the background."""

from __future__ import annotations

import numpy as np
from PIL import Image

KEY_CANDIDATES: tuple[tuple[int, int, int], ...] = ((0, 255, 0), (255, 0, 255), (0, 0, 255))

# BT.601 full-range RGB -> Cb and Cr, as the keyer measures chroma (companion.media.keying.chroma).
_CB = np.array([-0.168736, -0.331264, 0.5], dtype=np.float32)
_CR = np.array([0.5, -0.418688, -0.081312], dtype=np.float32)


def far_key_colour(image: Image.Image) -> tuple[int, int, int]:
    """The candidate whose chroma is furthest from nearly all (98 %) of the picture's
    visible pixels; the first candidate for a picture with none."""
    thumb = np.asarray(image.convert("RGBA").resize((64, 64)), dtype=np.float32)
    visible = thumb[thumb[..., 3] > 128][:, :3]
    if visible.size == 0:
        return KEY_CANDIDATES[0]
    cb, cr = visible @ _CB, visible @ _CR

    def clearance(key: tuple[int, int, int]) -> float:
        k = np.array(key, dtype=np.float32)
        return float(np.percentile(np.hypot(cb - float(k @ _CB), cr - float(k @ _CR)), 2))

    return max(KEY_CANDIDATES, key=clearance)


def hex_colour(colour: tuple[int, int, int]) -> str:
    return "#" + "".join(f"{c:02x}" for c in colour)
