"""Animated GIF: per-frame optimal palette, exact frame delays, infinite loop, 1-bit alpha.

Each frame gets its own 255-colour palette (median cut, error-diffusion dithering unless
the export is pixel art; see _quantize) and index 255 is the transparent colour; FFmpeg's
GIF encoder writes the LZW stream and the per-frame delays while frames stream past."""

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

    def _quantize(self, frame: RGBA) -> tuple[np.ndarray, np.ndarray]:
        visible = frame[..., 3] >= 128
        hidden = ~visible
        rgb = frame[..., :3]
        first = int(np.argmax(visible))  # first visible pixel in scan order
        if visible.reshape(-1)[first] and hidden.any():
            # Hidden pixels take a visible colour so they cost no palette entry.
            rgb = np.ascontiguousarray(rgb)
            np.copyto(rgb, rgb.reshape(-1, 3)[first], where=hidden[..., None])
        image = Image.fromarray(np.ascontiguousarray(rgb), "RGB")
        if self.pixel_art:
            # Exact colours matter more than speed: the palette sees every pixel and
            # nothing is dithered.
            paletted = image.quantize(TRANSPARENT, method=Image.Quantize.MEDIANCUT)
        else:
            # The palette is built from a regular subsample of about 64k pixels (as good
            # as the whole frame for median cut, at a fraction of the time), then the
            # full frame is mapped onto it with error diffusion.
            stride = max(1, int((rgb.shape[0] * rgb.shape[1] / 65536) ** 0.5))
            sample = Image.fromarray(np.ascontiguousarray(rgb[::stride, ::stride]), "RGB")
            reference = sample.quantize(TRANSPARENT, method=Image.Quantize.MEDIANCUT)
            paletted = image.quantize(palette=reference, dither=Image.Dither.FLOYDSTEINBERG)
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
