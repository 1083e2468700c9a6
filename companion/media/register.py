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
(about 1 ms), and the warp is Pillow's affine resampling on premultiplied RGBA (a few ms
on a 512 px frame), on the shaping threads. Estimating a full similarity by image
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
        mask = reduced.mean(axis=(1, 3)) >= OPAQUE
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
    # Pillow maps each output pixel centre back into the input (centres at +0.5).
    inverse = 1 / scale
    matrix = (
        inverse,
        0.0,
        source.x + 0.5 - inverse * (target.x + 0.5),
        0.0,
        inverse,
        source.y + 0.5 - inverse * (target.y + 0.5),
    )
    size = (frame.shape[1], frame.shape[0])
    if pixel_art:  # whole pixels moved, never blended
        image = Image.fromarray(frame, "RGBA")
        return np.asarray(image.transform(size, Image.Transform.AFFINE, matrix))
    # Premultiplied, so transparent pixels lend no colour to the edges they blend into.
    image = Image.fromarray(frame, "RGBA").convert("RGBa")
    moved = image.transform(size, Image.Transform.AFFINE, matrix, Image.Resampling.BILINEAR)
    return np.asarray(moved.convert("RGBA"))


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
