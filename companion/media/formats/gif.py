"""Animated GIF: 255-colour palettes, exact frame delays, infinite loop, 1-bit alpha.

Each frame is mapped onto a 255-colour median-cut palette with error-diffusion
dithering; a palette is kept from frame to frame while it serves them (see _palette_for).
Pixel art gets its own palette per frame from every pixel and no dithering. Index 255
is the transparent colour; FFmpeg's GIF encoder writes the LZW stream and the per-frame
delays while frames stream past."""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import av
import numpy as np
from PIL import Image

from companion.media.formats.common import RGBA, rounded_steps
from companion.media.pipeline import InOrder

CENTIS = Fraction(1, 100)
TRANSPARENT = 255
# Browsers play delays under 2 cs as 10 cs; never write one.
MIN_DELAY = 2
# A palette is kept for the next frame while its mean error there (per channel, before
# dithering) is at most this factor of its error on the frame it was built from, plus
# the slack (which lets a nearly exact palette stay).
REUSE_ERROR = 1.1
REUSE_SLACK = 0.25
# Frames mapped onto their palettes side by side; this many at most are in hand.
MAPPERS = 2


@dataclass(frozen=True)
class SharedPalette:
    """A palette the mapping threads share. Pillow caches each colour's nearest entry on
    the palette image it maps with, and a cache is not safe to fill from two threads; so
    each thread maps with its own copy, made once per palette (see _own_copy), and the
    cache then serves every later frame instead of being built again for each one."""

    serial: int
    template: Image.Image  # only ever copied, never mapped with


_serials = itertools.count()
_local = threading.local()


def _own_copy(shared: SharedPalette) -> Image.Image:
    if getattr(_local, "serial", None) != shared.serial:
        _local.palette = shared.template.copy()
        _local.serial = shared.serial
    palette: Image.Image = _local.palette
    return palette


class GifWriter:
    def __init__(
        self, path: Path, width: int, height: int, durations: tuple[float, ...], pixel_art: bool
    ) -> None:
        self.path = path
        self.pixel_art = pixel_art
        delays = rounded_steps(durations, 0.01, minimum=MIN_DELAY)
        self._pts = [0]
        for delay in delays:
            self._pts.append(self._pts[-1] + delay)
        self._delay_of = dict(zip(self._pts, delays, strict=False))
        self.clamped = any(d < 0.015 for d in durations)
        self._container = av.open(str(path), "w", format="gif", options={"loop": "0"})
        self._stream = self._container.add_stream("gif", rate=100)
        self._stream.width, self._stream.height = width, height
        self._stream.pix_fmt = "pal8"
        self._stream.time_base = CENTIS
        self._stream.codec_context.time_base = CENTIS
        # The palette in use, its error on the frame it was built from, and the copy
        # the mapping threads take theirs from.
        self._palette: tuple[Image.Image, float, SharedPalette] | None = None
        self._mapping: InOrder[int, tuple[np.ndarray, np.ndarray]] = InOrder(MAPPERS, "gif-map")

    def add(self, index: int, frame: RGBA) -> None:
        # The palette is chosen here, in frame order; mapping the frame onto it (the
        # costly part) runs on the pool, and frames are encoded in order.
        # Only the box around the shown pixels is mapped: outside it every pixel is the
        # transparent index, and a keyed sprite leaves much of its frame outside.
        shown = frame[..., 3] >= 128
        rows, columns = np.flatnonzero(shown.any(axis=1)), np.flatnonzero(shown.any(axis=0))
        if rows.size:
            box = (slice(rows[0], rows[-1] + 1), slice(columns[0], columns[-1] + 1))
        else:
            box = (slice(0, 1), slice(0, 1))
        visible = shown[box]
        rgba, hidden = _opaque(frame[box], visible)
        image = Image.fromarray(rgba, "RGBA").convert("RGB")
        # The palette's sample is read from the RGBA pixels: no second copy of the frame.
        palette = None if self.pixel_art else self._palette_for(rgba[..., :3], visible)
        self._mapping.submit(index, _quantize, image, hidden, palette, frame.shape[:2], box)
        for done, pair in self._mapping.ready():
            self._encode(done, pair)

    def _palette_for(self, rgb: np.ndarray, visible: np.ndarray) -> SharedPalette:
        """A palette for a frame that is then mapped onto it with error diffusion.

        It is built by median cut from a regular subsample of about 64k pixels (as good
        as the whole frame for median cut, at a fraction of the time). The previous
        frame's palette is kept while it serves this frame about as well as it served
        the frame it was built for, on the pixels that show (an animation's frames
        share their colours), which saves the median cut on most frames. How well it
        serves is measured on a sparser sample of about 16k pixels: a mean over that
        many is steady, and the check runs on every frame."""
        stride = max(1, int((rgb.shape[0] * rgb.shape[1] / 65536) ** 0.5))
        check = np.ascontiguousarray(rgb[:: 2 * stride, :: 2 * stride])
        shown = visible[:: 2 * stride, :: 2 * stride]
        if self._palette is not None:
            palette, built_error, shared = self._palette
            if _error(check, shown, palette) <= built_error * REUSE_ERROR + REUSE_SLACK:
                return shared
        sample = Image.fromarray(np.ascontiguousarray(rgb[::stride, ::stride]), "RGB")
        palette = sample.quantize(TRANSPARENT, method=Image.Quantize.MEDIANCUT)
        shared = SharedPalette(next(_serials), palette.copy())
        self._palette = palette, _error(check, shown, palette), shared
        return shared

    def _encode(self, index: int, pair: tuple[np.ndarray, np.ndarray]) -> None:
        paletted: Any = pair  # pal8 takes (indices, ARGB palette)
        video = av.VideoFrame.from_ndarray(paletted, format="pal8")
        video.pts = self._pts[index]
        video.time_base = CENTIS
        video.duration = self._pts[index + 1] - self._pts[index]
        for packet in self._stream.encode(video):
            packet.duration = self._duration_at(packet.pts)
            self._container.mux(packet)

    def _duration_at(self, pts: int | None) -> int:
        # Packets may leave the encoder later than their frame went in: look the delay
        # up by presentation time, in one step.
        return self._delay_of.get(pts, MIN_DELAY) if pts is not None else MIN_DELAY

    def close(self) -> Path:
        try:
            for done, pair in self._mapping.rest():
                self._encode(done, pair)
        finally:
            self._mapping.shutdown()
        for packet in self._stream.encode(None):
            packet.duration = self._duration_at(packet.pts)
            self._container.mux(packet)
        self._container.close()
        return self.path


