"""Extract an archive the service returned, defensively.

Every entry name is checked before anything is written: no absolute paths, no drive
letters, no `..`, no backslash tricks, and the resolved target must stay inside the
destination. Only regular files and folders are accepted: symbolic links, hard links
and device or FIFO entries are refused. Metadata is counted against the caps before a
library reads it (see scan.py); sizes are counted as bytes are actually read, not as
headers claim, against caps on entries, total bytes and compression ratio (zip and tar
bombs). Everything is extracted into a staging folder beside the destination and moved
in only when the whole archive passed, so a refused archive leaves nothing behind."""

from __future__ import annotations

import shutil
import stat
import tarfile
import tempfile
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO

from companion.install.errors import ArchiveError, ScanError, UnsafeName
from companion.install.safety.names import inside, make_parents, relative_path
from companion.install.safety.scan import MetaLimits, scan_tar, scan_zip

CHUNK = 1 << 16


@dataclass(frozen=True)
class Limits:
    max_entries: int = 10_000
    max_total_bytes: int = 2 * 2**30
    max_ratio: float = 200.0  # uncompressed / compressed, for the whole archive
    max_meta_bytes: int = 64 * 1024  # one pax header or GNU long name, read whole by tarfile

    def meta(self) -> MetaLimits:
        return MetaLimits(
            self.max_entries, self.max_total_bytes, self.max_ratio, self.max_meta_bytes
        )


def safe_name(name: str) -> PurePosixPath:
    """The entry's relative path, or ArchiveError if it could land anywhere else."""
    try:
        return relative_path(name)
    except UnsafeName as exc:
        raise ArchiveError(f"entry {exc}") from exc


def _target(root: Path, name: str) -> Path:
    target = (root / safe_name(name)).resolve()
    if not target.is_relative_to(root.resolve()):
        raise ArchiveError(f"entry {name!r}: resolves outside the destination")
    return target


class _Budget:
    def __init__(self, limits: Limits, compressed: int) -> None:
        self.limits = limits
        self.compressed = max(1, compressed)
        self.total = 0
        self.entries = 0

    def entry(self, name: str) -> None:
        self.entries += 1
        if self.entries > self.limits.max_entries:
            raise ArchiveError(f"more than {self.limits.max_entries} entries (at {name!r})")

    def bytes(self, count: int, name: str) -> None:
        self.total += count
        if self.total > self.limits.max_total_bytes:
            raise ArchiveError(
                f"more than {self.limits.max_total_bytes} bytes unpacked (at {name!r})"
            )
        if self.total > 1 << 20 and self.total / self.compressed > self.limits.max_ratio:
            raise ArchiveError(
                f"compression ratio over {self.limits.max_ratio:g} (at {name!r}): refused as a bomb"
            )


def _copy(source: IO[bytes], target: Path, budget: _Budget, name: str) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("xb") as sink:
        while chunk := source.read(CHUNK):
            budget.bytes(len(chunk), name)
            sink.write(chunk)


def _zip(archive: Path, root: Path, limits: Limits) -> None:
    budget = _Budget(limits, archive.stat().st_size)
    with zipfile.ZipFile(archive) as bundle:
        for info in bundle.infolist():
            budget.entry(info.filename)
            mode = info.external_attr >> 16
            if stat.S_ISLNK(mode):
                raise ArchiveError(f"entry {info.filename!r}: a symbolic link")
            kind = stat.S_IFMT(mode)  # 0 when the archiver recorded no file type
            if kind and kind not in (stat.S_IFREG, stat.S_IFDIR):
                raise ArchiveError(f"entry {info.filename!r}: not a regular file")
            target = _target(root, info.filename)
            if info.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            with bundle.open(info) as source:
                _copy(source, target, budget, info.filename)


def _tar(archive: Path, root: Path, limits: Limits) -> None:
    budget = _Budget(limits, archive.stat().st_size)
    with tarfile.open(archive, "r:*") as bundle:
        for member in bundle:
            budget.entry(member.name)
            if member.issym() or member.islnk():
                raise ArchiveError(f"entry {member.name!r}: a link")
            if not (member.isfile() or member.isdir()):
                raise ArchiveError(f"entry {member.name!r}: a device, FIFO or other special file")
            target = _target(root, member.name)
            if member.isdir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            source = bundle.extractfile(member)
            if source is None:
                raise ArchiveError(f"entry {member.name!r}: unreadable")
            with source:
                _copy(source, target, budget, member.name)


def kind_of(archive: Path) -> str:
    with archive.open("rb") as source:
        head = source.read(512)
    if head.startswith(b"PK\x03\x04") or head.startswith(b"PK\x05\x06"):
        return "zip"
    if head.startswith(b"\x1f\x8b") or head[257:262] == b"ustar":
        return "tar"
    raise ArchiveError(f"{archive.name} is neither a zip nor a tar archive")


@contextmanager
def _staging(dest: Path) -> Iterator[Path]:
    dest.parent.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix=f".{dest.name}.extract-", dir=dest.parent))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def extract(archive: Path, dest: Path, limits: Limits | None = None) -> list[Path]:
    """Extract into dest (created if needed); returns the files now in place."""
    limits = limits or Limits()
    kind = kind_of(archive)
    try:
        (scan_zip if kind == "zip" else scan_tar)(archive, limits.meta())
    except ScanError as exc:
        raise ArchiveError(f"{archive.name}: {exc}") from exc
    with _staging(dest) as staging:
        try:
            (_zip if kind == "zip" else _tar)(archive, staging, limits)
        except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError) as exc:
            if isinstance(exc, FileExistsError):
                raise ArchiveError(f"{archive.name}: an entry appears twice") from exc
            raise ArchiveError(f"{archive.name} is damaged: {exc}") from exc
        dest.mkdir(parents=True, exist_ok=True)
        placed = []
        for path in sorted(p for p in staging.rglob("*") if p.is_file()):
            try:
                target = inside(dest, path.relative_to(staging).as_posix())
                make_parents(dest, target)
            except UnsafeName as exc:
                raise ArchiveError(f"{archive.name}: {exc}") from exc
            path.replace(target)
            placed.append(target)
        return placed
