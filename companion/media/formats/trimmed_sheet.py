"""Trimmed spritesheets: each frame cut to its visible pixels, its place in the whole
frame recorded, and identical cuts stored once ("crop, keep position").

Cuts differ in size, so the layout is known only when the last frame has arrived. Frames
are not held meanwhile: each new cut is appended to a spill file in the staging folder
(only its box is remembered), and at close the cuts are laid out on shelves, in the order
they first appeared, and each page is written a shelf at a time from that file. Memory
holds one shelf of pixels, however many frames the animation has.

Every rect keeps the whole frame's size and the cut's offset in it, so the sheet JSON's
`spriteSourceSize`, Godot's AtlasTexture `margin`, Unity's per-sprite pivots and Cocos'
`spriteOffset` put each cut back exactly where it was: nothing jitters."""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from companion.media.formats.common import RGBA, FrameRect, SheetPage, frame_name, page_stem
from companion.media.formats.png_stream import PngStream
from companion.media.formats.sheet import MAX_SHEET_SIDE, NO_SPACING, Spacing


@dataclass(frozen=True)
class Cut:
    """A stored cut: where its bytes are in the spill file, and its size."""

    at: int
    width: int
    height: int


@dataclass(frozen=True)
class Placed:
    page: int
    x: int  # the cut's top-left on its page (inside its extrusion)
    y: int


def visible_box(frame: RGBA) -> tuple[int, int, int, int]:
    """(x, y, width, height) of the pixels with any alpha; a 1x1 box at the origin for a
    frame with none (an engine needs a region of at least one pixel)."""
    alpha = frame[..., 3]
    rows = np.flatnonzero(alpha.any(axis=1))
    if rows.size == 0:
        return 0, 0, 1, 1
    cols = np.flatnonzero(alpha[rows[0] : rows[-1] + 1].any(axis=0))
    return int(cols[0]), int(rows[0]), int(cols[-1] - cols[0] + 1), int(rows[-1] - rows[0] + 1)


def shelves(
    sizes: list[tuple[int, int]], spacing: Spacing, max_side: int
) -> tuple[list[Placed], list[tuple[int, int]]]:
    """Each cut's place, and each page's size: shelves filled left to right in order, a
    page about as wide as it is tall, a new page when one is full."""
    pad, ext = spacing.padding, spacing.extrude
    slots = [(w + 2 * ext + pad, h + 2 * ext + pad) for w, h in sizes]
    area = sum(w * h for w, h in slots)
    widest = max(w for w, _ in slots)
    width = min(max_side - pad, max(widest, math.ceil(math.sqrt(area) * 1.05)))
    placed: list[Placed] = []
    pages: list[tuple[int, int]] = []
    x = y = shelf = used_w = 0
    for slot_w, slot_h in slots:
        if x and x + slot_w > width:  # the shelf is full: start the next one below
            x, y, shelf = 0, y + shelf, 0
        if y + max(shelf, slot_h) > max_side - pad and (x or y):  # the page is full
            pages.append((pad + used_w, pad + y + shelf))
            x = y = shelf = used_w = 0
        placed.append(Placed(len(pages), pad + x + ext, pad + y + ext))
        x += slot_w
        used_w = max(used_w, x)
        shelf = max(shelf, slot_h)
    pages.append((pad + used_w, pad + y + shelf))
    return placed, pages


