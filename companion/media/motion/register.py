"""In place: every frame moved and scaled so the character's rigid core sits where it
sits in the first frame, which takes out the camera's shake, drift and zoom.

The core is found from the alpha alone, by thickness: the distance from each opaque
pixel to the nearest transparent one (the exact Euclidean distance transform of
media/depth.py). Weighted by that distance cubed, a torso of 20 px half-width outweighs an arm or
a sword of 3 px by about 300 to 1 per pixel, so swinging limbs and weapons, which move
the alpha box and its centroid, barely move the weighted centroid. The same weights
give the scale: their sum grows as the zoom to the fifth power, and is a sum over
thousands of pixels, so it is steady to a fraction of a percent where a bounding box or
a single inscribed radius wobbles by a pixel. Only a translation and a uniform scale are
taken out (what a camera does); the pivot is then the same point of the body in every
frame, and a rigid body's feet stand on the first frame's baseline. A body that squashes
and stretches is held by its core, so its feet move by the stretch: held on a squashed
first frame, a stretched walker's feet sink a few pixels, and where the art reaches
within those pixels of the frame's bottom, they are cut by it. Holding back less there
would leave the camera's shake in (tests/unit/media/test_export_in_place.py holds a shaken torso
within 2 px), so the body is held.

Cost: the transform runs on the alpha reduced to at most ANALYSIS_SIDE pixels a side
and cut to the character's box (about 2 ms on a 512 px frame, from 9), and the warp is
Pillow's resize of the character's box alone (a third of the whole frame's), on the
shaping threads. Estimating a full similarity by image
alignment (OpenCV's ECC) was the alternative: it needs texture on the character, a
further 60 MB wheel, and tens of milliseconds a frame."""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from PIL import Image

from companion.media.formats.common import RGBA
from companion.media.motion.depth import depth
from companion.media.source.block_sums import block_sums

ANALYSIS_SIDE = 256
OPAQUE = 128  # alpha at or above which a pixel belongs to the character
# Below this alpha a resampled pixel's colour is mostly rounding (see _faint_colours_from_the_edge).
FAINT = 16
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
    mask, factor = _reduced_mask(frame[..., 3])
    if not mask.any() or mask.all():
        return None
    # The distances are taken on the mask's own box with a ring of background around
    # it (the frame's edge counts as background: a body cut off by the edge). Every
    # pixel outside that box is background and farther than the ring, so the depths are
    # those of the whole frame, at the cost of the box.
    rows, cols = _span(mask.any(axis=1)), _span(mask.any(axis=0))
    box = np.pad(mask[rows[0] : rows[1], cols[0] : cols[1]], 1)
    thickness = depth(box)[1:-1, 1:-1]
    weights = thickness * thickness * thickness  # WEIGHT_POWER, by products (a power is 7x slower)
    total = float(weights.sum())
    ys = np.arange(rows[0], rows[1], dtype=np.float64)
    xs = np.arange(cols[0], cols[1], dtype=np.float64)
    y = float(weights.sum(axis=1) @ ys) / total
    x = float(weights.sum(axis=0) @ xs) / total
    # Centres of reduced pixels back in full pixels; the size in full pixels too.
    return Core(
        (x + 0.5) * factor - 0.5,
        (y + 0.5) * factor - 0.5,
        total ** (1 / (WEIGHT_POWER + 2)) * factor,
    )


