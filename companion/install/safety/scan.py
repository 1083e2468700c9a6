"""Reading an archive's own bookkeeping against the caps before a library reads it whole.

Python's tarfile reads a pax extended header or a GNU long name/link into memory in one
piece, whatever size its header declares, and zipfile reads the whole central directory
and makes an object per entry. Here the tar headers are walked in 512-byte blocks (the
data between them is skipped in bounded chunks, its declared size counted against the
caps first), and a zip's end record is read to learn the entry count and directory size,
so a bomb in the metadata is refused before anything big is read."""

from __future__ import annotations

import gzip
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from companion.install.errors import ScanError

BLOCK = 512
CHUNK = 1 << 16
REGULAR = frozenset({b"0", b"\x00", b"7"})
FOLDER = b"5"
PAX = frozenset({b"x", b"g"})
GNU_LONG = frozenset({b"L", b"K"})
EOCD = b"PK\x05\x06"
EOCD64_LOCATOR = b"PK\x06\x07"
EOCD64 = b"PK\x06\x06"


class Reader(Protocol):
    def read(self, size: int = ..., /) -> bytes: ...


@dataclass(frozen=True)
class MetaLimits:
    max_entries: int
    max_total_bytes: int
    max_ratio: float
    max_meta_bytes: int = 64 * 1024  # one pax header or GNU long name/link
    max_zip_directory: int = 16 * 2**20


def _number(field: bytes, what: str) -> int:
    if field and field[0] & 0x80:  # base-256, for sizes past the octal field's reach
        if field[0] == 0xFF:
            raise ScanError(f"negative {what} in a tar header")
        return int.from_bytes(bytes([field[0] & 0x7F]) + field[1:], "big")
    text = field.split(b"\x00", 1)[0].strip()
    try:
        return int(text, 8) if text else 0
    except ValueError as exc:
        raise ScanError(f"unreadable {what} {text[:20]!r} in a tar header") from exc


def _checksum_ok(header: bytes) -> bool:
    stored = _number(header[148:156], "checksum")
    blanked = header[:148] + b" " * 8 + header[156:]
    return stored in (sum(blanked), sum(struct.unpack("512b", blanked)))


def _read_exactly(source: Reader, count: int) -> bytes:
    data = source.read(count)
    if len(data) != count:
        raise ScanError("the tar archive ends in the middle of an entry")
    return data


def _skip(source: Reader, count: int) -> None:
    while count:
        data = source.read(min(CHUNK, count))
        if not data:
            raise ScanError("the tar archive ends in the middle of an entry")
        count -= len(data)


def _pax_size(records: bytes) -> int | None:
    """The `size` a pax header sets for the next entry, if it sets one."""
    for line in records.split(b"\n"):
        _, _, record = line.partition(b" ")
        key, sep, value = record.partition(b"=")
        if sep and key == b"size":
            try:
                return int(value)
            except ValueError as exc:
                raise ScanError("a pax header has an unreadable size") from exc
    return None


def scan_tar(path: Path, limits: MetaLimits) -> None:
    """Walk a tar (plain or gzip) header by header; ScanError when a cap is passed."""
    compressed = max(1, path.stat().st_size)
    with path.open("rb") as raw:
        gzipped = raw.read(2) == b"\x1f\x8b"
    opener = gzip.open if gzipped else open
    headers = 0
    total = 0
    size_override: int | None = None
    try:
        with opener(path, "rb") as source:
            while True:
                header = source.read(BLOCK)
                if len(header) < BLOCK or header == b"\x00" * BLOCK:
                    return  # the end (tarfile stops at the same place)
                if not _checksum_ok(header):
                    raise ScanError("a tar header is damaged (bad checksum)")
                headers += 1
                if headers > 2 * limits.max_entries:
                    raise ScanError(f"more than {limits.max_entries} entries")
                kind = header[156:157]
                size = _number(header[124:136], "size")
                padded = -(-size // BLOCK) * BLOCK
                if kind in PAX or kind in GNU_LONG:
                    if size > limits.max_meta_bytes:
                        what = "pax header" if kind in PAX else "GNU long name or link"
                        raise ScanError(
                            f"a {what} of {size} bytes (over {limits.max_meta_bytes}): "
                            "refused before reading it"
                        )
                    records = _read_exactly(source, padded)[:size]
                    if kind == b"x":
                        size_override = _pax_size(records)
                    continue
                if size_override is not None:
                    size, size_override = size_override, None
                    padded = -(-size // BLOCK) * BLOCK
                if kind not in REGULAR and kind != FOLDER:
                    continue  # links and special files: refused by name when extracted
                total += size
                if total > limits.max_total_bytes:
                    raise ScanError(f"more than {limits.max_total_bytes} bytes unpacked")
                if total > 1 << 20 and total / compressed > limits.max_ratio:
                    raise ScanError(
                        f"compression ratio over {limits.max_ratio:g}: refused as a bomb"
                    )
                _skip(source, padded)
    except (OSError, EOFError, zlib.error) as exc:
        raise ScanError(f"the archive is damaged: {exc}") from exc


def scan_zip(path: Path, limits: MetaLimits) -> None:
    """Check a zip's entry count and central directory size from its end records."""
    size = path.stat().st_size
    with path.open("rb") as source:
        tail_size = min(size, 22 + 65535)
        source.seek(size - tail_size)
        tail = source.read(tail_size)
        at = tail.rfind(EOCD)
        if at < 0:
            raise ScanError("the zip archive is damaged (no end record)")
        entries, directory = struct.unpack("<HI", tail[at + 10 : at + 16])
        locator_at = at - 20
        if locator_at >= 0 and tail[locator_at : locator_at + 4] == EOCD64_LOCATOR:
            (offset,) = struct.unpack("<Q", tail[locator_at + 8 : locator_at + 16])
            if offset > size - 56:
                raise ScanError("the zip64 end record points outside the file")
            source.seek(offset)
            record = source.read(56)
            if record[:4] != EOCD64:
                raise ScanError("the zip64 end record is damaged")
            entries, directory = struct.unpack("<QQ", record[32:48])
    if entries > limits.max_entries:
        raise ScanError(f"{entries} entries (over {limits.max_entries})")
    if directory > limits.max_zip_directory:
        raise ScanError(
            f"a central directory of {directory} bytes (over {limits.max_zip_directory})"
        )
