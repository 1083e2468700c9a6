"""Spritesheets: a grid of frames in RGBA PNG pages no larger than 8192 px a side.

Frames arrive in order. A page is encoded as it fills, one row of frames at a time:
only the frames of the row being filled are held (and a few rows of pixels while they
are compressed), never the page, and compression runs while later frames are still being
decoded (see png_stream).

Optional spacing keeps neighbours apart: each frame's edge pixels can be repeated
outwards (`extrude`), and `padding` transparent pixels separate the extruded slots from
each other and from the sheet's border. Every writer reads the frame rectangles this
layout records, so the JSON, Unity slices, Godot regions, Paper2D and Cocos all agree."""

from __future__ import annotations

import math
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from companion.media.formats.common import RGBA, FrameRect, SheetPage, frame_name, page_stem
from companion.media.formats.png_stream import PngStream

MAX_SHEET_SIDE = 8192
# Rows of a page filtered and compressed at a time: about 2 MB of pixels.
BLOCK_BYTES = 1 << 21


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
        self._png: PngStream | None = None
        self._row: list[RGBA] = []  # the frames of the row of slots being filled
        self._next = 0
        # A full row of slots is encoded on its own thread while the next one fills, so
        # frames keep flowing in; at most one row waits to be encoded.
        self._encoder = ThreadPoolExecutor(1, thread_name_prefix="sheet-png")
        self._encoding: Future[None] | None = None

    def _open_page(self, page: int) -> None:
        grid = self.grids[page]
        stem = page_stem(self.name, page, len(self.grids))
        pad = self.spacing.padding
        width, height = pad + grid.columns * self.pitch_x, pad + grid.rows * self.pitch_y
        self.pages.append(SheetPage(page, self.folder / f"{stem}.png", width, height))
        self._png = PngStream(self.pages[-1].path, width, height)
        self._png.write(self._png.rows(pad))  # the transparent border above the first row

    def add(self, index: int, frame: RGBA) -> None:
        if index != self._next:
            raise RuntimeError("frames must arrive in order")
        self._next += 1
        page = len(self.pages) - 1
        grid = self.grids[page] if page >= 0 else None
        if grid is None or index >= grid.first + grid.count:
            page += 1
            grid = self.grids[page]
            self._open_page(page)
        slot = index - grid.first
        pad, ext = self.spacing.padding, self.spacing.extrude
        x = pad + (slot % grid.columns) * self.pitch_x + ext
        y = pad + (slot // grid.columns) * self.pitch_y + ext
        name = frame_name(self.name, index, len(self.durations))
        self.pages[-1].frames.append(
            FrameRect(index, name, page, x, y, self.cell_w, self.cell_h, self.durations[index])
        )
        self._row.append(frame)
        last = slot == grid.count - 1
        if len(self._row) == grid.columns or last:
            assert self._png is not None
            self._wait()
            self._encoding = self._encoder.submit(self._write_row, self._png, self._row, last)
            self._row = []
            if last:
                self._png = None

    def _wait(self) -> None:
        if self._encoding is not None:
            self._encoding.result()  # raises the encoder's error here
            self._encoding = None

    def _write_row(self, png: PngStream, frames: list[RGBA], last_row: bool) -> None:
        """The pixel rows of one row of slots: each frame with its extruded border, then
        the gap below, written a block of rows at a time; the page is closed after its
        last row."""
        pad, ext = self.spacing.padding, self.spacing.extrude
        slot_w = self.cell_w + 2 * ext
        per_block = max(1, BLOCK_BYTES // (4 * png.width))
        for top in range(0, self.pitch_y, per_block):
            count = min(per_block, self.pitch_y - top)
            block = png.rows(count)
            # Band rows top..top+count; those within the frames' height map to frame
            # rows, the edge rows repeated into the extrusion.
            shown = range(top, min(top + count, self.cell_h + 2 * ext))
            if shown:
                begin, end = shown.start - ext, shown.stop - ext
                source: slice | RGBA = slice(begin, end)
                if begin < 0 or end > self.cell_h:
                    source = np.clip(np.arange(begin, end), 0, self.cell_h - 1)
                rows = slice(1, 1 + len(shown))
                for column, frame in enumerate(frames):
                    part = frame[source]
                    if ext:
                        part = np.pad(part, ((0, 0), (ext, ext), (0, 0)), mode="edge")
                    left = pad + column * self.pitch_x
                    block[rows, left : left + slot_w] = part
            png.write(block)
        if last_row:
            png.close()

    def close(self) -> list[SheetPage]:
        try:
            self._wait()
        finally:
            self._encoder.shutdown()
        if self._next != len(self.durations):
            raise RuntimeError("spritesheet closed before every frame arrived")
        return self.pages
