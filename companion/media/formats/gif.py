"""Animated GIF: 255-colour palettes, exact frame delays, infinite loop, 1-bit alpha.

Each frame is mapped onto a 255-colour median-cut palette with error-diffusion
dithering; a palette is kept from frame to frame while it serves them (see _palette_for).
Pixel art gets its own palette per frame from every pixel and no dithering. Index 255
is the transparent colour; FFmpeg's GIF encoder writes the LZW stream and the per-frame
delays while frames stream past."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import av
import numpy as np
from PIL import Image

from companion.media.formats.common import RGBA, rounded_steps

CENTIS = Fraction(1, 100)
TRANSPARENT = 255
# Browsers play delays under 2 cs as 10 cs; never write one.
MIN_DELAY = 2
# A palette is kept for the next frame while its mean error there (per channel, before
# dithering) is at most this factor of its error on the frame it was built from, plus
# the slack (which lets a nearly exact palette stay).
REUSE_ERROR = 1.1
REUSE_SLACK = 0.25


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
        self._palette: tuple[Image.Image, float] | None = None  # and its error when built

    def _quantize(self, frame: RGBA) -> tuple[np.ndarray, np.ndarray]:
        visible = frame[..., 3] >= 128
        hidden = ~visible
        first = int(np.argmax(visible))  # first visible pixel in scan order
        pixels = np.ascontiguousarray(frame).view(np.uint32)[..., 0]  # one word per pixel
        if visible.reshape(-1)[first] and hidden.any():
            # Hidden pixels take a visible colour so they cost no palette entry.
            pixels = np.where(hidden, pixels.reshape(-1)[first], pixels)
        rgba = Image.fromarray(pixels.view(np.uint8).reshape(frame.shape), "RGBA")
        image = rgba.convert("RGB")
        if self.pixel_art:
            # Exact colours matter more than speed: each frame's palette sees every pixel
            # and nothing is dithered.
            paletted = image.quantize(TRANSPARENT, method=Image.Quantize.MEDIANCUT)
        else:
            paletted = image.quantize(
                palette=self._palette_for(np.asarray(image), visible),
                dither=Image.Dither.FLOYDSTEINBERG,
            )
        indices = np.asarray(paletted, dtype=np.uint8).copy()
        np.copyto(indices, TRANSPARENT, where=hidden)
        colours = np.asarray(paletted.getpalette() or [], dtype=np.uint8).reshape(-1, 3)
        colours = colours[:TRANSPARENT]
        palette = np.zeros((256, 4), dtype=np.uint8)  # ARGB rows
        # FFmpeg takes the first entry with the lowest alpha as the transparent one, so
        # every other entry, used or not, must be opaque.
        palette[:TRANSPARENT, 0] = 255
        palette[: len(colours), 1:] = colours
        return indices, palette

    def _palette_for(self, rgb: np.ndarray, visible: np.ndarray) -> Image.Image:
        """A palette for a frame that is then mapped onto it with error diffusion.

        It is built by median cut from a regular subsample of about 64k pixels (as good
        as the whole frame for median cut, at a fraction of the time). The previous
        frame's palette is kept while it serves this frame about as well as it served
        the frame it was built for, on the pixels that show (an animation's frames
        share their colours), which saves the median cut on most frames."""
        stride = max(1, int((rgb.shape[0] * rgb.shape[1] / 65536) ** 0.5))
        sample = Image.fromarray(np.ascontiguousarray(rgb[::stride, ::stride]), "RGB")
        shown = visible[::stride, ::stride]
        if self._palette is not None:
            palette, built_error = self._palette
            if _error(sample, shown, palette) <= built_error * REUSE_ERROR + REUSE_SLACK:
                return palette
        palette = sample.quantize(TRANSPARENT, method=Image.Quantize.MEDIANCUT)
        self._palette = palette, _error(sample, shown, palette)
        return palette

    def add(self, index: int, frame: RGBA) -> None:
        indices, palette = self._quantize(frame)
        pair: Any = (indices, palette)  # pal8 takes (indices, ARGB palette)
        video = av.VideoFrame.from_ndarray(pair, format="pal8")
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
        for packet in self._stream.encode(None):
            packet.duration = self._duration_at(packet.pts)
            self._container.mux(packet)
        self._container.close()
        return self.path


def _error(sample: Image.Image, shown: np.ndarray, palette: Image.Image) -> float:
    """Mean absolute difference per channel between the shown pixels and their nearest
    palette colours."""
    if not shown.any():
        return 0.0
    mapped = np.asarray(sample.quantize(palette=palette, dither=Image.Dither.NONE))[shown]
    colours = np.asarray(palette.getpalette() or [], dtype=np.uint8).reshape(-1, 3)
    nearest = colours[mapped].astype(np.int16)
    return float(np.abs(nearest - np.asarray(sample, dtype=np.int16)[shown]).mean())