class TrimmedSheetWriter:
    """Frames in order through add(); close() lays out and writes the pages."""

    def __init__(
        self,
        folder: Path,
        name: str,
        durations: tuple[float, ...],
        frame_w: int,
        frame_h: int,
        spacing: Spacing = NO_SPACING,
        max_side: int = MAX_SHEET_SIDE,
    ) -> None:
        self.folder, self.name, self.durations = folder, name, durations
        self.frame_w, self.frame_h = frame_w, frame_h
        self.spacing, self.max_side = spacing, max_side
        self._spill_path = folder / f".{name}.cuts"
        self._spill = self._spill_path.open("w+b")
        self._cuts: list[Cut] = []
        self._known: dict[bytes, int] = {}  # digest of a cut's pixels -> its cut
        # Per frame: its cut and the cut's offset in the whole frame.
        self._frames: list[tuple[int, int, int]] = []

    def add(self, index: int, frame: RGBA) -> None:
        if index != len(self._frames):
            raise RuntimeError("frames must arrive in order")
        x, y, w, h = visible_box(frame)
        cut = np.ascontiguousarray(frame[y : y + h, x : x + w])
        digest = hashlib.blake2b(cut.tobytes(), digest_size=20, key=b"%dx%d" % (w, h)).digest()
        known = self._known.get(digest)
        if known is None:
            known = self._known[digest] = len(self._cuts)
            self._cuts.append(Cut(self._spill.tell(), w, h))
            self._spill.write(cut.tobytes())
        self._frames.append((known, x, y))

    def close(self) -> list[SheetPage]:
        try:
            if len(self._frames) != len(self.durations):
                raise RuntimeError("spritesheet closed before every frame arrived")
            self._spill.flush()
            return self._write_pages()
        finally:
            self._spill.close()
            self._spill_path.unlink(missing_ok=True)

    def _write_pages(self) -> list[SheetPage]:
        placed, sizes = shelves(
            [(c.width, c.height) for c in self._cuts], self.spacing, self.max_side
        )
        pages = [
            SheetPage(i, self.folder / f"{page_stem(self.name, i, len(sizes))}.png", w, h)
            for i, (w, h) in enumerate(sizes)
        ]
        for index, (cut, x, y) in enumerate(self._frames):
            where, size = placed[cut], self._cuts[cut]
            pages[where.page].frames.append(
                FrameRect(
                    index,
                    frame_name(self.name, index, len(self.durations)),
                    where.page,
                    where.x,
                    where.y,
                    size.width,
                    size.height,
                    self.durations[index],
                    offset_x=x,
                    offset_y=y,
                    source_width=self.frame_w,
                    source_height=self.frame_h,
                )
            )
        spill = np.memmap(self._spill_path, dtype=np.uint8, mode="r") if self._cuts else None
        for page in pages:
            on_page = [i for i, p in enumerate(placed) if p.page == page.index]
            self._write_page(page, on_page, placed, spill)
        return pages

    def _write_page(
        self, page: SheetPage, cuts: list[int], placed: list[Placed], spill: np.memmap | None
    ) -> None:
        """A shelf of rows at a time: each cut with its edge repeated `extrude` pixels."""
        ext = self.spacing.extrude
        png = PngStream(page.path, page.width, page.height)
        top = 0
        while cuts:
            shelf_y = placed[cuts[0]].y - ext
            row = [c for c in cuts if placed[c].y - ext == shelf_y]
            shelved = set(row)  # made once: inside the comprehension it was made per cut
            cuts = [c for c in cuts if c not in shelved]
            if shelf_y > top:  # the padding above this shelf
                png.write(png.rows(shelf_y - top))
            bottom = max(shelf_y + self._cuts[c].height + 2 * ext for c in row)
            bottom = bottom if cuts else page.height  # the last shelf takes the rest
            block = png.rows(bottom - shelf_y)
            for c in row:
                size, where = self._cuts[c], placed[c]
                assert spill is not None
                pixels = spill[size.at : size.at + size.width * size.height * 4]
                part = pixels.reshape(size.height, size.width, 4)
                if ext:
                    part = np.pad(part, ((ext, ext), (ext, ext), (0, 0)), mode="edge")
                left = where.x - ext
                block[1 : 1 + part.shape[0], left : left + part.shape[1]] = part
            png.write(block)
            top = bottom
        if top < page.height:
            png.write(png.rows(page.height - top))
        png.close()
