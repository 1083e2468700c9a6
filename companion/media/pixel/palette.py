"""A palette: the colours pixel art is drawn in, as the art holds them or as a named
palette file gives them (GIMP .gpl, .hex one colour a line, or a PNG swatch), and the
table that maps any colour to its nearest palette colour in OKLab."""

from __future__ import annotations

import io

import numpy as np
import numpy.typing as npt
from PIL import Image

from companion.media.errors import MediaError
from companion.media.keying.chroma import parse_hex_colour
from companion.media.pixel.oklab import oklab

RGB = tuple[int, int, int]
Palette = tuple[RGB, ...]
MAX_COLOURS = 256  # a GIF's, and more than any pixel art is drawn in
# A named palette file is a few kilobytes; past this it is not one.
MAX_PALETTE_BYTES = 2 * 2**20
# The nearest-colour table is indexed by the top bits of each channel: 64 levels a
# channel tell apart colours 4 levels apart, far closer than a palette's own.
TABLE_BITS = 6
_TABLE_CHUNK = 1 << 14  # colours measured against the palette at once (bounded memory)


def parse_colour(text: str, where: str) -> RGB:
    """#rrggbb (or rrggbb) as levels; where names what held it in the error."""
    value = text.strip().lstrip("#")
    if len(value) == 8 and value.lower().startswith("ff"):
        value = value[2:]  # .hex files exported with an opaque alpha first
    return parse_hex_colour(value, f"{where}:")


def checked(colours: list[RGB], where: str) -> Palette:
    """The colours once each, in order; refused when too few or too many."""
    unique = tuple(dict.fromkeys(colours))
    if not 1 <= len(unique) <= MAX_COLOURS:
        raise MediaError(f"{where}: a palette needs 1 to {MAX_COLOURS} colours, not {len(unique)}")
    return unique


def palette_from_hex(colours: list[str], where: str = "palette") -> Palette:
    return checked([parse_colour(c, where) for c in colours], where)


def read_palette(data: bytes, name: str) -> Palette:
    """A named palette file's bytes (name: its path, for its kind and the errors): GIMP
    .gpl, .hex (one #rrggbb a line) or a PNG swatch (its opaque pixels' colours, in
    reading order). Reading the file is the caller's: a plain file, at most
    MAX_PALETTE_BYTES."""
    if name.lower().endswith(".png"):
        return _swatch(data, name)
    text = data.decode("utf-8", errors="replace")
    if name.lower().endswith(".gpl") or text.startswith("GIMP Palette"):
        return _gpl(text, name)
    lines = [line.split(";")[0].strip() for line in text.splitlines()]
    return checked([parse_colour(line, name) for line in lines if line], name)


def _gpl(text: str, where: str) -> Palette:
    colours: list[RGB] = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#") or line.startswith("GIMP") or ":" in line:
            continue  # the header, comments, Name: and Columns:
        parts = line.split()
        try:
            r, g, b = (int(p) for p in parts[:3])
        except ValueError as exc:
            raise MediaError(f"{where}: line {number} is not 'R G B name'") from exc
        if not all(0 <= c <= 255 for c in (r, g, b)):
            raise MediaError(f"{where}: line {number} has a level outside 0 to 255")
        colours.append((r, g, b))
    return checked(colours, where)


def _swatch(data: bytes, name: str) -> Palette:
    try:
        with Image.open(io.BytesIO(data)) as opened:
            if opened.width * opened.height > 4096 * 4096:
                raise MediaError(f"{name}: too large for a palette swatch")
            rgba = np.asarray(opened.convert("RGBA"))
    except (OSError, ValueError, Image.DecompressionBombError) as exc:
        raise MediaError(f"{name}: not a readable PNG ({exc})") from exc
    return checked(colours_of(rgba), name)


def colours_of(rgba: npt.NDArray[np.uint8]) -> list[RGB]:
    """The opaque pixels' colours, once each, in reading order."""
    opaque = rgba[rgba[..., 3] == 255][:, :3]
    packed = (opaque[:, 0].astype(np.int32) << 16) | (opaque[:, 1].astype(np.int32) << 8)
    packed |= opaque[:, 2].astype(np.int32)
    values, first = np.unique(packed, return_index=True)
    ordered = values[np.argsort(first)]
    return [(int(v >> 16) & 255, int(v >> 8) & 255, int(v) & 255) for v in ordered]


def nearest(colours: npt.NDArray[np.floating], palette: Palette) -> npt.NDArray[np.intp]:
    """For each RGB colour (levels, any float) the index of the palette colour nearest it
    in OKLab; measured in chunks, so memory stays small."""
    targets = oklab(np.array(palette, dtype=np.float32))
    found = np.empty(len(colours), dtype=np.intp)
    for at in range(0, len(colours), _TABLE_CHUNK):
        lab = oklab(np.asarray(colours[at : at + _TABLE_CHUNK], dtype=np.float32))
        distance = ((lab[:, None, :] - targets[None, :, :]) ** 2).sum(axis=-1)
        found[at : at + _TABLE_CHUNK] = np.argmin(distance, axis=1)
    return found


def nearest_table(palette: Palette) -> npt.NDArray[np.uint8]:
    """For each colour cell (the top TABLE_BITS of r, g, b) the index of the palette
    colour nearest its centre in OKLab."""
    levels = 1 << TABLE_BITS
    step = 256 // levels
    centre = np.arange(levels, dtype=np.float32) * step + (step - 1) / 2
    grid = np.stack(np.meshgrid(centre, centre, centre, indexing="ij"), axis=-1).reshape(-1, 3)
    return nearest(grid, palette).astype(np.uint8)


def table_index(rgb: npt.NDArray[np.uint8]) -> npt.NDArray[np.intp]:
    """Each pixel's cell in a nearest_table."""
    shift = 8 - TABLE_BITS
    r, g, b = (rgb[..., i].astype(np.intp) >> shift for i in range(3))
    return (r << (2 * TABLE_BITS)) | (g << TABLE_BITS) | b
