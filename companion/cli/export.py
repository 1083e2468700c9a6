"""`companion export`: a local video into engine-ready formats, nothing remote."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace

from companion.cli import checks
from companion.cli.errors import InputFailure, say
from companion.media import ExportResult, MediaError, export_video, probe
from companion.media.from_schema import export_spec


def _report(result: ExportResult, as_json: bool) -> None:
    for warning in result.warnings:
        say(f"companion: warning: {warning}")
    if as_json:
        summary = {
            "frames": result.plan.count,
            "fps": result.plan.fps,
            "outputs": [
                {"format": o.format, "path": str(o.path), "bytes": o.path.stat().st_size}
                for o in result.outputs
            ],
        }
        print(json.dumps(summary))
        return
    print(
        f"{result.plan.count} frames at {result.plan.fps:.4g} fps from "
        f"{result.plan.start:.3f}-{result.plan.end:.3f} s"
    )
    for output in result.outputs:
        print(f"  {output.format:<20} {output.path}  ({output.path.stat().st_size:,} bytes)")


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
    spec = export_spec(
        options,
        selection,
        name=name,
        key_color=key,
        pixel_art=args.pixel_art,
        godot_res_dir=res_dir,
        spacing=layout,
    )
    spec = replace(spec, max_sheet_side=args.max_sheet_side)
    for path in replaced:
        say(f"companion: replacing {path}")
    try:
        result = export_video(video, out, spec)
    except MediaError as exc:
        raise InputFailure(str(exc)) from exc
    _report(result, args.json)
    sys.stdout.flush()
    return 0
