"""The hidden staging folder a job downloads into, inside its target (same filesystem,
so moving a finished file in is atomic), and its removal once no job uses it."""

from __future__ import annotations

import contextlib
from pathlib import Path

STAGING = ".companion-staging~"  # hidden from Unity ("~") and, with .gdignore, from Godot
GDIGNORE = ".gdignore"


def job_folder(target: Path, job_id: str) -> Path:
    folder = target / STAGING / job_id
    folder.mkdir(parents=True, exist_ok=True)
    (folder.parent / GDIGNORE).touch()
    return folder


def release_if_unused(target: Path) -> None:
    """Remove the staging folder when it holds no job's folder any more. Another job
    starting meanwhile either keeps it (rmdir refuses a non-empty folder) or makes it
    again (mkdir with parents)."""
    staging = target / STAGING
    try:
        entries = [p.name for p in staging.iterdir()]
    except OSError:
        return
    if any(name != GDIGNORE for name in entries):
        return
    with contextlib.suppress(FileNotFoundError):
        (staging / GDIGNORE).unlink()
    try:
        staging.rmdir()
    except OSError:  # a job came in between: it needs the folder, and Godot the marker
        with contextlib.suppress(OSError):
            (staging / GDIGNORE).touch()
