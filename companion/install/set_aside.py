"""Replacing a user's file only when they said so, and never losing it: each file the
user agreed to let a job replace (as it was when they agreed: its sha256) is moved into
a hidden folder beside the outputs before the install, where it stays theirs to take
back. A file changed again since is left where it is, and the install refuses it by name
as it refuses any file it may not replace."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from companion.install.tree import sha256_of

ASIDE = ".companion-replaced~"  # hidden from Unity ("~") and, with .gdignore, from Godot
GDIGNORE = ".gdignore"


def aside_folder(target: Path, job_id: str) -> Path:
    return target / ASIDE / job_id


def set_aside(target: Path, job_id: str, agreed: Mapping[str, str]) -> list[Path]:
    """Moves each agreed file in target that is still as agreed into the job's folder
    under ASIDE; returns where each went. Run again after a crash it finds them moved."""
    moved: list[Path] = []
    folder = aside_folder(target, job_id)
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
        (folder.parent / GDIGNORE).touch()
        path.replace(kept)
        moved.append(kept)
    return moved
