"""`companion export`: a local video into engine-ready formats, nothing remote."""

from __future__ import annotations

import argparse
import sys
import uuid
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from companion.cli.checks import preflight as checks
from companion.cli.errors import InputFailure, UsageError, say
from companion.cli.progress import reporter
from companion.media import (
    ExportResult,
    MediaError,
    PixelArt,
    export_spec,
    export_video,
    palette_from_hex,
    probe,
)

if TYPE_CHECKING:  # the store and the record are imported only when an export runs
    from companion.api.schema import ExportOptions
    from companion.install import Owner, Placement
    from companion.media import ExportSpec


def _report(result: ExportResult, as_json: bool) -> None:
    """An export into a plain folder, reported as one into a project is."""
    from companion.cli.commands import export_project

    export_project.report(result, [(o.format, o.path) for o in result.outputs], as_json)


def cmd_export(args: argparse.Namespace) -> int:
    options, selection = checks.export_options(args)
    key = checks.key_colour(args)
    res_dir = checks.godot_res_dir(args.godot_res_dir)
    layout = checks.spacing(args)
    video = checks.input_file(args.video, "video", "a video file")
    name = checks.base_name(args.name, video)
    out = checks.output_folder(args.out)
    formats = [f.value for f in options.formats]
    planned = checks.output_paths(out, name, formats)
    checks.never_over_a_source(planned, [video])
    replaced = checks.existing_outputs(planned)
    try:
        info = probe(video)
    except MediaError as exc:
        raise InputFailure(str(exc)) from exc
    if info.duration:
        checks.selection_fits(args, info.duration, f"{video.name}")
    switches = checks.finishing(args, formats, key is not None or info.has_alpha).switches()
    spec = export_spec(
        options,
        selection,
        name=name,
        key_color=key,
        godot_res_dir=res_dir,
        spacing=layout,
        pixel=_pixel(args, switches["pixel_art"]),
        **switches,
    )
    spec = replace(spec, max_sheet_side=args.max_sheet_side)
    small = checks.small_sides(args)  # the service's bound does not hold here
    if small is not None:
        spec = replace(spec, width=small[0] or spec.width, height=small[1] or spec.height)

    from companion.install import Owner
    from companion.settings.config import load_settings
    from companion.settings.errors import ConfigError
    from companion.store import Store

    try:
        database = load_settings().database
    except ConfigError as exc:
        raise UsageError(str(exc)) from exc
    from companion.cli import into_project

    where = into_project.placement(database, out)
    if where is not None:
        return _into_project(args, where, database, video, spec, options)
    store = Store(database)
    try:
        owner = Owner(store, f"export-{uuid.uuid4()}", name)  # each export its own writer
        _refuse_others(owner, replaced)

        def before_move(paths: list[Path]) -> None:
            _refuse_others(owner, paths)  # sheet pages are known only now
            for path in paths:
                if path.exists():
                    say(f"companion: replacing {path} (written by the companion, unchanged)")

        shown = reporter(args.json)
        try:
            result = export_video(
                video,
                out,
                spec,
                progress=lambda done: shown.update("decoding and writing frames", done),
                before_move=before_move,
            )
        except MediaError as exc:
            raise InputFailure(str(exc)) from exc
        finally:
            shown.close()
        for output in result.outputs:
            owner.claim(output.path)
        from companion.install import drop_leftovers

        for note in drop_leftovers(store, owner, out, {o.path for o in result.outputs}):
            say(f"companion: warning: {note}")
    finally:
        store.close()
    _report(result, args.json)
    sys.stdout.flush()
    return 0


def _into_project(
    args: argparse.Namespace,
    where: Placement,
    database: Path,
    video: Path,
    spec: ExportSpec,
    options: ExportOptions,
) -> int:
    """Into a Godot or Unity project: installed the engine's way (see export_project)."""
    from companion.cli import into_project
    from companion.cli.commands import export_project
    from companion.store import Store

    into_project.refuse_res_dir(args.godot_res_dir, where)
    formats = [f.value for f in options.formats]
    planned = into_project.planned(where, spec.name, formats)
    checks.never_over_a_source(planned, [video])
    checks.existing_outputs(planned)
    store = Store(database)
    try:
        shown = reporter(args.json)
        try:
            result, installed = export_project.export_into(
                store,
                where,
                video,
                spec,
                options,
                progress=lambda done: shown.update("decoding and writing frames", done),
            )
        finally:
            shown.close()
    finally:
        store.close()
    export_project.report(result, installed, args.json)
    sys.stdout.flush()
    return 0


def _refuse_others(owner: Owner, paths: list[Path]) -> None:
    """Only the companion's own files of this name, unchanged since, are replaced."""
    for path in paths:
        refusal = owner.refusal(path)
        if refusal is not None:
            raise UsageError(
                f"--out: {refusal}; move it away or choose another --out or --name "
                "(nothing was written)"
            )


def _pixel(args: argparse.Namespace, on: bool) -> PixelArt | None:
    """With pixel art: the art's facts a re-cut brings from its job (else none: nearest
    scaling), in the palette named by --palette when given."""
    if not on:
        return None
    palette = checks.palette(args)
    facts = getattr(args, "pixel_facts", None)
    if facts:
        art = PixelArt.of_json(facts)
        return art.with_palette(palette_from_hex(palette)) if palette else art
    return PixelArt(palette_from_hex(palette)) if palette else None
