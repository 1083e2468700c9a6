"""What a watched inbox may hand the daemon, checked without trusting anything in it.

Blocking work (opening, reading, decoding) is done here, in plain functions the watcher
runs on worker threads. Only regular files are ever opened: a FIFO, a device, a socket,
a folder where a file is expected, or a symbolic link (it may point anywhere on the disk)
is refused by its type before anything reads it; files are opened with O_NONBLOCK and
O_NOFOLLOW and checked again with fstat. An image is refused by the size its header
declares (more pixels than is safe to decode: companion.jobs.ask.inputs.MAX_PIXELS) before a
byte of it is decoded; the service's own bound, not shown in the spec, is its to say. A
file that does not decode yet may still be being written: that is `Incomplete`, which
the watcher retries before it declares failure."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from companion.api.schema.images import sniff_image_type
from companion.daemon.errors import DropError, Incomplete
from companion.jobs import FINAL, ImageDamaged, ImageReadError, State, decode_whole
from companion.store import Job

IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".webp"})
MAX_IMAGE_BYTES = 20_000_000  # the service's upload limit
MAX_SIDECAR_BYTES = 64 * 1024


def kind_of(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISFIFO(mode):
        return "a pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def read_regular(path: Path, limit: int, label: str | None = None) -> bytes:
    """The bytes of path if it is a regular file of at most limit bytes; never follows a
    symbolic link and never blocks on a pipe or a device."""
    label = label or path.name
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError as exc:
        raise DropError(f"{label} disappeared before it was read; drop it again") from exc
    if stat.S_ISLNK(mode):
        raise DropError(
            f"{label} is a symbolic link; the inbox takes files, not links to files "
            "elsewhere: copy the picture itself into the inbox"
        )
    if not stat.S_ISREG(mode):
        raise DropError(
            f"{label} is {kind_of(mode)}, not a regular file; drop image files or folders of them"
        )
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    try:
        descriptor = os.open(path, flags)
    except OSError as exc:
        raise DropError(f"{label} cannot be opened ({exc.strerror})") from exc
    with os.fdopen(descriptor, "rb") as source:
        info = os.fstat(source.fileno())
        if not stat.S_ISREG(info.st_mode):  # swapped between the check and the open
            raise DropError(f"{label} is {kind_of(info.st_mode)}, not a regular file")
        if info.st_size > limit:
            raise DropError(f"{label} is {info.st_size} bytes; at most {limit} are taken")
        data = source.read(limit + 1)
    if len(data) > limit:
        raise DropError(f"{label} grew past {limit} bytes; at most {limit} are taken")
    return data


def check_image(data: bytes, label: str) -> None:
    """Refuse what is not a PNG, JPEG or WebP, or declares more pixels than is safe to
    decode, judging the size by the header first; then decode it whole (decode_whole, as
    the command line and the API check theirs)."""
    mime = sniff_image_type(data)
    if mime is None:
        if not data:
            raise Incomplete(f"{label} is empty (still being written?); save it again")
        raise Incomplete(
            f"{label} is not a PNG, JPEG or WebP image (or it was still being written); "
            "save it again as PNG, JPEG or WebP"
        )
    try:
        decode_whole(data, mime, label)
    except ImageDamaged as exc:  # perhaps still being written: worth another look
        raise Incomplete(str(exc)) from exc
    except ImageReadError as exc:
        raise DropError(f"{exc}, and drop it again") from exc


def read_image(path: Path, label: str | None = None) -> bytes:
    """The bytes of an image file the inbox may hand on, or DropError saying why not."""
    label = label or path.name
    if path.suffix.lower() not in IMAGE_SUFFIXES:
        raise DropError(
            f"{label} is not an image (PNG, JPEG or WebP); drop image files or folders of them"
        )
    data = read_regular(path, MAX_IMAGE_BYTES, label)
    check_image(data, label)
    return data


def folder_entries(folder: Path, label: str) -> list[Path]:
    """The images directly in a dropped folder, each a regular file (no links)."""
    try:
        mode = folder.lstat().st_mode
    except FileNotFoundError as exc:
        raise DropError(f"{label} disappeared before it was read; drop it again") from exc
    if stat.S_ISLNK(mode):
        raise DropError(f"{label} is a symbolic link; copy the folder itself into the inbox")
    images = []
    for entry in sorted(folder.iterdir()):
        if entry.suffix.lower() not in IMAGE_SUFFIXES:
            continue
        kind = entry.lstat().st_mode
        if stat.S_ISLNK(kind):
            raise DropError(
                f"{label}/{entry.name} is a symbolic link; copy the picture itself into the folder"
            )
        if not stat.S_ISREG(kind):
            raise DropError(f"{label}/{entry.name} is {kind_of(kind)}, not an image file")
        images.append(entry)
    return images


def probe(path: Path, label: str) -> None:
    """Is the drop whole and acceptable? DropError if never, Incomplete if not yet."""
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        return  # gone: the watcher forgets it
    if stat.S_ISDIR(mode):
        for entry in folder_entries(path, label):
            read_image(entry, f"{label}/{entry.name}")
        return
    read_image(path, label)


def footprint(path: Path) -> tuple[int, float]:
    """Size and latest mtime of a drop (a folder: of everything in it), links unfollowed."""
    own = path.lstat()
    if not stat.S_ISDIR(own.st_mode):
        return own.st_size, own.st_mtime
    size, mtime, count = 0, own.st_mtime, 0
    for folder, names, files in os.walk(path):
        for name in names + files:
            try:
                info = os.lstat(os.path.join(folder, name))  # noqa: PTH118
            except FileNotFoundError:
                continue
            size += info.st_size
            mtime = max(mtime, info.st_mtime)
            count += 1
    return size + count, mtime


def sidecar_text(sidecar: Path, label: str | None = None) -> str | None:
    """A sidecar's text, None when there is none; a folder or a link is an error."""
    label = label or sidecar.name
    try:
        sidecar.lstat()
    except FileNotFoundError:
        return None
    if sidecar.is_dir() and not sidecar.is_symlink():
        raise DropError(
            f"{label} is a folder; settings go in a YAML file of that name "
            "(remove the folder, or rename it)"
        )
    data = read_regular(sidecar, MAX_SIDECAR_BYTES, label)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DropError(f"{label} is not UTF-8 text; save it as UTF-8 YAML") from exc


def earlier_job(jobs: Iterable[Job]) -> Job | None:
    """Which earlier job with the same content and settings a drop should join: a done
    one wins (its outputs are installed); else one still under way; a failed or
    cancelled one never hides either, and alone it is no reason not to try again."""
    candidates = list(jobs)
    done = [j for j in candidates if j.state == State.DONE]
    if done:
        return done[-1]
    active = [j for j in candidates if j.state not in FINAL]
    return active[0] if active else None
