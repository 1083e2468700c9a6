"""Frame sequences: frames_zip and the Construct 3 pack share one PNG encode per frame.

Construct 3 (r252 and later) makes an animation from the images at the root of a zip
dropped on its Animations panel, in name order, so frames are zero-padded. It reads
nothing else from the zip: the animation is named after the zip and its Speed stays at
Construct's default. The Construct pack therefore says the speed in its archive comment
(shown by zip tools) and the README tells where to set it."""

from __future__ import annotations

import contextlib
import zipfile
from pathlib import Path

from companion.media.formats.common import ARCHIVE_TIME, RGBA, frame_name
from companion.media.formats.png_stream import encode_png
from companion.media.pipeline import InOrder

# Frames are encoded side by side (numpy and zlib-ng release the GIL) and stored in order; this
# many at most are in hand at once.
ENCODERS = 2


def construct3_comment(fps: float, durations: tuple[float, ...]) -> bytes:
    """What Construct needs to play the frames at their speed, for the person importing."""
    text = (
        "Construct 3: drop this zip on the Animations panel, then set the animation's "
        f"Speed to {fps:g} and Loop to Yes."
    )
    # Construct's per-frame Duration is a multiple of 1/Speed; only odd frames need one.
    odd = [
        f"frame {index} Duration {relative:.3g}"
        for index, relative in enumerate(d * fps for d in durations)
        if abs(relative - 1.0) > 1e-3
    ]
    if odd:
        text += " Set " + ", ".join(odd) + "."
    return text.encode()


class PngSequenceWriter:
    def __init__(
        self, name: str, count: int, archives: list[Path], comments: list[bytes] | None = None
    ) -> None:
        self.name = name
        self.count = count
        self.paths = archives
        self._zips = [zipfile.ZipFile(path, "w") for path in archives]
        for archive, comment in zip(self._zips, comments or [], strict=False):
            archive.comment = comment
        self._encoding: InOrder[int, bytes] = InOrder(ENCODERS, "frame-png")

    def add(self, index: int, frame: RGBA) -> None:
        self._encoding.submit(index, encode_png, frame)
        for done, data in self._encoding.ready():
            self._store(done, data)

    def _store(self, index: int, data: bytes) -> None:
        try:
            for archive in self._zips:
                name = f"{frame_name(self.name, index, self.count)}.png"
                info = zipfile.ZipInfo(name, ARCHIVE_TIME)
                info.external_attr = 0o644 << 16
                info.compress_type = zipfile.ZIP_STORED
                archive.writestr(info, data)
        except OSError:
            self._abandon()
            raise

    def _abandon(self) -> None:
        """Close the archives of a failed write (a full disk) now, so none is left for
        the garbage collector to close, which would print the same error as a traceback."""
        for archive in self._zips:
            with contextlib.suppress(OSError):
                archive.close()

    def close(self) -> list[Path]:
        try:
            for done, data in self._encoding.rest():
                self._store(done, data)
        finally:
            self._encoding.shutdown()
        for archive in self._zips:
            archive.close()
        return self.paths
