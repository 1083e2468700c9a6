"""The keyer's colour-cell table may only skip the per-pixel test for colours that test
would key out: checked against the test itself for every one of the 16.7 million
colours."""

from __future__ import annotations

import numpy as np
import pytest

from companion.media.keying.chroma import _CB, _CR, CELL_BITS, ChromaKeyer, _cells, _mix


@pytest.mark.parametrize("key", [(0, 255, 0), (0, 0, 255), (255, 0, 255), (30, 200, 60)])
def test_no_kept_colour_is_in_a_skipped_cell(key: tuple[int, int, int]) -> None:
    keyer = ChromaKeyer(key)
    drop = 8 - CELL_BITS
    levels = np.arange(256, dtype=np.int64)
    green, blue = np.meshgrid(levels, levels, indexing="ij")
    g, b = green.astype(np.float32).ravel(), blue.astype(np.float32).ravel()
    skipped = 0
    for red in range(256):
        # The per-pixel test, as the keyer runs it, on every colour with this red.
        r = np.full(g.shape, red, dtype=np.float32)
        dx = np.subtract(_mix(_CB, r, g, b), keyer._key_cb, dtype=np.float32)
        dy = np.subtract(_mix(_CR, r, g, b), keyer._key_cr, dtype=np.float32)
        kept = np.hypot(dx, dy) > np.float32(keyer._inner)
        # The keyer's own cell index, from the pixels as it reads them, held to the
        # cell's definition: the top bits of r, g and b, in that order.
        rgba = np.empty((256 * 256, 4), dtype=np.uint8)
        rgba[:, 0], rgba[:, 1], rgba[:, 2], rgba[:, 3] = red, green.ravel(), blue.ravel(), 255
        cells = _cells(rgba.view("<u4").reshape(-1)).astype(np.int64)
        wanted = (red >> drop) << (2 * CELL_BITS) | (green >> drop) << CELL_BITS | blue >> drop
        assert np.array_equal(cells, wanted.ravel()), f"red {red}: wrong colour cells"
        in_skipped_cell = ~keyer._may_keep[cells]
        assert not (kept & in_skipped_cell).any(), f"red {red}: a kept colour would be skipped"
        skipped += int(in_skipped_cell.sum())
    # And the table does skip: the colours near the key, most of a green screen.
    assert skipped > 10_000
