"""The writers' PNG encoder: a PNG written a few rows at a time, or whole, decodes to
exactly the pixels given, whatever filter each part takes, and is no larger than
Pillow's own PNG of the same pixels (the encoder the writers used before)."""

from __future__ import annotations

import io
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from companion.media.formats.png_stream import NONE, SUB, UP, PngStream, encode_png


def _images() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(7)
    noise = rng.integers(0, 256, (23, 41, 4), dtype=np.uint8)
    # Smooth gradients with sparse noise.
    ramp = np.add.outer(np.arange(90), np.arange(70))[..., None] + np.arange(4)
    smooth = (ramp + (rng.random((90, 70, 4)) < 0.05) * 9).astype(np.uint8)
    sprite = np.zeros((64, 3000, 4), dtype=np.uint8)  # wide: several IDAT chunks
    sprite[10:50, ::7] = rng.integers(0, 256, (40, 429, 4), dtype=np.uint8)
    # Pixel art: a few flat colours in blocks of 4x4 pixels.
    palette = rng.integers(0, 256, (6, 4), dtype=np.uint8)
    art = palette[rng.integers(0, 6, (40, 50))].repeat(4, axis=0).repeat(4, axis=1)
    return {
        "noise": noise,
        "smooth": smooth,
        "sprite": sprite,
        "pixel art": art,
        "empty": np.zeros((5, 5, 4), dtype=np.uint8),
    }


def _pixels(data: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(data)).convert("RGBA"))


def _pillow_size(image: np.ndarray) -> int:
    whole = io.BytesIO()
    Image.fromarray(image, "RGBA").save(whole, "PNG", compress_level=3)
    return len(whole.getvalue())


def _row_filters(data: bytes, width: int) -> set[int]:
    """The filter byte of every row, read from the joined IDAT chunks."""
    at, stream = 8, b""
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        if data[at + 4 : at + 8] == b"IDAT":
            stream += data[at + 8 : at + 8 + length]
        at += 12 + length
    lines = zlib.decompress(stream)
    return set(lines[:: 1 + 4 * width])


@pytest.mark.parametrize("rows_at_a_time", [1, 6, 1000])
def test_streamed_png_holds_the_pixels(tmp_path: Path, rows_at_a_time: int) -> None:
    for name, image in _images().items():
        stream = PngStream(tmp_path / f"{name}.png", image.shape[1], image.shape[0])
        for top in range(0, image.shape[0], rows_at_a_time):
            part = image[top : top + rows_at_a_time]
            block = stream.rows(part.shape[0])
            block[1:] = part
            stream.write(block)
        data = stream.close().read_bytes()
        assert np.array_equal(_pixels(data), image), name
        assert len(data) <= 1.05 * _pillow_size(image) + 64, name


def test_whole_png_holds_the_pixels() -> None:
    for name, image in _images().items():
        data = encode_png(image)
        assert np.array_equal(_pixels(data), image), name
        assert len(data) <= 1.05 * _pillow_size(image), name


def test_each_image_takes_the_filter_that_packs_it() -> None:
    images = _images()
    across = np.tile(np.arange(0, 240, 3, dtype=np.uint8)[None, :, None], (30, 1, 4))
    down = np.ascontiguousarray(across.transpose(1, 0, 2))
    assert _row_filters(encode_png(images["pixel art"]), 200) == {NONE}
    assert _row_filters(encode_png(across), 80) == {SUB}
    assert _row_filters(encode_png(down), 30) == {UP}


def test_a_short_png_is_refused(tmp_path: Path) -> None:
    stream = PngStream(tmp_path / "short.png", 4, 3)
    stream.write(stream.rows(2))
    with pytest.raises(RuntimeError, match="2 of 3 rows"):
        stream.close()
