"""Each keyed frame brought to the art's grid and palette.

The clip is a smooth video of the art, resampled and blurred: every output pixel of the
art's grid is decided from the block of the clip it covers, never blended. Its alpha is
the block's coverage, 0 or 255 (no halo, no key colour left); its colour the palette
colour (nearest in OKLab) most of the middle of the block is nearest to: the middle,
because the clip's blur and ringing lie across the art's edges, so a 1-pixel eye keeps
its colour and a block beside an edge takes its own, never a third colour between.
Where the art stands on the grid is set by the first frame: the character's box there
against the picture's own, so a picture at 4x gives frames at 4x with its blocks where
they were. A later frame whose character would leave the frame there (a stretch, a jump
past the picture's edge) is moved back in, whole art pixels at a time, rather than cut.
An outlined art's rim is drawn in its outline colour on every frame, and its small
features (a colour on a few of its pixels: an eye) are kept where the clip shows them,
though the blur lays a 1-pixel eye across two blocks, neither of them mostly eye."""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from companion.media.pixel.art import PixelArt, rim
from companion.media.pixel.palette import nearest_table, table_index

RGBA = npt.NDArray[np.uint8]
Indices = npt.NDArray[np.intp]
# Samples a side of a block read from the clip, at most (a block many clip pixels wide
# needs no more to find its colours).
MAX_SAMPLES = 6
# The share of a block (a side) its samples are read from: the middle, where the
# clip's blur and ringing across the art's edges do not reach.
INNER = 0.6
# Blocks times palette colours weighed at once: memory stays bounded however large.
BAND_ENTRIES = 1 << 21
OPAQUE = 128  # keyed alpha from which a clip pixel counts as the character's
# The share of a block's samples nearest a small feature's colour (an eye) from which
# the block shows it, when no block beside it shows more of it or has taken it: a
# 1-pixel eye the clip lays across two blocks is kept, in one.
FEATURE_HOLD = 0.15


@dataclass(frozen=True)
class Mapping:
    """Output pixel x, y shows clip pixel (x - at_x) * pitch + from_x (and so for y)."""

    pitch: float
    at_x: float
    at_y: float
    from_x: float
    from_y: float


@dataclass(frozen=True)
class Placed:
    """Where the picture's box lands in the output frame (output pixels)."""

    x0: float
    y0: float
    x1: float
    y1: float


