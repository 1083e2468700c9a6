"""Synthetic clips with known motion, lossless and with alpha (PNG frames in a .mov):
a character (a torso of its own colour, a head, swinging arms, legs and a sword) under a
camera that shakes and zooms, and clips that settle and then repeat."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from fractions import Fraction
from pathlib import Path

import av
import numpy as np
from PIL import Image, ImageDraw

SIDE = 192
SUPER = 4
FPS = 24
TORSO = (200, 40, 40)
CENTRE = (96.0, 100.0)  # the torso's centre before the camera moves
Point = tuple[float, float]


def write_clip(path: Path, frames: Sequence[np.ndarray], fps: int = FPS) -> Path:
    with av.open(str(path), "w") as container:
        stream = container.add_stream("png", rate=fps)
        stream.width, stream.height = frames[0].shape[1], frames[0].shape[0]
        stream.pix_fmt = "rgba"
        stream.time_base = Fraction(1, fps)
        for index, pixels in enumerate(frames):
            frame = av.VideoFrame.from_ndarray(pixels, format="rgba")
            frame.pts = index
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    return path


def character(
    phase: float, camera: Callable[[Point], Point], scale: float, amplitude: float = 1.0
) -> np.ndarray:
    """The character at a phase of its swing (radians; `amplitude` of the full swing),
    seen through `camera`."""
    # Drawn SUPER times larger and reduced, so edges are antialiased and sizes are not
    # rounded to whole pixels (as a rendered video's are not).
    image = Image.new("RGBA", (SIDE * SUPER, SIDE * SUPER), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    cx, cy = CENTRE

    def at(p: Point) -> Point:
        x, y = camera(p)
        return (x * SUPER, y * SUPER)

    def limb(start: Point, angle: float, length: float, width: float, colour: tuple) -> Point:
        end = (start[0] + length * math.sin(angle), start[1] + length * math.cos(angle))
        draw.line([at(start), at(end)], fill=(*colour, 255), width=round(width * scale * SUPER))
        return end

    swing = amplitude * math.sin(phase)
    for side in (-1, 1):  # legs behind the torso
        limb((cx + side * 9, cy + 22), side * 0.1 + 0.45 * swing * side, 40, 9, (60, 60, 90))
    torso = [(cx - 18, cy - 26), (cx + 18, cy - 26), (cx + 18, cy + 26), (cx - 18, cy + 26)]
    draw.polygon([at(p) for p in torso], fill=(*TORSO, 255))
    head = at((cx, cy - 42))
    radius = 14 * scale * SUPER
    draw.ellipse(
        [head[0] - radius, head[1] - radius, head[0] + radius, head[1] + radius],
        fill=(230, 190, 150, 255),
    )
    for side in (-1, 1):  # arms swing wide, one holds a sword
        hand = limb((cx + side * 20, cy - 22), side * (0.5 + 0.9 * (1 + swing * side)), 34, 6,
                    (70, 90, 200))  # fmt: skip
        if side == 1:
            limb(hand, 2.4 + 0.8 * swing, 56, 3, (220, 220, 230))
    return np.asarray(image.resize((SIDE, SIDE), Image.Resampling.BOX))


def shaky_frames(count: int = 36, seed: int = 7) -> list[np.ndarray]:
    """The character walking under a camera shaking +-14 px and zooming over 10 %."""
    rng = random.Random(seed)
    frames = []
    for index in range(count):
        zoom = 1.0 + 0.10 * (0.5 - 0.5 * math.cos(2 * math.pi * index / count))
        dx, dy = rng.uniform(-14, 14), rng.uniform(-14, 14)
        if index == 0:
            zoom, dx, dy = 1.0, 0.0, 0.0

        def camera(p: Point, zoom: float = zoom, dx: float = dx, dy: float = dy) -> Point:
            return (96 + zoom * (p[0] - 96) + dx, 96 + zoom * (p[1] - 96) + dy)

        frames.append(character(2 * math.pi * index / 12, camera, zoom))
    return frames


def settling_frames(settle: int = 6, period: int = 12, cycles: int = 3) -> list[np.ndarray]:
    """A still first pose drifting for `settle` frames into a swing that then repeats
    every `period` frames (the first frame never comes back)."""
    frames = []
    for index in range(settle + period * cycles):
        if index < settle:  # from the still, off to one side, into the cycle's start
            share = index / settle
            phase, shift = -4.0 * (1 - share), 40 * (1 - share)
        else:
            phase, shift = 2 * math.pi * (index - settle) / period, 0.0

        def camera(p: Point, shift: float = shift) -> Point:
            return (p[0] + shift, p[1])

        frames.append(character(phase, camera, 1.0, 0.12))
    return frames


def torso_box(frame: np.ndarray) -> tuple[float, float, float]:
    """(centre x, centre y, size) of the torso's colour in a frame: the centroid of its
    pixels and the square root of their area, both steady to a fraction of a pixel where
    a bounding box jumps by whole pixels at antialiased edges."""
    rgb = frame[..., :3].astype(int)
    close = (np.abs(rgb - np.array(TORSO)).sum(axis=2) < 90) & (frame[..., 3] > 128)
    ys, xs = np.nonzero(close)
    return float(xs.mean()), float(ys.mean()), float(np.sqrt(close.sum()))
