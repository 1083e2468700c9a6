"""Chroma key with soft edges and spill removal.

The key is a direction in the chroma (Cb, Cr) plane. A pixel's chroma distance from the
key decides its alpha, with a smooth ramp between two thresholds for soft edges.
Half-covered edge pixels are un-mixed from the key colour, and pixels whose hue lies
near the key's lose the chroma they have along the key direction (spill), so no
coloured fringe or cast survives. Fully keyed and clean pixels, nearly all of a frame,
take only the cheap distance test; the costly steps run on the few edge and spill pixels."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from companion.media.errors import MediaError

RGBA = npt.NDArray[np.uint8]

# BT.601 full-range RGB -> (Cb, Cr), and the RGB change of a unit CbCr change at fixed Y.
_CB = np.array([-0.168736, -0.331264, 0.5], dtype=np.float32)
_CR = np.array([0.5, -0.418688, -0.081312], dtype=np.float32)
_CBCR_TO_RGB = np.array([[0.0, 1.402], [-0.344136, -0.714136], [1.772, 0.0]], dtype=np.float32)


BAND_ROWS = 64


def parse_hex_colour(text: str) -> tuple[int, int, int]:
    value = text.strip().lstrip("#")
    if len(value) != 6:
        raise MediaError(f"key colour {text!r} is not a hex colour such as #00ff00")
    try:
        return int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16)
    except ValueError as exc:
        raise MediaError(f"key colour {text!r} is not a hex colour such as #00ff00") from exc


class ChromaKeyer:
    """Keys one colour out of RGBA uint8 frames. Thresholds are fractions of the key's
    own chroma length, so they mean the same for a vivid green and a duller blue."""

    def __init__(self, key: tuple[int, int, int], inner: float = 0.20, outer: float = 0.44) -> None:
        self.key = np.array(key, dtype=np.float32)
        key_chroma = np.array([_CB @ self.key, _CR @ self.key], dtype=np.float32)
        length = float(np.hypot(*key_chroma))
        if length < 0.05 * 255:
            raise MediaError("the key colour is a grey; choose a saturated colour such as #00ff00")
        self._key_cb, self._key_cr = float(key_chroma[0]), float(key_chroma[1])
        self._dir = key_chroma / length
        self._inner = inner * length
        self._outer = outer * length

    def apply(self, rgba: RGBA) -> RGBA:
        # In bands of rows: the arithmetic is per pixel, so the result is the same, and
        # the float scratch stays a few hundred KB whatever the frame size.
        if rgba.shape[0] <= BAND_ROWS:
            return self._apply(rgba)
        out = np.empty(rgba.shape, dtype=np.uint8)
        for top in range(0, rgba.shape[0], BAND_ROWS):
            out[top : top + BAND_ROWS] = self._apply(rgba[top : top + BAND_ROWS])
        return out

    def _apply(self, rgba: RGBA) -> RGBA:
        # The whole frame takes only the distance test, computed in place channel by
        # channel; a pixel is kept when its distance is beyond the inner threshold.
        r, g, b = (rgba[..., c].astype(np.float32) for c in range(3))
        cb_all, cr_all = _mix(_CB, r, g, b), _mix(_CR, r, g, b)
        dx = np.subtract(cb_all, self._key_cb, dtype=np.float32)
        dy = np.subtract(cr_all, self._key_cr, dtype=np.float32)
        distance = np.hypot(dx, dy, out=dx)

        out = np.zeros(rgba.shape, dtype=np.uint8)
        # Only kept pixels (alpha > 0) have work left; keyed ones stay zero. The steps
        # below are the same element-wise arithmetic on that subset, in pixel order.
        kept = np.flatnonzero(distance > np.float32(self._inner))
        if kept.size == 0:
            return out
        near = distance.reshape(-1)[kept]
        alpha = np.clip((near - self._inner) / (self._outer - self._inner), 0.0, 1.0)
        rgb = np.stack([r.reshape(-1)[kept], g.reshape(-1)[kept], b.reshape(-1)[kept]], axis=1)
        cb = cb_all.reshape(-1)[kept]
        cr = cr_all.reshape(-1)[kept]

        # Edge pixels: observed = a * foreground + (1 - a) * key, solved for foreground.
        edge = alpha < 1.0
        if edge.any():
            a = alpha[edge][:, None]
            rgb[edge] = (rgb[edge] - (1.0 - a) * self.key) / a
            cb[edge] = rgb[edge] @ _CB
            cr[edge] = rgb[edge] @ _CR
        # Spill: chroma along the key direction, in kept pixels whose hue is within 60
        # degrees of the key's (fully at the key's hue), so a yellow or teal subject
        # keeps its colour.
        along = cb * self._dir[0] + cr * self._dir[1]
        spill = along > 0.5 * np.hypot(cb, cr)
        if spill.any():
            length = np.maximum(np.hypot(cb[spill], cr[spill]), 1e-3)
            amount = along[spill] * np.clip((along[spill] / length - 0.5) * 2.0, 0.0, 1.0)
            delta = amount[:, None] * self._dir[None, :]  # CbCr to take away
            rgb[spill] -= delta @ _CBCR_TO_RGB.T

        flat = out.reshape(-1, 4)
        flat[kept, :3] = np.clip(rgb + 0.5, 0, 255).astype(np.uint8)
        source_alpha = rgba[..., 3].reshape(-1)[kept].astype(np.float32)
        flat[kept, 3] = np.clip(alpha * source_alpha + 0.5, 0, 255).astype(np.uint8)
        return out


def _mix(
    weights: npt.NDArray[np.float32],
    r: npt.NDArray[np.float32],
    g: npt.NDArray[np.float32],
    b: npt.NDArray[np.float32],
) -> npt.NDArray[np.float32]:
    """weights[0] * r + weights[1] * g + weights[2] * b, in that order, one buffer reused."""
    total: npt.NDArray[np.float32] = np.multiply(r, weights[0])
    part = np.multiply(g, weights[1])
    total += part
    np.multiply(b, weights[2], out=part)
    total += part
    return total
