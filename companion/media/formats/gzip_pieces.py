"""gzip with its deflate spread over the cores, and the same bytes for the same input.

The input is cut into pieces of at least 1 MiB (how many depends only on its size, so
every machine writes the same bytes); each piece is deflated on its own thread
with the 32 KiB before it as its dictionary, so it compresses about as well as one
stream would, and the pieces are joined into one deflate stream by ending all but the
last with a sync flush (the method pigz uses). zlib releases the GIL while it works. The
header carries a fixed time and no name, so the bytes depend only on the input."""

from __future__ import annotations

import os
import struct
import zlib
from concurrent.futures import ThreadPoolExecutor

WINDOW = 1 << 15  # deflate's reach back: the dictionary a piece may use
PIECE = 1 << 20
MAX_PIECES = 8
LEVEL = 9
OS_UNIX = 3
EXTRA_FLAGS = 2  # "maximum compression", what gzip writes at level 9


def gzip_bytes(data: bytes | memoryview, mtime: int, level: int = LEVEL) -> bytes:
    """One gzip member holding data."""
    view = memoryview(data)
    count = max(1, min(MAX_PIECES, len(view) // PIECE))
    bounds = [len(view) * i // count for i in range(count + 1)]
    if count == 1:
        deflated = [_deflate(view, 0, len(view), level, last=True)]
    else:
        workers = min(count, os.cpu_count() or 1)
        with ThreadPoolExecutor(workers, thread_name_prefix="gzip") as pool:
            jobs = [
                pool.submit(_deflate, view, bounds[i], bounds[i + 1], level, i == count - 1)
                for i in range(count)
            ]
            deflated = [job.result() for job in jobs]
    header = b"\x1f\x8b\x08\x00" + struct.pack("<IBB", mtime, EXTRA_FLAGS, OS_UNIX)
    trailer = struct.pack("<II", zlib.crc32(view), len(view) & 0xFFFFFFFF)
    return header + b"".join(deflated) + trailer


def _deflate(data: memoryview, start: int, end: int, level: int, last: bool) -> bytes:
    if start > 0:
        dictionary = bytes(data[max(0, start - WINDOW) : start])
        deflate = zlib.compressobj(level, zlib.DEFLATED, -15, zdict=dictionary)
    else:
        deflate = zlib.compressobj(level, zlib.DEFLATED, -15)
    out = deflate.compress(data[start:end])
    return out + deflate.flush(zlib.Z_FINISH if last else zlib.Z_SYNC_FLUSH)