class PixelPass:
    """apply() may run on several threads: the nth frame waits for the first to place
    the art on the grid. fit_pitch, fit_x, fit_y: the frame's own fit of the clip (clip
    pixels an output pixel, where the clip's corner lands), used when the art's box is
    unknown or the first frame shows nothing."""

    def __init__(
        self,
        art: PixelArt,
        out_w: int,
        out_h: int,
        fit_pitch: float,
        fit_x: float,
        fit_y: float,
    ) -> None:
        self.art = art
        self.out_w, self.out_h = out_w, out_h
        self._table = nearest_table(art.palette)
        self._colours = np.array(art.drawn, dtype=np.uint8)  # read in the art's, drawn so
        # Both are colours of the art's palette, drawn as it is (in a named one's, too).
        self._features = np.array(
            [art.palette.index(c) for c in art.features if c in art.palette], dtype=np.intp
        )
        self._outline = (
            self._colours[art.palette.index(art.outline)] if art.outline in art.palette else None
        )
        scale, ox, oy = 1.0, 0.0, 0.0
        if art.size is not None:
            scale = min(out_w / art.size[0], out_h / art.size[1])
            ox, oy = (out_w - art.size[0] * scale) / 2, (out_h - art.size[1] * scale) / 2
        self.cell = max(1, round(art.grid * scale))
        x0, y0 = (art.box[0], art.box[1]) if art.box is not None else (0, 0)
        # The grid starts where the box does (a change of colour is on the grid).
        self._x = round(ox + x0 * scale) % self.cell
        self._y = round(oy + y0 * scale) % self.cell
        self._x -= self.cell if self._x else 0
        self._y -= self.cell if self._y else 0
        self.placed = (
            Placed(*(v * scale + o for v, o in zip(art.box, (ox, oy, ox, oy), strict=True)))
            if art.box is not None and art.size is not None
            else None
        )
        self._fit = Mapping(fit_pitch, fit_x, fit_y, 0.0, 0.0)
        self._mapping: Mapping | None = None
        self._ready = threading.Event()
        self._sampled: dict[tuple[Mapping, int, int, int, int, int], tuple[Indices, Indices]] = {}

    def apply(self, frame: RGBA, nth: int) -> RGBA:
        if nth == 0:
            try:
                self._mapping = self.mapping(frame)
            finally:
                self._ready.set()  # even on an error, so no other frame waits forever
        else:
            self._ready.wait()
        return self.snap(frame, self._mapping or self._fit)

    def mapping(self, first: RGBA) -> Mapping:
        """The clip's character on the picture's box: its box in the first frame (keyed
        alpha) against where the picture's lands in the output, the same pitch both
        ways (the clip keeps the picture's proportions)."""
        placed = self.placed
        if placed is None:
            return self._fit
        shown = first[..., 3] >= OPAQUE
        if shown.all():  # an opaque video: no character to find, the whole frame is it
            return self._fit
        box = _box(shown)
        if box is None or box[2] - box[0] < 2 or box[3] - box[1] < 2:
            return self._fit
        x0, y0, x1, y1 = box
        wide, tall = x1 - x0, y1 - y0
        pitch = float(wide + tall) / ((placed.x1 - placed.x0) + (placed.y1 - placed.y0))
        return Mapping(
            pitch,
            (placed.x0 + placed.x1) / 2,
            (placed.y0 + placed.y1) / 2,
            float(x0 + x1) / 2,
            float(y0 + y1) / 2,
        )

    def snap(self, frame: RGBA, mapping: Mapping) -> RGBA:
        """The frame on the art's grid: one palette colour or transparency a block."""
        cell = self.cell
        if mapping is not self._fit:
            mapping = self._kept_in(frame, mapping)
        columns = math.ceil((self.out_w - self._x) / cell)
        rows = math.ceil((self.out_h - self._y) / cell)
        samples = max(1, min(MAX_SAMPLES, round(mapping.pitch * cell)))
        xs, ys = self._positions(mapping, samples, columns, rows, frame.shape[1], frame.shape[0])
        blocks = np.zeros((rows, columns, 4), dtype=np.uint8)
        shares = np.zeros((rows, columns, len(self._features)), dtype=np.float32)
        band = max(1, BAND_ENTRIES // max(1, columns * max(len(self.art.palette), samples**2)))
        for top in range(0, rows, band):
            band_ys = ys[top * samples : (top + band) * samples]
            blocks[top : top + band], shares[top : top + band] = self._blocks(
                frame, band_ys, xs, samples
            )
        for nth, index in enumerate(self._features):
            self._keep_feature(blocks, shares[..., nth], self._colours[index])
        if self._outline is not None:
            # The clip's blur smears a 1-pixel outline into its neighbours, so the block
            # on the rim may read as the body: the rim is drawn as the art draws it.
            blocks[rim(blocks[..., 3] == 255), :3] = self._outline
        whole = np.repeat(np.repeat(blocks, cell, axis=0), cell, axis=1)
        return np.ascontiguousarray(
            whole[-self._y : -self._y + self.out_h, -self._x : -self._x + self.out_w]
        )

    def _kept_in(self, frame: RGBA, mapping: Mapping) -> Mapping:
        """The mapping moved by whole cells so that this frame's character stays inside
        the frame, as far from its edges as the picture's own margin (up to a cell)."""
        placed = self.placed
        box = _box(frame[..., 3] >= OPAQUE)
        if placed is None or box is None:
            return mapping
        x0, y0, x1, y1 = box
        left = (x0 - mapping.from_x) / mapping.pitch + mapping.at_x
        top = (y0 - mapping.from_y) / mapping.pitch + mapping.at_y
        wide, tall = (x1 - x0) / mapping.pitch, (y1 - y0) / mapping.pitch
        dx = self._back_in(left, wide, self.out_w, placed.x0, self.out_w - placed.x1)
        dy = self._back_in(top, tall, self.out_h, placed.y0, self.out_h - placed.y1)
        if not dx and not dy:
            return mapping
        return replace(mapping, at_x=mapping.at_x + dx, at_y=mapping.at_y + dy)

    def _back_in(self, low: float, length: float, size: int, before: float, after: float) -> int:
        """The shift (output pixels, whole cells) that brings [low, low + length) inside
        [margin, size - margin), each margin the picture's own up to a cell; 0 when it
        is inside already or is too long to be. Half a cell over is inside: the box is
        measured on the clip, to a clip pixel, and the first frame's is the picture's."""
        cell = self.cell
        first = min(float(cell), max(0.0, before)) - cell / 2
        last = size - min(float(cell), max(0.0, after)) + cell / 2
        if length > last - first:
            return 0
        if low < first:
            return math.ceil((first - low) / cell) * cell
        if low + length > last:
            return -math.ceil((low + length - last) / cell) * cell
        return 0

    @staticmethod
    def _keep_feature(blocks: RGBA, share: npt.NDArray[np.float32], colour: RGBA) -> None:
        """Blocks that show enough of a small feature, most of it among their
        neighbours, with none beside them showing it already, take its colour."""
        opaque = blocks[..., 3] == 255
        taken = opaque & np.all(blocks[..., :3] == colour, axis=-1)
        most = _around(np.where(opaque, share, 0), np.maximum)
        near = _around(taken, np.logical_or)
        keep = opaque & ~near & (share >= FEATURE_HOLD) & (share >= most)
        blocks[keep, :3] = colour

    def _positions(
        self, mapping: Mapping, samples: int, columns: int, rows: int, width: int, height: int
    ) -> tuple[Indices, Indices]:
        """The clip pixels every frame's samples read: the same for every frame of one
        mapping and clip size, so worked out once."""
        key = (mapping, samples, columns, rows, width, height)
        known = self._sampled.get(key)
        if known is None:
            known = (
                self._clip_positions(self._x, columns, samples, mapping.at_x, mapping.from_x,
                                     mapping.pitch, width),
                self._clip_positions(self._y, rows, samples, mapping.at_y, mapping.from_y,
                                     mapping.pitch, height),
            )  # fmt: skip
            self._sampled[key] = known  # threads may both work it out: the same answer
        return known

    def _clip_positions(
        self,
        start: int,
        count: int,
        samples: int,
        at: float,
        origin: float,
        pitch: float,
        size: int,
    ) -> npt.NDArray[np.intp]:
        """The clip pixel each sample of each block along one axis reads (-1: outside):
        block j covers output pixels [start + j cell, start + (j + 1) cell), its samples
        spread evenly across its inner part."""
        block, sample = np.divmod(np.arange(count * samples, dtype=np.float64), samples)
        across = (1 - INNER) / 2 + INNER * (sample + 0.5) / samples
        out = start + (block + across) * self.cell
        clip = np.floor((out - at) * pitch + origin).astype(np.intp)
        return np.where((clip >= 0) & (clip < size), clip, -1)

    def _blocks(
        self, frame: RGBA, ys: npt.NDArray[np.intp], xs: npt.NDArray[np.intp], samples: int
    ) -> tuple[RGBA, npt.NDArray[np.float32]]:
        """A band of blocks, and each block's share of samples nearest each feature."""
        rows, columns = len(ys) // samples, len(xs) // samples
        inside = (ys[:, None] >= 0) & (xs[None, :] >= 0)
        read = frame[np.maximum(ys, 0)[:, None], np.maximum(xs, 0)[None, :]]
        read[~inside] = 0
        # (rows, columns, samples a block, 4)
        read = read.reshape(rows, samples, columns, samples, 4).transpose(0, 2, 1, 3, 4)
        read = read.reshape(rows * columns, samples * samples, 4)
        weight = read[..., 3].astype(np.float32) / 255
        coverage = weight.mean(axis=1)
        nearest = self._table[table_index(read[..., :3])].astype(np.intp)
        shades = len(self.art.palette)
        key = nearest + np.arange(rows * columns, dtype=np.intp)[:, None] * shades
        support = np.bincount(
            key.ravel(), weights=weight.ravel(), minlength=rows * columns * shades
        ).reshape(rows * columns, shades)
        chosen = np.argmax(support, axis=1)  # the block's own colour, never a blend
        out = np.zeros((rows * columns, 4), dtype=np.uint8)
        opaque = coverage >= 0.5
        out[opaque, :3] = self._colours[chosen[opaque]]
        out[opaque, 3] = 255
        total = np.maximum(support.sum(axis=1, keepdims=True), 1e-6)
        shares = (support[:, self._features] / total).astype(np.float32)
        return out.reshape(rows, columns, 4), shares.reshape(rows, columns, -1)


def _box(shown: npt.NDArray[np.bool_]) -> tuple[int, int, int, int] | None:
    """The box (x0, y0, x1, y1) of the shown pixels; None when none is."""
    rows, cols = np.flatnonzero(shown.any(axis=1)), np.flatnonzero(shown.any(axis=0))
    if not len(rows) or not len(cols):
        return None
    return int(cols[0]), int(rows[0]), int(cols[-1]) + 1, int(rows[-1]) + 1


def _around(values: npt.NDArray[Any], combine: Any) -> npt.NDArray[Any]:
    """Each cell combined with its eight neighbours (combine: np.maximum, np.logical_or)."""
    padded = np.pad(values, 1)
    height, width = values.shape
    result = values.copy()
    for dy in (0, 1, 2):
        for dx in (0, 1, 2):
            result = combine(result, padded[dy : dy + height, dx : dx + width])
    return result
