"""Depth of a shape: each inside pixel's exact Euclidean distance to the nearest outside
pixel (the distance transform), in NumPy.

In two separable passes: down each column, the distance to the nearest outside pixel of
that column (running maxima and minima of the outside rows' indices); then along each
row, the least of k^2 + column^2 over the pixels k columns away. A pixel's depth is at
most its distance to the outside along its own row or column, so no pixel's nearest
outside point lies more than that bound away: the row pass is a shifted minimum for
each k up to the largest bound, over the box of the pixels whose bound reaches k. The
squared distances are whole numbers, summed exactly, so the result is that of SciPy's
`distance_transform_edt` digit for digit; SciPy itself cost half a second to load in
every process that asked for one frame's depth."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt


def depth(inside: npt.NDArray[np.bool_]) -> npt.NDArray[np.float64]:
    """The distance of each True pixel to the nearest False one (0 on False pixels). The
    first and last row and column must be all False (a ring of outside), so every row
    and column meets the outside."""
    height, width = inside.shape
    column = _to_outside(inside, axis=0)
    bound = np.minimum(column, _to_outside(inside, axis=1))
    reach = int(bound.max(initial=0))
    # Squared distances are below (height^2 + width^2) / 4: 16 bits hold them for boxes
    # of up to 362 px a side (the registration's are at most 258), and halve the memory
    # each shifted minimum reads.
    wide = height * height + width * width >= 4 * 65536
    squared = (column * column).astype(np.int32 if wide else np.uint16)
    best = squared.copy()
    # The pixels whose bound reaches k columns away shrink as k grows: each step works
    # on the box of those only.
    rows_reach, cols_reach = bound.max(axis=1), bound.max(axis=0)
    for k in range(1, reach + 1):
        top, bottom = _span(rows_reach >= k)
        first, last = _span(cols_reach >= k)
        rows = slice(top, bottom)
        # From the pixel k columns to the right, then from the one k columns to the left.
        end = min(last, width - k)
        if end > first:
            ahead = squared[rows, first + k : end + k] + k * k
            np.minimum(best[rows, first:end], ahead, out=best[rows, first:end])
        start = max(first, k)
        if last > start:
            behind = squared[rows, start - k : last - k] + k * k
            np.minimum(best[rows, start:last], behind, out=best[rows, start:last])
    distance: npt.NDArray[np.float64] = np.sqrt(best, dtype=np.float64)
    return distance


def _span(filled: npt.NDArray[np.bool_]) -> tuple[int, int]:
    """[first, last + 1) of the true entries of a line with at least one."""
    where = np.flatnonzero(filled)
    return int(where[0]), int(where[-1]) + 1


def _to_outside(inside: npt.NDArray[np.bool_], axis: int) -> npt.NDArray[np.int32]:
    """Along `axis`, each pixel's distance in pixels to the nearest outside one."""
    size = inside.shape[axis]
    shape = [1, 1]
    shape[axis] = size
    # 16 bits hold every index and sentinel of a registration box, and cost less.
    kind = np.int16 if 2 * size <= np.iinfo(np.int16).max else np.int32
    at = np.arange(size, dtype=kind).reshape(shape)
    before = np.maximum.accumulate(np.where(inside, kind(-size), at), axis=axis)
    flipped = np.flip(np.where(inside, kind(2 * size), at), axis=axis)
    after = np.flip(np.minimum.accumulate(flipped, axis=axis), axis=axis)
    distance: npt.NDArray[np.int32] = np.minimum(at - before, after - at).astype(np.int32)
    return distance
