"""An install tree: the files a job will put in a project, laid out in a staging folder
exactly as they will land, with a manifest that makes the move into place resumable.

The tree is built from the downloads (hard links or copies, so the downloads survive a
crash while it is built) and only then is the manifest written, atomically. Until the
manifest exists a crashed build is thrown away and made again; once it exists, files
are renamed into the project one by one, in the manifest's order, and a file already
gone from the tree has already been moved."""

from __future__ import annotations

import filecmp
import hashlib
import json
import os
import shutil
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Protocol

from companion.install.errors import NotInstallable, UnsafeName
from companion.install.safety.names import inside, make_parents
from companion.install.safety.plain_files import read_plain, sha256_plain

MANIFEST = "install.json"


def sha256_of(path: Path) -> str:
    """A plain file's SHA-256; NotPlainFile (an OSError) for a FIFO, folder or device,
    which would otherwise block or never end."""
    return sha256_plain(path)


_LOCKS: dict[Path, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


def path_lock(path: Path) -> threading.Lock:
    """One lock per project file merged into (a character's SpriteFrames or Animator
    Controller): the set's moves install side by side, and each read-merge-write must
    see the one before it, not race it to a refusal."""
    with _LOCKS_GUARD:
        return _LOCKS.setdefault(path.resolve(), threading.Lock())


def replace_unchanged(path: Path, text: str, was: str | None) -> bool:
    """text into path through a file beside it (never half-written), only while path
    still holds what was read (was: the SHA-256 of those bytes; None: it did not exist).
    False, and nothing written, when an edit was saved meanwhile: it is kept."""
    handle, name = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    temporary = Path(name)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        if (sha256_of(path) if os.path.lexists(path) else None) != was:
            return False
        temporary.replace(path)
        return True
    finally:
        temporary.unlink(missing_ok=True)


def read_with_digest(path: Path) -> tuple[str, str]:
    """A plain text file (no link followed) and the SHA-256 of the very bytes read, for
    replace_unchanged: one read, so the digest is of the text merged."""
    data = read_plain(path, follow=False)
    return data.decode("utf-8"), hashlib.sha256(data).hexdigest()


class Guard(Protocol):
    """Says which existing files may be replaced, and remembers what was written."""

    def refusal(self, final: Path) -> str | None: ...

    def claim(self, final: Path, sha256: str | None = None) -> None: ...


class NewFilesOnly:
    """A guard with no record: nothing that exists is ever replaced."""

    def refusal(self, final: Path) -> str | None:
        return f"{final} already exists" if os.path.lexists(final) else None

    def claim(self, final: Path, sha256: str | None = None) -> None:
        return None


@dataclass(frozen=True)
class Staged:
    """One downloaded output: its format, the name it was given, where it waits."""

    format: str
    name: str
    path: Path


@dataclass
class Tree:
    """Files laid out relative to the target folder, and the order to move them in."""

    root: Path
    order: list[str] = field(default_factory=list)
    outputs: dict[str, str] = field(default_factory=dict)  # download name -> installed rel
    resource: str | None = None  # the engine's path of the playable resource

    def path(self, relative: str) -> Path:
        return self.root / relative

    def has(self, relative: str) -> bool:
        return relative in self.order

    def free_name(self, relative: str, source: Path, tag: str) -> tuple[str, bool]:
        """Where a file may go: its own name, or a tagged one when another file with
        different bytes holds it. The flag says the same bytes are already there."""
        if not self.has(relative):
            return relative, False
        if filecmp.cmp(self.path(relative), source, shallow=False):  # sizes first, then bytes
            return relative, True
        pure = PurePosixPath(relative)
        suffixes = "".join(pure.suffixes)
        stem = pure.name[: len(pure.name) - len(suffixes)] if suffixes else pure.name
        for n in range(1, 1000):
            extra = f"_{tag}" if n == 1 else f"_{tag}{n}"
            candidate = str(pure.with_name(f"{stem}{extra}{suffixes}"))
            if not self.has(candidate):
                return candidate, False
        raise NotInstallable(f"too many files named like {relative}")

    def add(self, relative: str, source: Path, *, link: bool = True) -> None:
        target = self.path(relative)
        target.parent.mkdir(parents=True, exist_ok=True)
        if link:
            try:
                os.link(source, target)
            except OSError:
                shutil.copy2(source, target)
        else:
            source.replace(target)
        self.order.append(relative)

    def write(self, relative: str, text: str) -> None:
        target = self.path(relative)
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.exists():
            target.unlink()  # may be a hard link to a download: never write through it
        target.write_text(text, encoding="utf-8")
        if relative not in self.order:
            self.order.append(relative)

    def final(self, target: Path, relative: str) -> Path:
        """Where relative lands under target, checked now (see names.inside)."""
        try:
            return inside(target, relative)
        except UnsafeName as exc:
            raise NotInstallable(str(exc)) from exc

    def clashes(self, target: Path, guard: Guard) -> list[str]:
        """Why files still to move may not go in (paths outside target, files the
        companion may not replace); empty when all may."""
        reasons = []
        for relative in self.order:
            if not self.path(relative).exists():
                continue  # already moved
            try:
                final = inside(target, relative)
            except UnsafeName as exc:
                reasons.append(str(exc))
                continue
            reason = guard.refusal(final)
            if reason is not None:
                reasons.append(reason)
        return reasons

    def apply(
        self,
        target: Path,
        after_each: Callable[[], None] | None = None,
        guard: Guard | None = None,
    ) -> None:
        """Move every file into target in order; safe to call again after a crash. Each
        path is checked inside target and each replaced file against the guard at the
        moment it is moved."""
        guard = guard or NewFilesOnly()
        for relative in self.order:
            source, final = self.path(relative), self.final(target, relative)
            if source.exists():
                try:
                    make_parents(target, final)
                except UnsafeName as exc:
                    raise NotInstallable(str(exc)) from exc
                final = self.final(target, relative)
                reason = guard.refusal(final)
                if reason is not None:
                    raise NotInstallable(f"{reason}; it is left alone")
                source.replace(final)  # atomic on one filesystem: whole file or nothing
                guard.claim(final)
            elif final.exists():
                guard.claim(final)  # moved before a crash: the record catches up
            else:
                raise NotInstallable(f"{relative} was lost while it was installed; run it again")
            if after_each is not None:
                after_each()

    def seal(self) -> None:
        """Write the manifest; from here on the install only moves files."""
        data = {"order": self.order, "outputs": self.outputs, "resource": self.resource}
        temporary = self.root.parent / (MANIFEST + ".tmp")
        temporary.write_text(json.dumps(data))
        temporary.replace(self.root.parent / MANIFEST)


def load_manifest(folder: Path) -> Tree | None:
    path = folder / MANIFEST
    if not path.exists():
        return None
    data = json.loads(path.read_text())
    return Tree(
        root=folder / "tree",
        order=list(data["order"]),
        outputs=dict(data["outputs"]),
        resource=data.get("resource"),
    )


def strip_common_top(paths: list[PurePosixPath]) -> list[PurePosixPath]:
    """Archives often wrap their files in one folder; the files are what matter."""
    while paths and all(len(p.parts) > 1 for p in paths):
        tops = {p.parts[0] for p in paths}
        if len(tops) != 1:
            break
        paths = [PurePosixPath(*p.parts[1:]) for p in paths]
    return paths
