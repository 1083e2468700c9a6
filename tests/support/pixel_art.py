"""Pixel art for the tests, drawn here (no binary assets): a character of five colours
with an outline, hard alpha and 1-pixel eyes, at 16, 32 or 64 pixels or drawn large on a
grid, with the readers that judge frames made from it; and a small sprite drawn at a
whole-pixel scale as frames and as a lossless clip (every pixel of every frame exactly as
drawn), with readers of the colours a file holds."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import av
import numpy as np
import numpy.typing as npt
from PIL import Image

OUTLINE = (58, 36, 92)
BODY = (224, 150, 60)
SHADE = (168, 88, 36)
BELLY = (250, 226, 160)
EYE = (12, 10, 16)
COLOURS = (OUTLINE, BODY, SHADE, BELLY, EYE)


def draw_pixel_character(size: int = 32, grid: int = 1) -> Image.Image:
    """A round creature standing on the bottom of a size-pixel canvas (size / grid art
    pixels a side when drawn at grid x), its eyes one art pixel each."""
    art = size // grid
    ys, xs = np.mgrid[0:art, 0:art].astype(np.float64) + 0.5
    cx, cy = art / 2, art * 0.58
    rx, ry = art * 0.36, art * 0.36
    inside = ((xs - cx) / rx) ** 2 + ((ys - cy) / ry) ** 2 <= 1
    rgba = np.zeros((art, art, 4), dtype=np.uint8)
    rgba[inside] = (*BODY, 255)
    lower = inside & (ys > cy + ry * 0.45)
    rgba[lower] = (*SHADE, 255)
    belly = ((xs - cx) / (rx * 0.5)) ** 2 + ((ys - cy - ry * 0.2) / (ry * 0.4)) ** 2 <= 1
    rgba[belly & inside] = (*BELLY, 255)
    edge = inside & ~_shrunk(inside)
    rgba[edge] = (*OUTLINE, 255)
    for x, y in eyes(art):
        rgba[y, x] = (*EYE, 255)
    big = np.repeat(np.repeat(rgba, grid, axis=0), grid, axis=1)
    return Image.fromarray(big, "RGBA")


def eyes(art: int) -> list[tuple[int, int]]:
    """The eyes' art pixels (x, y) on a canvas art pixels a side."""
    y = round(art * 0.46)
    return [(round(art * 0.40), y), (round(art * 0.60) - 1, y)]


def _shrunk(mask: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
    """The mask less its one-pixel rim (4-neighbours)."""
    inner = mask.copy()
    inner[1:] &= mask[:-1]
    inner[:-1] &= mask[1:]
    inner[:, 1:] &= mask[:, :-1]
    inner[:, :-1] &= mask[:, 1:]
    return inner


def iou(a: npt.NDArray[np.bool_], b: npt.NDArray[np.bool_]) -> float:
    union = np.logical_or(a, b).sum()
    return float(np.logical_and(a, b).sum() / union) if union else 1.0


def off_palette(frame: npt.NDArray[np.uint8], palette: tuple[tuple[int, int, int], ...]) -> int:
    """Opaque pixels of frame whose colour is not one of palette's."""
    opaque = frame[frame[..., 3] > 0][:, :3].astype(np.int32)
    colours = np.array(palette, dtype=np.int32)
    matches = (opaque[:, None, :] == colours[None, :, :]).all(axis=-1).any(axis=1)
    return int((~matches).sum())


def assert_pixel_frames(
    frames: list[npt.NDArray[np.uint8]],
    picture: Image.Image,
    palette: tuple[tuple[int, int, int], ...] = COLOURS,
    grid: int = 1,
    key: tuple[int, int, int] | None = None,
) -> None:
    """Frames made from picture (drawn at grid x) are pixel art: the picture's size,
    every opaque pixel a palette colour, alpha 0 or 255, nothing near the key colour,
    each art pixel one whole block, and the first frame the picture's silhouette (IoU
    0.9 at least) with its eyes."""
    art = np.asarray(picture.convert("RGBA"))
    side = art.shape[0] // grid
    for index, frame in enumerate(frames):
        assert frame.shape == art.shape, (index, frame.shape)
        assert set(np.unique(frame[..., 3]).tolist()) <= {0, 255}, index
        assert off_palette(frame, palette) == 0, index
        if key is not None:
            opaque = frame[frame[..., 3] > 0][:, :3].astype(np.int32)
            assert (np.abs(opaque - np.array(key)).max(axis=1) > 60).all(), index
        blocks = frame.reshape(side, grid, side, grid, 4)
        assert (blocks == blocks[:, :1, :, :1]).all(), (index, "an art pixel split")
    first = frames[0]
    assert iou(first[..., 3] > 0, art[..., 3] > 0) >= 0.9
    if palette == COLOURS:
        for x, y in eyes(side):
            assert tuple(first[y * grid, x * grid, :3]) == EYE, (x, y)


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