def _reduced_mask(alpha: npt.NDArray[np.uint8]) -> tuple[npt.NDArray[np.bool_], int]:
    """The opaque pixels of the alpha reduced by block sums to at most ANALYSIS_SIDE a
    side, and the block's side."""
    factor = max(1, math.ceil(max(alpha.shape) / ANALYSIS_SIDE))
    if factor == 1:
        return alpha >= OPAQUE, 1
    rows, cols = (alpha.shape[0] // factor) * factor, (alpha.shape[1] // factor) * factor
    sums = block_sums(alpha[:rows, :cols], factor, factor, np.uint32)
    return sums >= OPAQUE * factor * factor, factor


def _span(filled: npt.ArrayLike) -> tuple[int, int]:
    """[first, last + 1) of the true entries of a line with at least one."""
    where = np.flatnonzero(filled)
    return int(where[0]), int(where[-1]) + 1


def warp(frame: RGBA, source: Core, target: Core, pixel_art: bool) -> RGBA:
    """The frame moved and scaled so `source` lands on `target`."""
    scale = target.size / source.size
    if (
        abs(scale - 1) < STILL_SCALE
        and abs(target.x - source.x) < STILL_SHIFT
        and abs(target.y - source.y) < STILL_SHIFT
    ):
        return frame
    out = np.zeros_like(frame)
    alpha = np.ascontiguousarray(frame[..., 3])  # a copy: any() on the strided view is slower
    shown_rows, shown_cols = alpha.any(axis=1), alpha.any(axis=0)
    if not shown_rows.any():
        return out
    # Only the pixels that can show something are resampled: what the character's box
    # reaches (a frame is mostly background, which stays transparent).
    reach = (0.5 if pixel_art else 1.0) * max(1.0, 1 / scale)
    x = _Axis(frame.shape[1], source.x, target.x, scale, _span(shown_cols), reach)
    y = _Axis(frame.shape[0], source.y, target.y, scale, _span(shown_rows), reach)
    if x.empty or y.empty:
        return out
    # A scale and a shift only, so Pillow's separable resize of a box does it (twice as
    # fast as a general affine warp); it premultiplies RGBA itself, so transparent
    # pixels lend no colour to the edges they blend into. Pixel art moves whole pixels.
    kind = Image.Resampling.NEAREST if pixel_art else Image.Resampling.BILINEAR
    crop = frame[y.crop[0] : y.crop[1], x.crop[0] : x.crop[1]]
    moved = Image.fromarray(np.ascontiguousarray(crop), "RGBA").resize(
        (x.out[1] - x.out[0], y.out[1] - y.out[0]),
        kind,
        box=(x.box[0], y.box[0], x.box[1], y.box[1]),
    )
    placed = out[y.out[0] : y.out[1], x.out[0] : x.out[1]]
    placed[...] = np.asarray(moved)
    if not pixel_art:
        _faint_colours_from_the_edge(placed)
    return out


def _faint_colours_from_the_edge(rgba: RGBA) -> None:
    """Pillow resamples RGBA premultiplied, in 8 bits, so a pixel left with a few levels
    of alpha gets its colour back from a few levels of colour: at alpha 1 each channel
    is 0 or 255 (pure green or red beside a brown edge). Such a pixel all but vanishes,
    but an engine filtering straight alpha mixes its colour into the edge beside it.
    Of the colours that premultiply to what the resize computed, it takes the one
    nearest the most opaque pixel beside it (its alpha and premultiplied colour stay)."""
    alpha = rgba[..., 3]
    ys, xs = np.nonzero((alpha > 0) & (alpha < FAINT))
    if not ys.size:
        return
    height, width = alpha.shape
    best = np.zeros(ys.size, dtype=np.int32)
    from_y, from_x = ys.copy(), xs.copy()
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            if not (dy or dx):
                continue  # the faint pixel itself
            ny, nx = np.clip(ys + dy, 0, height - 1), np.clip(xs + dx, 0, width - 1)
            seen = alpha[ny, nx].astype(np.int32)
            better = seen > best
            best = np.where(better, seen, best)
            from_y, from_x = np.where(better, ny, from_y), np.where(better, nx, from_x)
    take = best >= FAINT
    ys, xs, from_y, from_x = ys[take], xs[take], from_y[take], from_x[take]
    faint = alpha[ys, xs].astype(np.float32)[:, None]
    colour = rgba[ys, xs, :3].astype(np.float32)
    premultiplied = np.rint(colour * faint / 255)
    lowest = np.ceil((premultiplied - 0.5) * 255 / faint)
    highest = np.floor((premultiplied + 0.5) * 255 / faint - 1e-3)
    edge = rgba[from_y, from_x, :3].astype(np.float32)
    rgba[ys, xs, :3] = np.clip(edge, np.maximum(lowest, 0), np.minimum(highest, 255))


class _Axis:
    """One axis of a warp: the output pixels [out) to resample, the input pixels [crop)
    they read, and the box of the crop they show (Pillow's box, pixel edges).

    Output edge `at` shows input edge (at - target - 0.5) / scale + source + 0.5. The
    output pixels are those inside the frame's image whose filter (`reach` input
    pixels either side of their centre) can meet the shown input [shown); the crop has
    every pixel their filters read, so the resize weighs exactly what it would on the
    whole frame, in a fraction of the time."""

    def __init__(
        self,
        size: int,
        source: float,
        target: float,
        scale: float,
        shown: tuple[int, int],
        reach: float,
    ) -> None:
        def forward(at: float) -> float:
            return (at - source - 0.5) * scale + target + 0.5

        def back(at: float) -> float:
            return (at - target - 0.5) / scale + source + 0.5

        # The whole output pixels the frame covers, narrowed to those that can show it.
        first = max(0, math.ceil(forward(0) - 1e-6), math.floor(forward(shown[0] - reach - 1)))
        last = min(size, math.floor(forward(size) + 1e-6), math.ceil(forward(shown[1] + reach + 1)))
        self.empty = last <= first
        self.out = (first, last)
        start, end = max(0.0, back(first)), min(float(size), back(last))
        low = max(0, math.floor(start - reach - 2))
        self.crop = (low, min(size, math.ceil(end + reach + 2)))
        self.box = (start - low, end - low)


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
