"""Replacing a user's file only when they said so, and never losing it: each file the
user agreed to let a job replace (as it was when they agreed: its sha256) is moved into
a hidden folder beside the outputs before the install, where it stays theirs to take
back. A file changed again since is left where it is, and the install refuses it by name
as it refuses any file it may not replace."""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path

from companion.install.tree import sha256_of

ASIDE = ".companion-replaced~"  # hidden from Unity ("~") and, with .gdignore, from Godot
GDIGNORE = ".gdignore"


def aside_folder(target: Path, job_id: str) -> Path:
    return target / ASIDE / job_id


def aside_refusal(target: Path) -> str | None:
    """Why files cannot be set aside in target now: the hidden folder is a link, or not a
    folder, or leads outside target (a move there would take the user's file out of the
    project). None when they can."""
    folder = target / ASIDE
    if not os.path.lexists(folder):
        return None
    if folder.is_symlink() or not folder.is_dir():
        return f"{folder} is a link or not a folder; move it away to replace files"
    if not folder.resolve().is_relative_to(target.resolve()):
        return f"{folder} leads outside {target}; move it away to replace files"
    return None


def settable_aside(path: Path) -> str | None:
    """Why the file at path cannot be moved aside (not a plain file: a folder, a link, a
    FIFO), or None. Only lstat: nothing is opened."""
    if path.is_symlink() or not stat.S_ISREG(path.lstat().st_mode):
        return f"{path} is not a plain file; it cannot be moved aside: move it away yourself"
    return aside_refusal(path.parent)


def set_aside(target: Path, job_id: str, agreed: Mapping[str, str]) -> list[Path]:
    """Moves each agreed file in target that is still as agreed into the job's folder
    under ASIDE; returns where each went. Run again after a crash it finds them moved."""
    moved: list[Path] = []
    folder = aside_folder(target, job_id)
    if aside_refusal(target) is not None:
        return moved  # each stays where it is, and the install refuses it by name
    for path_text, digest in sorted(agreed.items()):
        path = Path(path_text)
        kept = folder / path.name
        if kept.is_file() and not os.path.lexists(path):
            moved.append(kept)  # moved before a crash
            continue
        if path.parent != target or path.is_symlink() or not path.is_file():
            continue
        if sha256_of(path) != digest:
            continue  # changed again since the user agreed: the install refuses it
        folder.mkdir(parents=True, exist_ok=True)
        if aside_refusal(target) is not None:  # swapped for a link meanwhile
            break
        (folder.parent / GDIGNORE).touch()
        path.replace(kept)
        moved.append(kept)
    return moved
