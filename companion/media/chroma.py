"""Chroma key with soft edges and spill removal.

Works in YCbCr so that the key is a direction in the chroma plane: a pixel's distance
from the key colour there decides its alpha (a smooth ramp between two thresholds gives
soft edges), and what remains of the key's chroma in kept pixels is spill, removed by
taking the pixel's chroma component along the key direction away where its hue is near
the key's. Half-transparent edge pixels are also un-mixed from the key colour, so no
coloured fringe survives."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from companion.media.errors import MediaError

# BT.601 full-range RGB -> chroma (Cb, Cr) rows.
_CHROMA = np.array([[-0.168736, -0.331264, 0.5], [0.5, -0.418688, -0.081312]], dtype=np.float32)


def parse_hex_colour(text: str) -> tuple[int, int, int]:
    value = text.strip().lstrip("#")
    if len(value) != 6:
        raise MediaError(f"key colour {text!r} is not a hex colour such as #00ff00")
    try:
        return int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16)
    except ValueError as exc:
        raise MediaError(f"key colour {text!r} is not a hex colour such as #00ff00") from exc


class ChromaKeyer:
    """Keys one colour out of RGB(A) uint8 frames; thresholds are chroma distances."""

    def __init__(self, key: tuple[int, int, int], inner: float = 0.10, outer: float = 0.22) -> None:
        self.key = np.array(key, dtype=np.float32) / 255.0
        key_chroma = _CHROMA @ self.key
        norm = float(np.linalg.norm(key_chroma))
        if norm < 0.05:
            raise MediaError("the key colour is a grey; choose a saturated colour such as #00ff00")
        self._key_chroma = key_chroma
        self._key_dir = key_chroma / norm
        self._inner = inner * norm / 0.5
        self._outer = outer * norm / 0.5

    def apply(self, rgba: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
        rgb = rgba[..., :3].astype(np.float32) * (1.0 / 255.0)
        chroma = rgb @ _CHROMA.T  # (h, w, 2)
        distance = np.linalg.norm(chroma - self._key_chroma, axis=-1)
        alpha = np.clip((distance - self._inner) / (self._outer - self._inner), 0.0, 1.0)
        # Un-mix the key from partly covered pixels: observed = a*fg + (1-a)*key.
        safe = np.maximum(alpha, 1e-3)[..., None]
        unmixed = (rgb - (1.0 - alpha[..., None]) * self.key) / safe
        rgb = np.where((alpha > 0.0)[..., None] & (alpha < 1.0)[..., None], unmixed, rgb)
        # Spill: chroma along the key direction that survives in kept pixels.
        # Only hues near the key's are treated (full at the key's hue, none from 60
        # degrees away), so a yellow or teal subject keeps its colour.
        chroma = rgb @ _CHROMA.T
        along = chroma @ self._key_dir
        length = np.maximum(np.linalg.norm(chroma, axis=-1), 1e-6)
        weight = np.clip((along / length - 0.5) * 2.0, 0.0, 1.0)
        spill = (np.maximum(along, 0.0) * weight)[..., None] * self._key_dir
        # Move chroma back by `spill` with luma kept: inverse map of CbCr deltas to RGB.
        rgb = rgb - spill @ _CBCR_TO_RGB.T
        out = np.empty((*rgba.shape[:2], 4), dtype=np.uint8)
        out[..., :3] = np.clip(rgb * 255.0 + 0.5, 0, 255).astype(np.uint8)
        source_alpha = rgba[..., 3].astype(np.float32) / 255.0 if rgba.shape[-1] == 4 else 1.0
        out[..., 3] = np.clip(alpha * source_alpha * 255.0 + 0.5, 0, 255).astype(np.uint8)
        return out


# RGB change produced by a unit change of Cb and Cr with Y fixed (BT.601 full range).
_CBCR_TO_RGB = np.array([[0.0, 1.402], [-0.344136, -0.714136], [1.772, 0.0]], dtype=np.float32)
