"""Sums over the blocks of an image, the one way the media code reduces pixels by blocks.

The blocks are summed as strided views added in place, one add per offset in a block: a
reshape reduced over two axes is several times slower in NumPy (20 times for a mask)."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt


def block_sums(
    values: npt.NDArray[Any], rows: int, cols: int, dtype: npt.DTypeLike
) -> npt.NDArray[Any]:
    """The sums of `values` (height, width[, channels]) over its blocks of rows x cols,
    in `dtype`; its height and width are whole blocks."""
    height, width = values.shape[0] // rows, values.shape[1] // cols
    sums: npt.NDArray[Any] = np.zeros((height, width, *values.shape[2:]), dtype=dtype)
    for dy in range(rows):
        for dx in range(cols):
            sums += values[dy::rows, dx::cols]
    return sums
