"""A PNG written a few rows at a time is the file Pillow writes for the whole image."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from companion.media.formats.png_stream import PngStream


def _images() -> list[np.ndarray]:
    rng = np.random.default_rng(7)
    noise = rng.integers(0, 256, (23, 41, 4), dtype=np.uint8)
    # Smooth gradients with sparse noise: each filter wins on some row.
    ramp = np.add.outer(np.arange(90), np.arange(70))[..., None] + np.arange(4)
    smooth = (ramp + (rng.random((90, 70, 4)) < 0.05) * 9).astype(np.uint8)
    sprite = np.zeros((64, 3000, 4), dtype=np.uint8)  # wide: several IDAT chunks
    sprite[10:50, ::7] = rng.integers(0, 256, (40, 429, 4), dtype=np.uint8)
    return [noise, smooth, sprite, np.zeros((5, 5, 4), dtype=np.uint8)]


@pytest.mark.parametrize("rows_at_a_time", [1, 6, 1000])
def test_streamed_png_is_pillows_png(tmp_path: Path, rows_at_a_time: int) -> None:
    for number, image in enumerate(_images()):
        whole = io.BytesIO()
        Image.fromarray(image, "RGBA").save(whole, "PNG", compress_level=3)
        stream = PngStream(tmp_path / f"{number}.png", image.shape[1], image.shape[0], 3)
        for top in range(0, image.shape[0], rows_at_a_time):
            part = image[top : top + rows_at_a_time]
            block = stream.rows(part.shape[0])
            block[1:] = part
            stream.write(block)
        assert stream.close().read_bytes() == whole.getvalue(), number


def test_a_short_png_is_refused(tmp_path: Path) -> None:
    stream = PngStream(tmp_path / "short.png", 4, 3, 3)
    stream.write(stream.rows(2))
    with pytest.raises(RuntimeError, match="2 of 3 rows"):
        stream.close()
