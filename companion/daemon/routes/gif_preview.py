"""The status page's GIF preview of a finished job, built from its installed outputs with
caps on everything a hostile output could inflate: the zip's entry count and directory
(read from its end record before zipfile parses it), each entry's bytes (counted as
read), each picture's declared pixels (checked before it is decoded) and the pixels of
all frames together. Frames are shrunk to thumbnails one at a time, so memory stays
small. Over a cap, or unreadable, there is simply no preview."""

from __future__ import annotations

import io
import json
import logging
import warnings
import zipfile
from dataclasses import dataclass
from pathlib import Path

from PIL import Image

from companion.daemon.errors import PreviewRefused
from companion.install import MetaLimits, ScanError, scan_zip
from companion.store import Store

log = logging.getLogger("companion.daemon")
THUMB = (128, 128)


@dataclass(frozen=True)
class Caps:
    max_frames: int = 240
    max_entry_bytes: int = 16 * 2**20
    max_frame_pixels: int = 4096 * 4096
    max_total_pixels: int = 256 * 2**20
    max_sheet_pixels: int = 32 * 2**20  # 128 MiB decoded as RGBA
    max_json_bytes: int = 8 * 2**20


class _Pixels:
    def __init__(self, caps: Caps) -> None:
        self.caps = caps
        self.total = 0

    def admit(self, image: Image.Image, cap: int, what: str) -> None:
        pixels = image.width * image.height  # declared by the header; nothing decoded yet
        if pixels > cap:
            raise PreviewRefused(f"{what}: {image.width}x{image.height} is over the cap")
        self.total += pixels
        if self.total > self.caps.max_total_pixels:
            raise PreviewRefused("the frames together are over the pixel cap")


def _thumb(image: Image.Image) -> Image.Image:
    frame = image.convert("RGBA")
    frame.thumbnail(THUMB)
    return frame


def _from_zip(path: Path, caps: Caps) -> list[Image.Image]:
    try:
        scan_zip(path, MetaLimits(caps.max_frames * 4, 2**40, 1e9))
    except ScanError as exc:
        raise PreviewRefused(str(exc)) from exc
    budget = _Pixels(caps)
    frames: list[Image.Image] = []
    with zipfile.ZipFile(path) as archive:
        infos = sorted((i for i in archive.infolist() if not i.is_dir()), key=lambda i: i.filename)
        for info in infos[: caps.max_frames]:
            if info.file_size > caps.max_entry_bytes:
                raise PreviewRefused(f"{info.filename!r} is over the size cap")
            with archive.open(info) as source:
                data = source.read(caps.max_entry_bytes + 1)  # the header's size may lie
            if len(data) > caps.max_entry_bytes:
                raise PreviewRefused(f"{info.filename!r} is over the size cap")
            with warnings.catch_warnings():  # our own caps judge the size, just below
                warnings.simplefilter("ignore", Image.DecompressionBombWarning)
                image = Image.open(io.BytesIO(data))
            with image:
                budget.admit(image, caps.max_frame_pixels, info.filename)
                frames.append(_thumb(image))
    return frames


def _from_sheet(
    sheet_path: Path, json_path: Path, caps: Caps
) -> tuple[list[Image.Image], list[int]]:
    if json_path.stat().st_size > caps.max_json_bytes:
        raise PreviewRefused("the spritesheet JSON is over the size cap")
    layout = json.loads(json_path.read_text(encoding="utf-8"))
    entries = list(layout["frames"].values())[: caps.max_frames]
    frames: list[Image.Image] = []
    durations: list[int] = []
    with Image.open(sheet_path) as sheet:
        _Pixels(caps).admit(sheet, caps.max_sheet_pixels, sheet_path.name)
        for entry in entries:
            box = entry["frame"]
            left, top = int(box["x"]), int(box["y"])
            cut = sheet.crop((left, top, left + int(box["w"]), top + int(box["h"])))
            frames.append(_thumb(_placed(cut, entry, caps)))
            durations.append(max(10, min(10_000, int(entry.get("duration", 100)))))
    return frames, durations


def _placed(cut: Image.Image, entry: dict[str, object], caps: Caps) -> Image.Image:
    """A trimmed frame put back at its place in the whole frame (`spriteSourceSize` in
    `sourceSize`), so the preview does not jitter; as it is when not trimmed."""
    inner, whole = entry.get("spriteSourceSize"), entry.get("sourceSize")
    if not entry.get("trimmed") or not isinstance(inner, dict) or not isinstance(whole, dict):
        return cut
    width, height = int(whole.get("w", 0)), int(whole.get("h", 0))
    if not 0 < width * height <= caps.max_frame_pixels:
        raise PreviewRefused("a trimmed frame's source size is empty or over the size cap")
    frame = Image.new("RGBA", (width, height))
    frame.paste(cut.convert("RGBA"), (int(inner.get("x", 0)), int(inner.get("y", 0))))
    return frame


def preview_gif(store: Store, job_id: str, cache: Path, caps: Caps | None = None) -> Path | None:
    """A GIF of a finished job, from its installed outputs: its GIF if it has one, else
    built from the spritesheet and its JSON, else from the frames zip."""
    caps = caps or Caps()
    rows = {a.format: a for a in store.assets(job_id) if a.installed_path}
    cached = cache / f"{job_id}.gif"
    if "gif" in rows:
        return Path(rows["gif"].installed_path or "")
    if cached.exists():
        return cached
    frames: list[Image.Image] = []
    durations: list[int] = []
    try:
        if "spritesheet" in rows and "spritesheet_json" in rows:
            frames, durations = _from_sheet(
                Path(rows["spritesheet"].installed_path or ""),
                Path(rows["spritesheet_json"].installed_path or ""),
                caps,
            )
        elif "frames_zip" in rows:
            frames = _from_zip(Path(rows["frames_zip"].installed_path or ""), caps)
            durations = [100] * len(frames)
    except (
        PreviewRefused,
        OSError,
        ValueError,
        KeyError,
        TypeError,
        zipfile.BadZipFile,
        Image.DecompressionBombError,
    ) as exc:
        log.info("job %s: no preview (%s)", job_id, exc)
        return None
    if not frames:
        return None
    cache.mkdir(parents=True, exist_ok=True)
    frames[0].save(
        cached, save_all=True, append_images=frames[1:], duration=durations, loop=0, disposal=2
    )
    return cached
