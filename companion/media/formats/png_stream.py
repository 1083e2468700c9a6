"""The one PNG encoder of the writers: RGBA PNGs, whole (frames) or a block of rows at a
time (sheet pages), with bounded memory.

Each image (a frame, or a block of a sheet page's rows) takes one PNG filter for all its
rows, computed in numpy: None, Sub or Up, whichever deflates a sample of its rows
smallest. The filtered rows go through zlib-ng at level 4, in one zlib stream kept open
across blocks. Chosen by measurement on this project's own sheets and frames
(bench/png_bench.py, docs/benchmarks.md): against Pillow's per-row filter choice with
zlib at level 3, the writers' former encoder, it takes a fraction of the CPU time for the
same pixels and smaller files. Smooth shading packs best as differences (Sub, Up), while
flat colours (keyed sprites on a box, pixel art) pack best unfiltered, as repeats of the
few colours: the sample tells which the image is. Files are read by every PNG decoder:
only the bytes differ from what Pillow writes."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np
from zlib_ng import zlib_ng

from companion.media.formats.common import RGBA

SIGNATURE = b"\x89PNG\r\n\x1a\n"
LEVEL = 4
MEMORY_LEVEL = 9
NONE, SUB, UP = 0, 1, 2  # PNG filter types: the byte, less its left, less the one above
# The sample a filter is chosen by: bands of this many rows, one in SAMPLE_EVERY, deflated
# as the image is (for three filters, about a fifth of the image's own deflate).
SAMPLE_ROWS = 8
SAMPLE_EVERY = 16
# Compressed data is written in IDAT chunks of this size (any split is valid PNG).
MAX_CHUNK = 1 << 16


def _chunk(kind: bytes, data: bytes | memoryview) -> bytes:
    crc = zlib.crc32(data, zlib.crc32(kind))
    return struct.pack(">I", len(data)) + kind + bytes(data) + struct.pack(">I", crc)


def _header(width: int, height: int) -> bytes:
    fields = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return SIGNATURE + _chunk(b"IHDR", fields)


def _deflater() -> zlib_ng._Compress:
    return zlib_ng.compressobj(LEVEL, zlib.DEFLATED, 15, MEMORY_LEVEL, zlib.Z_FILTERED)


def _filter(above: np.ndarray, rows: np.ndarray, kind: int) -> np.ndarray:
    """The scanlines of `rows` (rows of bytes) as PNG stores them with filter `kind`: a
    filter byte, then the row; `above` is the row above the first."""
    out = np.empty((rows.shape[0], rows.shape[1] + 1), dtype=np.uint8)
    out[:, 0] = kind
    if kind == UP:
        np.subtract(rows[:1], above, out=out[:1, 1:])
        np.subtract(rows[1:], rows[:-1], out=out[1:, 1:])
    elif kind == SUB:  # the first pixel has nothing to its left
        out[:, 1:5] = rows[:, :4]
        np.subtract(rows[:, 4:], rows[:, :-4], out=out[:, 5:])
    else:
        out[:, 1:] = rows
    return out


def _best_filter(above: np.ndarray, rows: np.ndarray) -> int:
    """The filter whose scanlines of a sample of `rows` deflate smallest."""
    tops = range(0, len(rows), SAMPLE_ROWS * SAMPLE_EVERY)
    bands = [(rows[top - 1 : top] if top else above, rows[top : top + SAMPLE_ROWS]) for top in tops]

    def size(kind: int) -> int:
        deflate = _deflater()
        packed = sum(len(deflate.compress(_filter(up, band, kind))) for up, band in bands)
        return packed + len(deflate.flush())

    return min((NONE, SUB, UP), key=size)


def filtered(above: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The scanlines of `rows` (height, width, 4) as this encoder stores them, the filter
    chosen for them; `above` (1, width, 4) is the row above the first."""
    flat, up = rows.reshape(rows.shape[0], -1), above.reshape(1, -1)
    return _filter(up, flat, _best_filter(up, flat))


def encode_png(image: RGBA) -> bytes:
    """A whole RGBA image as PNG bytes."""
    height, width = image.shape[:2]
    above = np.zeros((1, width, 4), dtype=np.uint8)  # as PNG's filters start
    deflate = _deflater()
    data = deflate.compress(filtered(above, image)) + deflate.flush()
    return _header(width, height) + _chunk(b"IDAT", data) + _chunk(b"IEND", b"")


class PngStream:
    """Rows in, top to bottom, through rows(); close() after exactly `height` of them."""

    def __init__(self, path: Path, width: int, height: int) -> None:
        self.path = path
        self.width, self.height = width, height
        self._rows = 0
        self._deflate = _deflater()
        self._pending = bytearray()
        # The row above the next rows; zeros above the first, as PNG's filters start.
        self._above = np.zeros((1, width, 4), dtype=np.uint8)
        self._file = path.open("wb")
        self._file.write(_header(width, height))

    def rows(self, count: int) -> RGBA:
        """A zeroed array of (count + 1, width, 4): fill rows 1..count and pass it to
        write(). Row 0 holds the row above them, which their filters read."""
        block = np.zeros((count + 1, self.width, 4), dtype=np.uint8)
        block[0] = self._above[0]
        return block

    def write(self, block: RGBA) -> None:
        count = block.shape[0] - 1
        if block.shape[1:] != (self.width, 4) or not 0 <= count <= self.height - self._rows:
            raise ValueError("rows do not fit the image")
        if count == 0:
            return
        self._pending += self._deflate.compress(filtered(block[:1], block[1:]))
        self._above = block[-1:].copy()
        self._rows += count
        self._emit(final=False)

    def _emit(self, final: bool) -> None:
        start = 0
        while len(self._pending) - start >= MAX_CHUNK or (final and start < len(self._pending)):
            self._file.write(_chunk(b"IDAT", memoryview(self._pending)[start : start + MAX_CHUNK]))
            start += MAX_CHUNK
        del self._pending[:start]

    def close(self) -> Path:
        if self._rows != self.height:
            self._file.close()
            raise RuntimeError(f"PNG closed after {self._rows} of {self.height} rows")
        self._pending += self._deflate.flush()
        self._emit(final=True)
        self._file.write(_chunk(b"IEND", b""))
        self._file.close()
        return self.path
