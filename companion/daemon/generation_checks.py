"""What the Generations actions check at the moment of use, each off the event loop: the
project is still registered (a forgotten one takes no files), a re-cut's range fits the
kept clip, a file is removed only where it was written (no folder on the way has become
a link), a folder is revealed only while it is still inside the project, and the
contact sheets kept stay few."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from companion.api.schema import Selection
from companion.daemon import registry
from companion.install import UnsafeName, inside_project
from companion.media import MIN_SELECTION_SECONDS, MediaError, build_contact_sheet, probe
from companion.store import Store

SHEETS_KEPT = 48  # contact sheets are 50-75 KB each; the oldest go first


def forgotten(store: Store, root: Path) -> str | None:
    """Why nothing may be written into root any more (it was removed), or None."""
    if registry.find(store, str(root)) is not None:
        return None
    return (
        f"project: {root} is no longer registered, so nothing is written into it; "
        "register it again (POST /api/v1/projects) first"
    )


def range_refusal(clip: Path, selection: Selection) -> str | None:
    """Why a re-cut of this range of the clip cannot be made, naming the field, or None."""
    if selection.mode != "range":
        return None
    duration = selection.duration_seconds
    if duration is not None and duration < MIN_SELECTION_SECONDS:
        return f"selection.duration_seconds: {duration:g} s; give at least {MIN_SELECTION_SECONDS}"
    try:
        length = probe(clip).duration
    except MediaError:
        return None  # the job says what is wrong with the clip
    if length and selection.start_seconds >= length:
        return (
            f"selection.start_seconds: {selection.start_seconds:g} s, but the clip is "
            f"{length:.3f} s long; start before that"
        )
    return None


def moved_away(root: Path, path: Path) -> str | None:
    """Why the file recorded at path must not be touched now: it no longer lies inside
    the project where it was written (a folder on the way became a link), or None."""
    try:
        landed = inside_project(root, path.relative_to(root).as_posix())
    except (ValueError, UnsafeName, OSError) as exc:
        return f"{path}: {exc}" if str(exc) else f"{path} is outside the project"
    if landed != path:
        return f"{path} now leads to {landed} through a link; it is left alone"
    return None


def reveal_refusal(root: Path, target: Path) -> str | None:
    """Why target is not shown as the job's folder: it (or a folder above it) now links
    outside the project, or None."""
    if not target.is_relative_to(root):
        return f"{target} is not inside the project {root}"
    if not target.resolve().is_relative_to(root.resolve()):
        return f"{target} now leads outside the project through a link"
    return None


def contact_sheet(clip: Path, out: Path, times: list[float], image: str) -> dict[str, Any]:
    """The reply for a contact sheet of clip at times, drawn at out (with its reply beside
    it, so the same times again are answered from it); only the newest SHEETS_KEPT stay.
    MediaError when the times do not fit the clip."""
    said = out.with_suffix(".json")
    if out.is_file() and said.is_file():
        try:
            reply: dict[str, Any] = json.loads(said.read_text(encoding="utf-8"))
            os.utime(out)  # used again: the newest to keep
            return reply
        except (OSError, ValueError):
            pass  # drawn again below
    sheet = build_contact_sheet(clip, out, times)
    reply = {
        "image": image,
        "width": sheet.width,
        "height": sheet.height,
        "cells": [
            {
                "index": c.index,
                "rect": [c.x, c.y, c.width, c.height],
                "requested_time_seconds": c.requested_time,
                "source_time_seconds": c.source_time,
            }
            for c in sheet.cells
        ],
    }
    said.write_text(json.dumps(reply, allow_nan=False), encoding="utf-8")
    prune_sheets(out.parent)
    return reply


def prune_sheets(folder: Path, kept: int = SHEETS_KEPT) -> None:
    """Keep only the newest `kept` contact sheets (and their replies)."""
    try:
        sheets = sorted(folder.glob("*.png"), key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:
        return
    for old in sheets[kept:]:
        old.unlink(missing_ok=True)
        old.with_suffix(".json").unlink(missing_ok=True)
