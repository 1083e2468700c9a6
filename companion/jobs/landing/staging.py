"""The hidden staging folder a job downloads into, inside its target (same filesystem,
so moving a finished file in is atomic), and its removal once no job uses it."""

from __future__ import annotations

import contextlib
from pathlib import Path

from companion.jobs.errors import StagingRefused

STAGING = ".companion-staging~"  # hidden from Unity ("~") and, with .gdignore, from Godot
GDIGNORE = ".gdignore"


def job_folder(target: Path, job_id: str) -> Path:
    """The job's staging folder, made if missing; never one reached through a link
    planted in the target (StagingRefused). OSError when it cannot be made."""
    folder = target / STAGING / job_id
    for step in (folder.parent, folder):
        if step.is_symlink():
            raise StagingRefused(f"{step} is a symbolic link; remove it and retry the job")
    folder.mkdir(parents=True, exist_ok=True)
    if not folder.resolve().is_relative_to(target.resolve()):
        raise StagingRefused(f"{folder} leads outside {target}; remove the link and retry")
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
