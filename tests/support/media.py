"""Test media made here, and readers that check outputs without the project's writers."""

from __future__ import annotations

import io
import zipfile
from fractions import Fraction
from pathlib import Path

import av
import numpy as np
from PIL import Image

KEY = (0, 255, 0)
SRC_W, SRC_H = 320, 240
SRC_FPS = 24
SQUARE = 40


def square_x(index: int) -> int:
    return 20 + 5 * index


def write_index_video(path: Path, frames: int = 48, fps: int = SRC_FPS) -> Path:
    """Green key background with a red square whose x position encodes the frame index."""
    with av.open(str(path), "w") as container:
        stream = container.add_stream("libx264", rate=Fraction(fps))
        stream.width, stream.height = SRC_W, SRC_H
        stream.pix_fmt = "yuv420p"
        stream.options = {"crf": "12", "preset": "veryfast", "g": "12"}
        for i in range(frames):
            rgb = np.zeros((SRC_H, SRC_W, 3), dtype=np.uint8)
            rgb[:] = KEY
            x = square_x(i)
            rgb[100 : 100 + SQUARE, x : x + SQUARE] = (220, 30, 30)
            for packet in stream.encode(av.VideoFrame.from_ndarray(rgb, format="rgb24")):
                container.mux(packet)
        for packet in stream.encode(None):
            container.mux(packet)
    return path


def write_moving_bar(
    path: Path, codec: str, options: dict[str, str], frames: int = 24, size: int = 64
) -> Path:
    """`frames` frames at SRC_FPS of a bright bar moving across a still gradient,
    size x size, in `codec` with its `options` (B-frames, keyframes)."""
    with av.open(str(path), "w") as container:
        stream = container.add_stream(codec, rate=Fraction(SRC_FPS), options=options)
        stream.width, stream.height, stream.pix_fmt = size, size, "yuv420p"
        ramp = (np.arange(size) * 64 // size).astype(np.uint8)[None, :, None]
        for index in range(frames):
            picture = np.full((size, size, 3), 30, dtype=np.uint8) + ramp
            picture[:, index % size : index % size + 6] = 250
            for packet in stream.encode(av.VideoFrame.from_ndarray(picture, format="rgb24")):
                container.mux(packet)
        for packet in stream.encode(None):
            container.mux(packet)
    return path


def source_index_of(frame: np.ndarray, scale: float, x_offset: int = 0) -> int:
    """Recover the source frame index from the red square's left edge in an output frame
    (as shown: where the frame has alpha, its pixels at least half opaque)."""
    rgb = frame[..., :3].astype(int)
    red = (rgb[..., 0] > 150) & (rgb[..., 1] < 100) & (rgb[..., 2] < 100)
    if frame.shape[2] == 4:
        red &= frame[..., 3] >= 128
    columns = np.flatnonzero(red.any(axis=0))
    assert columns.size, "no red square in frame"
    left = (columns[0] - x_offset) / scale
    return round((left - 20) / 5)


def decode_rgba(
    path: Path, decoder: str | None = None
) -> tuple[list[np.ndarray], list[float], str]:
    """All frames as RGBA with their times, decoded by PyAV (libvpx for VP9 alpha)."""
    frames: list[np.ndarray] = []
    times: list[float] = []
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        ctx = None
        if decoder is not None:
            ctx = av.CodecContext.create(decoder, "r")
            ctx.extradata = stream.codec_context.extradata
        pix = ""
        source = (
            (f for p in container.demux(stream) for f in ctx.decode(p))
            if ctx
            else container.decode(stream)
        )
        for frame in source:
            pix = frame.format.name
            frames.append(frame.to_ndarray(format="rgba"))
            times.append(float(frame.pts * stream.time_base))
    return frames, times, pix


def zip_frames(path: Path) -> list[np.ndarray]:
    with zipfile.ZipFile(path) as archive:
        return [
            np.asarray(Image.open(io.BytesIO(archive.read(n))).convert("RGBA"))
            for n in sorted(archive.namelist())
            if n.endswith(".png")
        ]


def spread(values: list[float]) -> float:
    return max(values) - min(values)
