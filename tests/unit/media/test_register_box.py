"""In place resamples only the character's box: the result must be the whole frame's
resize (Pillow's box resize of every pixel), up to rounding of the premultiplied values."""

from __future__ import annotations

import math

import numpy as np
import pytest
from PIL import Image

from companion.media.motion.register import Core, find_core, warp


def _frame(side: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    frame = np.zeros((side, side, 4), dtype=np.uint8)
    yy, xx = np.mgrid[0:side, 0:side]
    body = (yy - side * 0.55) ** 2 / 0.09 + (xx - side * 0.45) ** 2 / 0.04 < side**2
    frame[body] = rng.integers(0, 256, (int(body.sum()), 4))
    frame[body, 3] = np.maximum(frame[body, 3], 200)
    frame[side // 5, side // 3 : side // 2, 3] = 40  # a faint line far from the body
    frame[side // 5, side // 3 : side // 2, :3] = 90
    return frame


def _whole(frame: np.ndarray, source: Core, target: Core, kind: Image.Resampling) -> np.ndarray:
    """The same move done on every pixel of the frame."""
    scale, side = target.size / source.size, frame.shape[0]

    def forward(at: float, s: float, t: float) -> float:
        return (at - s - 0.5) * scale + t + 0.5

    def back(at: float, s: float, t: float) -> float:
        return (at - t - 0.5) / scale + s + 0.5

    left = max(0, math.ceil(forward(0, source.x, target.x) - 1e-6))
    top = max(0, math.ceil(forward(0, source.y, target.y) - 1e-6))
    right = min(side, math.floor(forward(side, source.x, target.x) + 1e-6))
    bottom = min(side, math.floor(forward(side, source.y, target.y) + 1e-6))
    box = (
        max(0.0, back(left, source.x, target.x)),
        max(0.0, back(top, source.y, target.y)),
        min(float(side), back(right, source.x, target.x)),
        min(float(side), back(bottom, source.y, target.y)),
    )
    out = np.zeros_like(frame)
    moved = Image.fromarray(frame, "RGBA").resize((right - left, bottom - top), kind, box=box)
    out[top:bottom, left:right] = np.asarray(moved)
    return out


def _premultiplied(frame: np.ndarray) -> np.ndarray:
    return frame[..., :3].astype(np.int32) * frame[..., 3:4] // 255


@pytest.mark.parametrize("pixel_art", [False, True])
@pytest.mark.parametrize(
    ("dx", "dy", "zoom"), [(3.3, -7.6, 1.0), (-12.2, 4.4, 1.08), (6.9, 2.1, 0.87), (0, 0, 1.5)]
)
def test_box_warp_is_the_whole_frame_warp(dx: float, dy: float, zoom: float, pixel_art: bool):
    frame = _frame(256, 7)
    source = find_core(frame)
    assert source is not None
    target = Core(source.x + dx, source.y + dy, source.size * zoom)
    kind = Image.Resampling.NEAREST if pixel_art else Image.Resampling.BILINEAR
    ours, whole = warp(frame, source, target, pixel_art), _whole(frame, source, target, kind)
    assert np.abs(ours[..., 3].astype(int) - whole[..., 3]).max() <= 1
    assert np.abs(_premultiplied(ours) - _premultiplied(whole)).max() <= 2
    # Rounding apart, the same pixels: never a shifted or cut edge.
    assert (ours[..., 3] != whole[..., 3]).mean() < 0.01


def test_faint_edge_pixels_keep_the_edges_colour() -> None:
    """Moved by a fraction of a pixel, a flat brown disc's edge fades over pixels of a
    few levels of alpha. Pillow's 8-bit premultiplied resize returns their colour from a
    few levels (black or pure primaries at alpha 1); an engine filtering straight alpha
    would mix that into the edge. They must carry the disc's own brown."""
    brown = np.array([106, 102, 26])
    side = 128
    yy, xx = np.mgrid[0:side, 0:side]
    frame = np.zeros((side, side, 4), dtype=np.uint8)
    disc = (yy - 64) ** 2 + (xx - 60) ** 2 < 36**2
    frame[disc] = [*brown, 255]
    source = find_core(frame)
    assert source is not None
    target = Core(source.x + 0.37, source.y - 0.21, source.size * 1.013)
    moved = warp(frame, source, target, pixel_art=False)
    whole = _whole(frame, source, target, Image.Resampling.BILINEAR)
    alpha = moved[..., 3]
    faint = (alpha > 0) & (alpha < 16)
    assert faint.sum() >= 10 and (alpha[faint] <= 3).any()  # the case is met
    # Each as near the brown as the rounding of its premultiplied colour allows (at
    # alpha 1 a channel is one of two halves), and most of them that brown.
    off = np.abs(moved[faint][:, :3].astype(int) - brown)
    assert (off <= 255 / (2 * alpha[faint][:, None]) + 1).all()
    assert (off.max(axis=1) <= 1).mean() >= 0.75, off.max(axis=1)
    # Their alpha and premultiplied colour are still the resize's.
    assert np.abs(alpha.astype(int) - whole[..., 3]).max() <= 1
    assert np.abs(_premultiplied(moved) - _premultiplied(whole)).max() <= 2
