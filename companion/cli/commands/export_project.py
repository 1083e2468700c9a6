"""`companion export` into a Godot or Unity project: the local export is staged in the
target's hidden staging folder and installed the way every job's outputs are (the pack
unpacked, the SpriteFrames or clip updated in place with the user's edits kept, one set
of files per name), never a pack archive dropped beside a resource of the same name."""

from __future__ import annotations

import json
import shutil
import uuid
from collections.abc import Callable
from pathlib import Path

from companion.api.schema import ExportOptions
from companion.cli import into_project
from companion.cli.errors import InputFailure, UsageError, say
from companion.install import (
    ApplyFailed,
    NotInstallable,
    Owner,
    Placement,
    Staged,
    install_into_engine,
)
from companion.jobs import STAGING, StagingRefused, job_folder, release_if_unused
from companion.media import ExportResult, ExportSpec, MediaError, export_video
from companion.store import Store


def export_into(
    store: Store,
    where: Placement,
    video: Path,
    spec: ExportSpec,
    options: ExportOptions,
    progress: Callable[[float], None],
) -> tuple[ExportResult, list[tuple[str, Path]]]:
    """Export video into the project at where; (the export, (format, installed file))."""
    name = spec.name
    formats = [f.value for f in options.formats]
    into_project.refuse_conflicts(store, where, name, formats)
    writer = f"export-{uuid.uuid4()}"
    try:
        staging = job_folder(where.target, writer)
    except (StagingRefused, OSError) as exc:
        raise UsageError(f"--out {where.target}: {exc}") from exc
    try:
        try:
            result = export_video(video, staging, spec, progress=progress)
        except MediaError as exc:
            raise InputFailure(str(exc)) from exc
        for path in into_project.planned(where, name, formats):
            if path.exists():
                say(f"companion: updating {path}")
        try:
            done = install_into_engine(
                store,
                where,
                Owner(store, writer, name),
                [Staged(o.format, o.path.name, o.path) for o in result.outputs],
                staging,
                export=options.model_dump(mode="json", by_alias=True),
                pixel_art=spec.pixel_art,
            )
        except ApplyFailed as exc:
            raise InputFailure(f"the install into {where.target} stopped: {exc}") from exc
        except NotInstallable as exc:
            raise UsageError(f"--out: {exc} (nothing was written)") from exc
    finally:
        shutil.rmtree(where.target / STAGING / writer, ignore_errors=True)
        release_if_unused(where.target)
    for note in done.notes:
        say(f"companion: warning: {note}")
    formats_of = {o.path.name: o.format for o in result.outputs}
    placed = {rel: name_ for name_, rel in done.tree.outputs.items()}
    installed = [
        (formats_of.get(placed.get(rel, ""), where.engine), done.tree.final(where.target, rel))
        for rel in done.tree.order
    ]
    return result, installed


def report(result: ExportResult, installed: list[tuple[str, Path]], as_json: bool) -> None:
    for warning in result.warnings:
        say(f"companion: warning: {warning}")
    if as_json:
        outputs = [{"format": f, "path": str(p), "bytes": p.stat().st_size} for f, p in installed]
        summary = {"frames": result.plan.count, "fps": result.plan.fps, "outputs": outputs}
        if result.seam is not None:
            summary["loop"] = result.loop_summary()
        print(json.dumps(summary))
        return
    print(
        f"{result.plan.count} frames at {result.plan.fps:.4g} fps from "
        f"{result.plan.start:.3f}-{result.plan.end:.3f} s"
    )
    if result.seam is not None:
        print(f"  loop seam {result.seam:.2f} (1 flows like any step between frames)")
    for fmt, path in installed:
        print(f"  {fmt:<20} {path}  ({path.stat().st_size:,} bytes)")