def _error(pixels: np.ndarray, shown: np.ndarray, palette: Image.Image) -> float:
    """Mean absolute difference per channel between the shown pixels and their nearest
    palette colours."""
    if not shown.any():
        return 0.0
    image = Image.fromarray(pixels, "RGB")
    mapped = np.asarray(image.quantize(palette=palette, dither=Image.Dither.NONE))[shown]
    colours = np.asarray(palette.getpalette() or [], dtype=np.uint8).reshape(-1, 3)
    nearest, actual = colours[mapped], pixels[shown]
    # |a - b| in uint8 without widening: the larger less the smaller.
    return float((np.maximum(nearest, actual) - np.minimum(nearest, actual)).mean())


def _opaque(frame: RGBA, visible: np.ndarray) -> tuple[RGBA, np.ndarray]:
    """The frame with hidden pixels (alpha under half) in a visible colour, and which
    pixels are hidden."""
    hidden = ~visible
    first = int(np.argmax(visible))  # first visible pixel in scan order
    pixels = np.ascontiguousarray(frame).view(np.uint32)[..., 0]  # one word per pixel
    if visible.reshape(-1)[first] and hidden.any():
        # Hidden pixels take a visible colour so they cost no palette entry.
        pixels = np.where(hidden, pixels.reshape(-1)[first], pixels)
    return pixels.view(np.uint8).reshape(frame.shape), hidden


def _quantize(
    image: Image.Image,
    hidden: np.ndarray,
    shared: SharedPalette | None,
    size: tuple[int, ...],
    box: tuple[slice, slice],
) -> tuple[np.ndarray, np.ndarray]:
    """Palette indices of a frame of `size` whose `box` is `image` (255 where hidden and
    outside the box) and the ARGB palette. Without a palette (pixel art) the frame gets
    its own from every pixel and nothing is dithered: exact colours matter more than
    speed."""
    if shared is None:
        paletted = image.quantize(TRANSPARENT, method=Image.Quantize.MEDIANCUT)
    else:
        paletted = image.quantize(palette=_own_copy(shared), dither=Image.Dither.FLOYDSTEINBERG)
    indices = np.full(size, TRANSPARENT, dtype=np.uint8)
    indices[box] = np.asarray(paletted, dtype=np.uint8)
    np.copyto(indices[box], TRANSPARENT, where=hidden)
    colours = np.asarray(paletted.getpalette() or [], dtype=np.uint8).reshape(-1, 3)
    colours = colours[:TRANSPARENT]
    argb = np.zeros((256, 4), dtype=np.uint8)
    # FFmpeg takes the first entry with the lowest alpha as the transparent one, so
    # every other entry, used or not, must be opaque.
    argb[:TRANSPARENT, 0] = 255
    argb[: len(colours), 1:] = colours
    return indices, argb
