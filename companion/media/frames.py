"""Turn a decoded frame into an output frame: fit, key, letterbox.

Scaling happens in libswscale on the way out of the decoder (one C pass from YUV to
RGBA at the final size), so the keyer and everything after it touch only output-sized
pixels. Pixel art read from its picture is the exception: the clip is keyed at its own
size and each output pixel decided from the block of it the art's grid covers
(companion.media.pixel.snap)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import av
import numpy as np
import numpy.typing as npt
from av.video.reformatter import Interpolation, VideoReformatter

from companion.media.keying.chroma import ChromaKeyer
from companion.media.pixel.art import PixelArt
from companion.media.pixel.snap import PixelPass

RGBA = npt.NDArray[np.uint8]


@dataclass(frozen=True)
class Fit:
    """Where a source of one size sits inside an output box, aspect kept."""

    width: int
    height: int
    x: int
    y: int
    box_width: int
    box_height: int

    @classmethod
    def inside(cls, src_w: int, src_h: int, box_w: int, box_h: int) -> Fit:
        scale = min(box_w / src_w, box_h / src_h)
        width = max(1, min(box_w, round(src_w * scale)))
        height = max(1, min(box_h, round(src_h * scale)))
        return cls(width, height, (box_w - width) // 2, (box_h - height) // 2, box_w, box_h)


def even(value: int) -> int:
    return max(2, value - value % 2)


class FrameShaper:
    def __init__(
        self,
        src_w: int,
        src_h: int,
        box_w: int,
        box_h: int,
        *,
        keyer: ChromaKeyer | None,
        pixel_art: bool,
        source_alpha: bool,
        register: Callable[[RGBA, int], RGBA] | None = None,
        pixel: PixelArt | None = None,
    ) -> None:
        self.fit = Fit.inside(src_w, src_h, box_w, box_h)
        self.keyer = keyer
        # Pixel art with its facts: frames stay the clip's size until the pixel pass.
        self.pixels = (
            PixelPass(pixel, box_w, box_h, src_w / self.fit.width, self.fit.x, self.fit.y)
            if pixel is not None
            else None
        )
        self.source_size = (src_w, src_h)
        upscaling = self.fit.width > src_w
        self.interpolation = (
            Interpolation.POINT
            if pixel_art
            else Interpolation.BICUBIC
            if upscaling
            else Interpolation.AREA
        )
        self.source_alpha = source_alpha
        self.register = register  # in place: the nth frame moved onto the first's core
        # Owned, never shared: frame.reformat() keeps one scaler per frame object, and
        # two threads scaling the same decoded frame through it deadlock.
        self._scaler = VideoReformatter()

    def shape(self, frame: av.VideoFrame) -> RGBA:
        return self.finish(self.scale(frame))

    def scale(self, frame: av.VideoFrame, scaler: VideoReformatter | None = None) -> RGBA:
        """The fitted RGBA pixels; one caller at a time unless each passes a `scaler` of
        its own (the shaper's is not shared)."""
        fit = self.fit
        width, height = self.source_size if self.pixels is not None else (fit.width, fit.height)
        return np.asarray(
            (scaler or self._scaler)
            .reformat(
                frame,
                width=width,
                height=height,
                format="rgba",
                interpolation=self.interpolation,
            )
            .to_ndarray(),
            dtype=np.uint8,
        )

    def finish(self, scaled: RGBA, nth: int = 0) -> RGBA:
        """Key, letterbox and (in place) register already scaled pixels, the nth frame
        shaped; safe on any thread."""
        fit = self.fit
        if self.keyer is not None:
            scaled = self.keyer.apply(scaled)
        if self.pixels is not None:  # registered at the clip's size, then on the grid
            held = scaled if self.register is None else self.register(scaled, nth)
            return self.pixels.apply(np.ascontiguousarray(held), nth)
        if (fit.width, fit.height) == (fit.box_width, fit.box_height):
            out = np.ascontiguousarray(scaled)
        else:
            out = np.zeros((fit.box_height, fit.box_width, 4), dtype=np.uint8)
            out[fit.y : fit.y + fit.height, fit.x : fit.x + fit.width] = scaled
        return out if self.register is None else self.register(out, nth)
