"""Spritesheets: a grid of frames in RGBA PNG pages no larger than 8192 px a side.

Frames are pasted into the current page as they arrive and a page is encoded and
dropped as soon as it is full, so at most one page is held in memory.

Optional spacing keeps neighbours apart: each frame's edge pixels can be repeated
outwards (`extrude`), and `padding` transparent pixels separate the extruded slots from
each other and from the sheet's border. Every writer reads the frame rectangles this
layout records, so the JSON, Unity slices, Godot regions, Paper2D and Cocos all agree."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image

from companion.media.formats.common import RGBA, FrameRect, SheetPage, frame_name, page_stem

MAX_SHEET_SIDE = 8192
# zlib level 3 is within a few percent of level 6 on frames like these, at a third the time.
PNG_LEVEL = 3


@dataclass(frozen=True)
class Spacing:
    """Transparent gap between slots and around the sheet, and edge repeats per frame."""

    padding: int = 0
    extrude: int = 0

    def __post_init__(self) -> None:
        if not 0 <= self.padding <= MAX_SPACING or not 0 <= self.extrude <= MAX_SPACING:
            raise ValueError(f"padding and extrude must be 0 to {MAX_SPACING} pixels")


MAX_SPACING = 16
NO_SPACING = Spacing()
# Enough for bilinear filtering without mipmaps: one repeated edge and a clear gap.
DEFAULT_SPACING = Spacing(padding=2, extrude=1)


@dataclass(frozen=True)
class PageGrid:
    first: int
    count: int
    columns: int
    rows: int


def plan_pages(
    count: int, cell_w: int, cell_h: int, max_side: int = MAX_SHEET_SIDE
) -> list[PageGrid]:
    max_cols = max(1, max_side // cell_w)
    max_rows = max(1, max_side // cell_h)
    per_page = max_cols * max_rows
    grids: list[PageGrid] = []
    first = 0
    while first < count:
        n = min(per_page, count - first)
        columns = min(max_cols, math.ceil(math.sqrt(n)))
        rows = math.ceil(n / columns)
        if rows > max_rows:
            columns, rows = max_cols, math.ceil(n / max_cols)
        grids.append(PageGrid(first, n, columns, rows))
        first += n
    return grids


class SheetWriter:
    def __init__(
        self,
        folder: Path,
        name: str,
        durations: tuple[float, ...],
        cell_w: int,
        cell_h: int,
        spacing: Spacing = NO_SPACING,
        max_side: int = MAX_SHEET_SIDE,
    ) -> None:
        self.folder = folder
        self.name = name
        self.durations = durations
        self.cell_w, self.cell_h = cell_w, cell_h
        self.spacing = spacing
        pad, ext = spacing.padding, spacing.extrude
        # A slot is the frame with its extruded border plus the gap on its far side.
        self.pitch_x, self.pitch_y = cell_w + 2 * ext + pad, cell_h + 2 * ext + pad
        self.grids = plan_pages(len(durations), self.pitch_x, self.pitch_y, max_side - pad)
        self.pages: list[SheetPage] = []
        self._canvas: RGBA | None = None
        self._page = -1
        self._filled = 0

    def _open_page(self, page: int) -> None:
        grid = self.grids[page]
        stem = page_stem(self.name, page, len(self.grids))
        pad = self.spacing.padding
        width, height = pad + grid.columns * self.pitch_x, pad + grid.rows * self.pitch_y
        self.pages.append(SheetPage(page, self.folder / f"{stem}.png", width, height))
        self._canvas = np.zeros((height, width, 4), dtype=np.uint8)
        self._page = page
        self._filled = 0

    def add(self, index: int, frame: RGBA) -> None:
        page = next(i for i, g in enumerate(self.grids) if g.first <= index < g.first + g.count)
        if page != self._page:
            self._open_page(page)
        grid = self.grids[page]
        slot = index - grid.first
        pad, ext = self.spacing.padding, self.spacing.extrude
        x = pad + (slot % grid.columns) * self.pitch_x + ext
        y = pad + (slot // grid.columns) * self.pitch_y + ext
        assert self._canvas is not None
        if ext:
            # The frame's border pixels repeated outwards, so linear filtering at the
            # frame's edge samples its own colour rather than a neighbour's.
            self._canvas[y - ext : y + self.cell_h + ext, x - ext : x + self.cell_w + ext] = np.pad(
                frame, ((ext, ext), (ext, ext), (0, 0)), mode="edge"
            )
        else:
            self._canvas[y : y + self.cell_h, x : x + self.cell_w] = frame
        name = frame_name(self.name, index, len(self.durations))
        self.pages[-1].frames.append(
            FrameRect(index, name, page, x, y, self.cell_w, self.cell_h, self.durations[index])
        )
        self._filled += 1
        if self._filled == grid.count:
            self._flush()

    def _flush(self) -> None:
        assert self._canvas is not None
        Image.fromarray(self._canvas, "RGBA").save(
            self.pages[-1].path, "PNG", compress_level=PNG_LEVEL
        )
        self._canvas = None

    def close(self) -> list[SheetPage]:
        if self._canvas is not None:
            raise RuntimeError("spritesheet closed before every frame arrived")
        return self.pages
