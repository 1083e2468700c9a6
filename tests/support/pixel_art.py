"""Pixel art for the tests: a small sprite of a few colours drawn at a whole-pixel scale
on a clear background, as frames and as a lossless clip (every pixel of every frame
exactly as drawn), and readers of the colours a file holds."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import av
import numpy as np
from PIL import Image

# The art: 16 x 16 pixels, drawn 4 times bigger (64 x 64 frames).
ART = 16
SCALE = 4
SIDE = ART * SCALE
PALETTE = np.array(
    [(34, 32, 52), (217, 87, 99), (251, 242, 54), (99, 155, 255), (106, 190, 48)],
    dtype=np.uint8,
)


def art_frame(index: int) -> np.ndarray:
    """The nth frame, RGBA: a body and a face that steps one art pixel a frame, the rest
    clear (alpha 0, colour 0)."""
    art = np.zeros((ART, ART, 4), dtype=np.uint8)
    step = index % 4
    art[4:14, 3 + step : 11 + step, :3] = PALETTE[0]
    art[5:13, 4 + step : 10 + step, :3] = PALETTE[1 + index % 2]
    art[7:9, 5 + step : 7 + step, :3] = PALETTE[3]
    art[12:14, 2 + step : 4 + step, :3] = PALETTE[4]
    art[..., 3] = np.where(art[..., :3].any(axis=2), 255, 0)
    return art.repeat(SCALE, axis=0).repeat(SCALE, axis=1)


def write_art_clip(path: Path, frames: int = 8, fps: int = 8) -> Path:
    """The frames as a lossless RGBA clip (PNG in QuickTime) at SIDE x SIDE."""
    with av.open(str(path), "w") as container:
        stream = container.add_stream("png", rate=Fraction(fps))
        stream.width, stream.height, stream.pix_fmt = SIDE, SIDE, "rgba"
        for index in range(frames):
            frame = av.VideoFrame.from_ndarray(art_frame(index), format="rgba")
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode(None):
            container.mux(packet)
    return path


def colours(rgba: np.ndarray) -> set[tuple[int, ...]]:
    """The colours of RGBA pixels, every clear pixel (alpha 0) counted as one clear."""
    pixels = rgba.reshape(-1, 4).copy()
    pixels[pixels[:, 3] == 0] = 0
    return {tuple(int(v) for v in p) for p in np.unique(pixels, axis=0)}


def png_colours(path: Path) -> set[tuple[int, ...]]:
    with Image.open(path) as image:
        return colours(np.asarray(image.convert("RGBA")))
