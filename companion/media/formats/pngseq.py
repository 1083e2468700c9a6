"""Frame sequences: frames_zip and the Construct 3 pack share one PNG encode per frame.

Construct 3 makes an animation named after a dropped zip from the images at its root in
name order, so frames are zero-padded and the zip carries the animation's name."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from PIL import Image

from companion.media.formats.common import ARCHIVE_TIME, RGBA, frame_name

PNG_LEVEL = 3


class PngSequenceWriter:
    def __init__(self, name: str, count: int, archives: list[Path]) -> None:
        self.name = name
        self.count = count
        self.paths = archives
        self._zips = [zipfile.ZipFile(path, "w") for path in archives]

    def add(self, index: int, frame: RGBA) -> None:
        buffer = io.BytesIO()
        Image.fromarray(frame, "RGBA").save(buffer, "PNG", compress_level=PNG_LEVEL)
        data = buffer.getvalue()
        for archive in self._zips:
            info = zipfile.ZipInfo(f"{frame_name(self.name, index, self.count)}.png", ARCHIVE_TIME)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_STORED
            archive.writestr(info, data)

    def close(self) -> list[Path]:
        for archive in self._zips:
            archive.close()
        return self.paths
