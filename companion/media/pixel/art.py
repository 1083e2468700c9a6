"""Pixel art recognised in a picture: hard alpha, few colours, square blocks of one
colour on a grid (a sprite drawn at 2x, 3x or 4x), and the box its opaque pixels fill.
One typed shape (PixelArt) travels from the picture, read when a job is asked for, to
the export of its frames, through the job's local export as plain JSON."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt
from PIL import Image

from companion.media.errors import MediaError
from companion.media.keying.key_pick import hex_colour
from companion.media.pixel.palette import (
    MAX_COLOURS,
    RGB,
    Palette,
    nearest,
    palette_from_hex,
    parse_colour,
)

RGBA = npt.NDArray[np.uint8]
# Past this many colours a picture is painted (or anti-aliased), not pixel art.
ART_COLOURS = 64
POSTER_COLOURS = 32  # a painted picture asked for pixel art is drawn in this many
MAX_GRID = 16  # picture pixels a side of one art pixel, at most
# The share of the silhouette's rim in one colour from which the art is outlined: the
# rim of every frame is then drawn in it, as the artist drew the picture's.
OUTLINE_SHARE = 0.85
# A colour on at most this share of the art's opaque pixels draws a small feature (an
# eye, a buckle): one a frame's blur would lose, kept where the clip shows it.
FEATURE_SHARE = 0.03


@dataclass(frozen=True)
class PixelArt:
    """palette: the art's colours, which every frame is read in. named: a palette the
    user named, in which each of the art's colours is drawn as its nearest (OKLab), so
    the art is recoloured, one colour for one (None: drawn in its own). grid: picture
    pixels a side of one art pixel (1, or 2, 3, 4 for art drawn large). size: the picture's size
    and box: the box (x0, y0, x1, y1) its opaque pixels fill, when read from a picture
    (they place the clip's character on the art's grid; None: the frame's own grid).
    outline: the colour of the silhouette's rim when the art is outlined (None: not).
    features: the art's colours of small features (see FEATURE_SHARE)."""

    palette: Palette
    grid: int = 1
    size: tuple[int, int] | None = None
    box: tuple[int, int, int, int] | None = None
    outline: RGB | None = None
    features: tuple[RGB, ...] = ()
    named: Palette | None = None

    def with_palette(self, palette: Palette | None) -> PixelArt:
        """These facts drawn in a named palette (None: as they are)."""
        if palette is None:
            return self
        return replace(self, named=palette)

    @property
    def drawn(self) -> Palette:
        """The colour each of the palette's is drawn in."""
        if self.named is None:
            return self.palette
        found = nearest(np.array(self.palette, dtype=np.float32), self.named)
        return tuple(self.named[int(i)] for i in found)

    def as_json(self) -> dict[str, Any]:
        said: dict[str, Any] = {"palette": [hex_colour(c) for c in self.palette], "grid": self.grid}
        if self.size is not None:
            said["size"] = list(self.size)
        if self.box is not None:
            said["box"] = list(self.box)
        if self.outline is not None:
            said["outline"] = hex_colour(self.outline)
        if self.features:
            said["features"] = [hex_colour(c) for c in self.features]
        if self.named is not None:
            said["named"] = [hex_colour(c) for c in self.named]
        return said

    @classmethod
    def of_json(cls, said: Mapping[str, Any]) -> PixelArt:
        """The facts a job's local export keeps (see as_json)."""
        try:
            palette = palette_from_hex([str(c) for c in said["palette"]], "pixel.palette")
            grid = int(said.get("grid", 1))
            size = said.get("size")
            box = said.get("box")
            outline = said.get("outline")
            return cls(
                palette,
                max(1, min(MAX_GRID, grid)),
                (int(size[0]), int(size[1])) if size else None,
                (int(box[0]), int(box[1]), int(box[2]), int(box[3])) if box else None,
                parse_colour(str(outline), "pixel.outline") if outline else None,
                tuple(parse_colour(str(c), "pixel.features") for c in said.get("features") or ()),
                palette_from_hex([str(c) for c in said["named"]], "pixel.named")
                if said.get("named")
                else None,
            )
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise MediaError(f"pixel: not pixel-art facts ({exc})") from exc


def art_of(rgba: RGBA, palette: Palette | None = None) -> PixelArt:
    """The pixel art a picture is asked to be: its own when it is pixel art, else its
    colours cut down to a few (a painted picture asked for pixel art), with a named
    palette in place of either when given."""
    found = read_art(rgba)
    if found is None:
        shown = rgba[..., 3] >= 128
        ys, xs = np.nonzero(shown)
        box = None
        if len(xs):
            box = (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1)
        height, width = shown.shape
        found = PixelArt(_posterised(rgba, shown), 1, (width, height), box)
    return found.with_palette(palette)


def _posterised(rgba: RGBA, shown: npt.NDArray[np.bool_]) -> Palette:
    """A painted picture's visible colours cut down to POSTER_COLOURS (median cut)."""
    visible = rgba[..., :3][shown] if shown.any() else rgba[..., :3].reshape(-1, 3)
    strip = Image.fromarray(np.ascontiguousarray(visible).reshape(1, -1, 3), "RGB")
    cut = strip.quantize(POSTER_COLOURS, method=Image.Quantize.MEDIANCUT).convert("RGB")
    counted: list[tuple[int, tuple[int, ...] | float]] = list(cut.getcolors(POSTER_COLOURS) or [])
    counted.sort(key=lambda pair: -pair[0])
    return tuple(_rgb(colour) for _, colour in counted)


def _rgb(colour: tuple[int, ...] | float) -> tuple[int, int, int]:
    if not isinstance(colour, tuple):  # never for RGB: one level is a grey
        return int(colour), int(colour), int(colour)
    return int(colour[0]), int(colour[1]), int(colour[2])


def read_art(rgba: RGBA) -> PixelArt | None:
    """The picture's pixel art, or None when it is not pixel art: alpha other than 0 and
    255, more than ART_COLOURS colours, or none opaque."""
    alpha = rgba[..., 3]
    if np.any((alpha > 0) & (alpha < 255)):
        return None
    if not np.any(alpha == 255):
        return None
    shown = rgba.copy()
    shown[alpha == 0] = 0  # what hides under transparent pixels does not count
    counted = _few_colours(shown)
    if counted is None:
        return None
    colours, counts = counted
    ys, xs = np.nonzero(alpha == 255)
    box = (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1)
    height, width = alpha.shape
    outline = _outline(shown)
    small = tuple(
        c for c, n in zip(colours, counts, strict=True)
        if n <= FEATURE_SHARE * len(xs) and c != outline and len(colours) > 1
    )  # fmt: skip
    return PixelArt(colours, grid_of(shown), (width, height), box, outline, small)


def rim(opaque: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
    """The opaque cells with a clear one beside them (4-neighbours); beyond the edge
    counts as opaque, so a character cut by the frame gets no rim along it."""
    padded = np.pad(opaque, 1, constant_values=True)
    inner = padded[:-2, 1:-1] & padded[2:, 1:-1] & padded[1:-1, :-2] & padded[1:-1, 2:]
    return opaque & ~inner


def _outline(shown: RGBA) -> RGB | None:
    """The colour the art's silhouette is outlined in, when most of its rim is one."""
    edge = shown[rim(shown[..., 3] == 255)]
    if not len(edge):
        return None
    values, counts = np.unique(edge[:, :3], axis=0, return_counts=True)
    top = int(np.argmax(counts))
    if counts[top] < OUTLINE_SHARE * len(edge):
        return None
    return _rgb(tuple(int(v) for v in values[top]))


def _few_colours(shown: RGBA) -> tuple[Palette, tuple[int, ...]] | None:
    """The opaque colours, most used first, and how many pixels each, when few enough."""
    opaque = shown[shown[..., 3] == 255]
    packed = opaque[:, :3].astype(np.int32) @ np.array([1 << 16, 1 << 8, 1], dtype=np.int32)
    values, counts = np.unique(packed, return_counts=True)
    if len(values) > min(ART_COLOURS, MAX_COLOURS):
        return None
    ranked = np.argsort(-counts, kind="stable")
    colours = tuple((int(v >> 16) & 255, int(v >> 8) & 255, int(v) & 255) for v in values[ranked])
    return colours, tuple(int(n) for n in counts[ranked])


def grid_of(shown: RGBA) -> int:
    """Picture pixels a side of one art pixel: every run of one colour along a row or a
    column starts on the same grid, so the grid divides every gap between two changes
    (a 1x picture has changes a pixel apart). The grid starts where the box does."""
    packed = shown.astype(np.uint32)
    flat = packed[..., 0] << 24 | packed[..., 1] << 16 | packed[..., 2] << 8 | packed[..., 3]
    columns = np.flatnonzero(np.any(flat[:, 1:] != flat[:, :-1], axis=0)) + 1
    rows = np.flatnonzero(np.any(flat[1:, :] != flat[:-1, :], axis=1)) + 1
    grid = 0
    for changes in (columns, rows):
        if len(changes) >= 2:
            grid = math.gcd(grid, int(np.gcd.reduce(np.diff(changes))))
    return max(1, min(MAX_GRID, grid)) if grid else 1
