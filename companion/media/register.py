"""In place: every frame moved and scaled so the character's rigid core sits where it
sits in the first frame, which takes out the camera's shake, drift and zoom.

The core is found from the alpha alone, by thickness: the distance from each opaque
pixel to the nearest transparent one (scipy's exact Euclidean distance transform, one C
pass). Weighted by that distance cubed, a torso of 20 px half-width outweighs an arm or
a sword of 3 px by about 300 to 1 per pixel, so swinging limbs and weapons, which move
the alpha box and its centroid, barely move the weighted centroid. The same weights
give the scale: their sum grows as the zoom to the fifth power, and is a sum over
thousands of pixels, so it is steady to a fraction of a percent where a bounding box or
a single inscribed radius wobbles by a pixel. Only a translation and a uniform scale are
taken out (what a camera does); the feet then stand on the first frame's baseline and
the pivot is the same point of the body in every frame.

Cost: the transform runs on the alpha reduced to at most ANALYSIS_SIDE pixels a side
(a few ms), and the warp is Pillow's resize of a box (about 6 ms of CPU on a 512 px
frame), on the shaping threads. Estimating a full similarity by image
alignment (OpenCV's ECC) was the alternative: it needs texture on the character, a
further 60 MB wheel, and tens of milliseconds a frame."""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass

import numpy as np
from PIL import Image
from scipy import ndimage

from companion.media.formats.common import RGBA

ANALYSIS_SIDE = 256
OPAQUE = 128  # alpha at or above which a pixel belongs to the character
WEIGHT_POWER = 3
# Closer than this to the reference, a frame is left untouched (no resampling blur).
STILL_SHIFT, STILL_SCALE = 0.05, 1e-3


@dataclass(frozen=True)
class Core:
    """The core's weighted centre (pixels, x right and y down) and its size (pixels)."""

    x: float
    y: float
    size: float


def find_core(frame: RGBA) -> Core | None:
    """The character's core, or None when the frame has no transparent background (or
    nothing opaque) to tell the character by."""
    alpha = frame[..., 3]
    factor = max(1, math.ceil(max(alpha.shape) / ANALYSIS_SIDE))
    if factor > 1:
        rows, cols = (alpha.shape[0] // factor) * factor, (alpha.shape[1] // factor) * factor
        reduced = alpha[:rows, :cols].reshape(rows // factor, factor, cols // factor, factor)
        mask = reduced.sum(axis=(1, 3), dtype=np.uint32) >= OPAQUE * factor * factor
    else:
        mask = alpha >= OPAQUE
    if not mask.any() or mask.all():
        return None
    # Padded so the frame's edge counts as background (a body cut off by the edge).
    depth = ndimage.distance_transform_edt(np.pad(mask, 1))[1:-1, 1:-1]
    weights = depth**WEIGHT_POWER
    total = float(weights.sum())
    ys = np.arange(weights.shape[0], dtype=np.float64)
    xs = np.arange(weights.shape[1], dtype=np.float64)
    y = float(weights.sum(axis=1) @ ys) / total
    x = float(weights.sum(axis=0) @ xs) / total
    # Centres of reduced pixels back in full pixels; the size in full pixels too.
    return Core(
        (x + 0.5) * factor - 0.5,
        (y + 0.5) * factor - 0.5,
        total ** (1 / (WEIGHT_POWER + 2)) * factor,
    )


def warp(frame: RGBA, source: Core, target: Core, pixel_art: bool) -> RGBA:
    """The frame moved and scaled so `source` lands on `target`."""
    scale = target.size / source.size
    if (
        abs(scale - 1) < STILL_SCALE
        and abs(target.x - source.x) < STILL_SHIFT
        and abs(target.y - source.y) < STILL_SHIFT
    ):
        return frame
    height, width = frame.shape[:2]

    # Output x (pixel edges) from input x, and back: centres are at +0.5.
    def forward(at: float, source_c: float, target_c: float) -> float:
        return (at - source_c - 0.5) * scale + target_c + 0.5

    def back(at: float, source_c: float, target_c: float) -> float:
        return (at - target_c - 0.5) / scale + source_c + 0.5

    # The whole output pixels the frame covers, and exactly the input box they show.
    left = max(0, math.ceil(forward(0, source.x, target.x) - 1e-6))
    top = max(0, math.ceil(forward(0, source.y, target.y) - 1e-6))
    right = min(width, math.floor(forward(width, source.x, target.x) + 1e-6))
    bottom = min(height, math.floor(forward(height, source.y, target.y) + 1e-6))
    out = np.zeros_like(frame)
    if right <= left or bottom <= top:
        return out
    box = (
        max(0.0, back(left, source.x, target.x)),
        max(0.0, back(top, source.y, target.y)),
        min(float(width), back(right, source.x, target.x)),
        min(float(height), back(bottom, source.y, target.y)),
    )
    # A scale and a shift only, so Pillow's separable resize of a box does it (twice as
    # fast as a general affine warp); it premultiplies RGBA itself, so transparent
    # pixels lend no colour to the edges they blend into. Pixel art moves whole pixels.
    kind = Image.Resampling.NEAREST if pixel_art else Image.Resampling.BILINEAR
    moved = Image.fromarray(frame, "RGBA").resize((right - left, bottom - top), kind, box=box)
    out[top:bottom, left:right] = np.asarray(moved)
    return out


class Registration:
    """Frames registered on the first frame's core. apply() may run on several threads;
    the nth frame shaped waits for the first to set the reference."""

    def __init__(self, pixel_art: bool) -> None:
        self.pixel_art = pixel_art
        self._reference: Core | None = None
        self._ready = threading.Event()

    def apply(self, frame: RGBA, nth: int) -> RGBA:
        if nth == 0:
            try:
                self._reference = find_core(frame)
            finally:
                self._ready.set()  # even on an error, so no other frame waits forever
            return frame
        self._ready.wait()
        reference = self._reference
        core = find_core(frame) if reference is not None else None
        if reference is None or core is None:
            return frame  # nothing to register on: left as it came
        return warp(frame, core, reference, self.pixel_art)
