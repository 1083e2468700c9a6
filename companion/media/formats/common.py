"""What every format writer shares: the animation's description and small helpers."""

from __future__ import annotations

import hashlib
import io
import tarfile
import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt

from companion.media.formats.gzip_pieces import gzip_bytes

RGBA = npt.NDArray[np.uint8]

# Archives get a fixed timestamp so the same frames always make the same bytes.
ARCHIVE_TIME = (2020, 1, 1, 0, 0, 0)
ARCHIVE_EPOCH = 1577836800

# Normalised pivots with y pointing down (the spritesheet JSON convention).
PIVOTS: dict[str, tuple[float, float]] = {
    "center": (0.5, 0.5),
    "top_left": (0.0, 0.0),
    "top_center": (0.5, 0.0),
    "top_right": (1.0, 0.0),
    "left_center": (0.0, 0.5),
    "right_center": (1.0, 0.5),
    "bottom_left": (0.0, 1.0),
    "bottom_center": (0.5, 1.0),
    "bottom_right": (1.0, 1.0),
}


@dataclass(frozen=True)
class FrameRect:
    index: int
    name: str
    page: int
    x: int
    y: int
    width: int
    height: int
    duration: float
    # Where these pixels sit in the whole frame, and the whole frame's size: a trimmed
    # frame keeps its position. Zero sizes mean the stored pixels are the whole frame.
    offset_x: int = 0
    offset_y: int = 0
    source_width: int = 0
    source_height: int = 0

    @property
    def source_size(self) -> tuple[int, int]:
        return (self.source_width or self.width, self.source_height or self.height)

    @property
    def trimmed(self) -> bool:
        return (self.offset_x, self.offset_y, *self.source_size) != (
            0,
            0,
            self.width,
            self.height,
        )


@dataclass
class SheetPage:
    index: int
    path: Path
    width: int
    height: int
    frames: list[FrameRect] = field(default_factory=list)


@dataclass(frozen=True)
class Animation:
    """Everything a metadata or pack writer needs, without touching a pixel."""

    name: str
    fps: float
    frame_width: int
    frame_height: int
    durations: tuple[float, ...]
    pivot: str
    pixels_per_unit: float
    pixel_art: bool = False
    pages: tuple[SheetPage, ...] = ()

    @property
    def count(self) -> int:
        return len(self.durations)

    @property
    def total_duration(self) -> float:
        return sum(self.durations)

    @property
    def frames(self) -> list[FrameRect]:
        return sorted((rect for page in self.pages for rect in page.frames), key=_index)

    @property
    def pivot_xy_down(self) -> tuple[float, float]:
        return PIVOTS[self.pivot]

    def frame_name(self, index: int) -> str:
        return frame_name(self.name, index, self.count)


def _index(rect: FrameRect) -> int:
    return rect.index


def frame_name(name: str, index: int, count: int) -> str:
    """Zero-padded so that name order is frame order (Construct 3 relies on it)."""
    digits = max(4, len(str(max(count - 1, 0))))
    return f"{name}_{index:0{digits}d}"


def page_stem(name: str, page: int, pages: int) -> str:
    return name if pages == 1 else f"{name}_p{page}"


def rounded_steps(durations: Sequence[float], unit: float, minimum: int = 0) -> list[int]:
    """Durations in whole units whose running sum tracks the exact running time, so
    rounding never drifts the total (1/24 s as 4,4,5,4,... centiseconds)."""
    steps: list[int] = []
    elapsed = 0.0
    emitted = 0
    for duration in durations:
        elapsed += duration
        step = max(minimum, round(elapsed / unit) - emitted)
        steps.append(step)
        emitted += step
    return steps


def stable_hex(*parts: str, length: int = 32) -> str:
    """A stable identifier from names: the same animation keeps its ids on re-export."""
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:length]


def stable_int64(*parts: str) -> int:
    value = int.from_bytes(hashlib.sha256("\x1f".join(parts).encode()).digest()[:8], "big")
    value &= (1 << 63) - 1
    return value or 1


def write_zip(path: Path, members: Iterable[tuple[str, bytes | Path]]) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        for name, payload in members:
            info = zipfile.ZipInfo(name, ARCHIVE_TIME)
            info.external_attr = 0o644 << 16
            data = payload.read_bytes() if isinstance(payload, Path) else payload
            # PNGs are already deflated; storing them again costs time for nothing.
            info.compress_type = (
                zipfile.ZIP_STORED if name.endswith(".png") else zipfile.ZIP_DEFLATED
            )
            archive.writestr(info, data)


def write_tar_gz(path: Path, members: Iterable[tuple[str, bytes | Path]]) -> None:
    """A tar of members, gzipped on every core, with fixed times: the same members make
    the same bytes."""
    tar = io.BytesIO()
    with tarfile.open(fileobj=tar, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for name, payload in members:
            data = payload.read_bytes() if isinstance(payload, Path) else payload
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mtime = ARCHIVE_EPOCH
            info.mode = 0o644
            archive.addfile(info, io.BytesIO(data))
    with tar.getbuffer() as packed:  # no copy of the tar
        path.write_bytes(gzip_bytes(packed, ARCHIVE_EPOCH))
