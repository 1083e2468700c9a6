"""An RGBA PNG written a block of rows at a time, byte for byte what Pillow writes when
it saves the whole image at once.

Pillow chooses each row's filter from that row and the one above it (the least sum of
absolute values among None, Sub, Up and Paeth), deflates the filtered rows as one zlib
stream (window 15, memory level 9, Z_FILTERED) and cuts that stream into IDAT chunks of
64 KiB. Here Pillow still does the filtering: each block is saved uncompressed with the
row above it on top, so its first row is filtered exactly as in the whole image, and that
extra row is dropped. The filtered rows go into one zlib stream kept open across blocks,
so only a block is ever in memory and compression runs while later rows are still being
made. zlib's output does not depend on how its input is split. Filtering (most of the
work) runs for a few blocks side by side; compression takes them in order."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator
from pathlib import Path

import numpy as np
from PIL import Image

from companion.media.formats.common import RGBA
from companion.media.pipeline import InOrder

SIGNATURE = b"\x89PNG\r\n\x1a\n"
# Pillow's encoder hands out at most this much compressed data at a time (ImageFile's
# MAXBLOCK, or a row of RGBA when wider), and each hand-out becomes one IDAT chunk.
MAX_BLOCK = 65536
MEMORY_LEVEL = 9  # what Pillow's zip encoder uses
FILTERS = 2  # blocks filtered side by side; at most one more waits


def _chunk(kind: bytes, data: bytes | memoryview) -> bytes:
    crc = zlib.crc32(data, zlib.crc32(kind))
    return struct.pack(">I", len(data)) + kind + bytes(data) + struct.pack(">I", crc)


def filtered_rows(block: RGBA) -> list[memoryview]:
    """The rows of `block` as Pillow filters them for PNG (a filter byte, then the row),
    in order. Pillow's zip encoder at level 0 stores them in uncompressed deflate blocks,
    which are read out here without a copy."""
    stream = Image.fromarray(block, "RGBA").tobytes("zip", "RGBA", 0, 0)
    view = memoryview(stream)
    parts: list[memoryview] = []
    at = 2  # the zlib header
    while True:
        header = stream[at]
        if header & 0b110:  # not a stored block: let zlib read it
            return [memoryview(zlib.decompress(stream))]
        (length,) = struct.unpack_from("<H", stream, at + 1)
        parts.append(view[at + 5 : at + 5 + length])
        at += 5 + length
        if header & 1:  # the final block
            return parts


class PngStream:
    """Rows in, top to bottom, through rows(); close() after exactly `height` of them."""

    def __init__(self, path: Path, width: int, height: int, level: int) -> None:
        self.path = path
        self.width, self.height = width, height
        self._rows = 0
        self._stride = 1 + 4 * width  # filter byte and the row's bytes
        self._block = max(MAX_BLOCK, 4 * width)
        self._deflate = zlib.compressobj(level, zlib.DEFLATED, 15, MEMORY_LEVEL, zlib.Z_FILTERED)
        self._pending = bytearray()
        # The row above the next rows; zeros above the first, as Pillow starts.
        self._above = np.zeros((1, width, 4), dtype=np.uint8)
        self._filtering: InOrder[None, list[memoryview]] = InOrder(FILTERS, "png-filter")
        self._file = path.open("wb")
        header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)  # 8-bit RGBA
        self._file.write(SIGNATURE + _chunk(b"IHDR", header))

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
        self._filtering.submit(None, filtered_rows, block)
        self._above = block[-1:].copy()
        self._rows += count
        self._compress(self._filtering.ready())

    def _compress(self, filtered: Iterator[tuple[None, list[memoryview]]]) -> None:
        """Compress filtered blocks, in order."""
        for _, parts in filtered:
            skip = self._stride  # the row above, written with the block before
            for part in parts:
                if skip >= len(part):
                    skip -= len(part)
                    continue
                self._pending += self._deflate.compress(part[skip:])
                skip = 0
            self._emit(final=False)

    def _emit(self, final: bool) -> None:
        block = self._block
        start = 0
        while len(self._pending) - start >= block or (final and start < len(self._pending)):
            self._file.write(_chunk(b"IDAT", memoryview(self._pending)[start : start + block]))
            start += block
        del self._pending[:start]

    def close(self) -> Path:
        try:
            self._compress(self._filtering.rest())
        finally:
            self._filtering.shutdown()
        if self._rows != self.height:
            raise RuntimeError(f"PNG closed after {self._rows} of {self.height} rows")
        self._pending += self._deflate.flush()
        self._emit(final=True)
        self._file.write(_chunk(b"IEND", b""))
        self._file.close()
        return self.path
