"""`companion recut JOB`: a finished job's kept video exported again, locally, for free:
other frames, fps, size, range, padding or formats. Into a plain folder it is
`companion export` run on the clip the companion kept, so its files are exactly what
export makes from that video. Into a Godot or Unity project it is the daemon's re-cut
job, installed the engine's way (the SpriteFrames or clip updated in place, the user's
edits kept), never a pack archive beside a resource that still shows the old frames."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from companion.cli import into_project
from companion.cli.checks import preflight as checks
from companion.cli.errors import InputFailure, UsageError, say
from companion.install import Placement
from companion.media import MAX_SHEET_SIDE, hex_colour
from companion.settings.config import Settings
from companion.settings.endpoint import Endpoint
from companion.store import Job

if TYPE_CHECKING:
    from companion.api.client import Client


def cmd_recut(args: argparse.Namespace) -> int:
    from companion.cli.commands.export import cmd_export
    from companion.cli.commands.jobs_books import find
    from companion.settings.config import load_settings
    from companion.settings.errors import ConfigError
    from companion.store import Store
    from companion.store.clips import ClipStore
    from companion.store.errors import ClipGone

    try:
        current = load_settings()
    except ConfigError as exc:
        raise UsageError(str(exc)) from exc
    store = Store(current.database)
    try:
        job = find(store, args.job)
        source = store.job(job.clip_source)  # a re-cut's video is its parent's
    finally:
        store.close()
    clips = ClipStore.of(current)
    try:
        args.video = clips.require(job.clip_source)
    except ClipGone as exc:
        raise InputFailure(str(exc)) from exc
    if args.name is None:
        args.name = job.name  # the same animation, re-cut (its files are replaced whole)
    _made_on(args, source)
    where = into_project.placement(current.database, checks.output_folder(args.out))
    if where is None:
        return cmd_export(args)
    return _into_project(args, current, source, where)


def _made_on(args: argparse.Namespace, source: Job) -> None:
    """What the clip was made with, unless told otherwise (the rules are
    companion.jobs.ask.defaults'): its frame size, and its key colour keyed out again."""
    from companion.api.schema import ExportOptions
    from companion.jobs import JobRequest, pixel_facts, recut_export, recut_local

    made = JobRequest.of(source.request)
    kept = made.local_export or {}
    if args.pixel_art is None:  # left open: as the clip's job was made
        args.pixel_art = bool(kept.get("pixel_art"))
    if args.pixel_art:  # the art's grid, palette and place: the job's, else its picture's
        args.pixel_facts = kept.get("pixel") or pixel_facts(Path(made.image), None)
    if checks.small_sides(args) is not None:  # frames under 64 px: one side said, square
        args.width, args.height = args.width or args.height, args.height or args.width
    else:
        given = {k: v for k, v in (("output_width", args.width), ("output_height", args.height))
                 if v}  # fmt: skip
        sized = recut_export(made.export, ExportOptions.model_validate(given))
        args.width, args.height = sized.output_width, sized.output_height
    if args.opaque or args.key_color:
        return
    local = recut_local(made.video, ExportOptions(), None)
    if local and local.get("key_color"):
        args.transparent = True
        red, green, blue = (int(c) for c in local["key_color"])
        args.key_color = hex_colour((red, green, blue))


def _into_project(
    args: argparse.Namespace, current: Settings, source: Job, where: Placement
) -> int:
    """The daemon's re-cut job, run here: every check before anything is written."""
    from companion.cli.job_report import report as _report
    from companion.cli.session import with_service
    from companion.jobs import JobFailed, JobRequest
    from companion.runtime import open_engine
    from companion.store import Store

    into_project.refuse_res_dir(args.godot_res_dir, where)
    options, selection = checks.export_options(args)
    key = checks.key_colour(args)
    layout = checks.spacing(args)
    name = checks.base_name(args.name, args.video)
    if args.duration is not None or args.start is not None:
        from companion.media import MediaError, probe

        try:
            info = probe(args.video)
        except MediaError as exc:
            raise InputFailure(str(exc)) from exc
        if info.duration:
            checks.selection_fits(args, info.duration, args.video.name)
    local: dict[str, object] = {
        "padding": layout.padding,
        "extrude": layout.extrude,
        **checks.finishing_said(args).asked(),  # the re-cut's request decides the rest
        **({"palette": checks.palette(args)} if args.palette else {}),
        **({"frame_size": [args.width, args.height]} if checks.small_sides(args) else {}),
        **({"key_color": list(key)} if key else {}),
        **(
            {"max_sheet_side": args.max_sheet_side} if args.max_sheet_side != MAX_SHEET_SIDE else {}
        ),
    }
    request = JobRequest.recut(
        JobRequest.of(source.request),
        parent=source.id,
        export=options,
        selection=selection,
        placement=where,
        local_export=local,
    )
    formats = request.install_formats or []
    planned = into_project.planned(where, name, formats)
    checks.never_over_a_source(planned, [args.video])

    async def run(client: Client, endpoint: Endpoint, settings: Settings) -> Job:
        store = Store(settings.database)
        try:
            into_project.refuse_conflicts(store, where, name, formats)
            async with open_engine(client, endpoint, settings, store) as engine:
                made = engine.submit(request, name=name, target_dir=where.target)
                say(f"companion: re-cut {made.id[:8]} into the {where.engine} project "
                    f"{where.project_root}")  # fmt: skip
                return await engine.run(made.id)
        finally:
            store.close()

    try:
        done = with_service(run, current)
    except JobFailed as exc:
        raise InputFailure(str(exc)) from exc
    return _report(done, args.json, charged_before=None)
