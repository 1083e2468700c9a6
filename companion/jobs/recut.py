"""A re-cut: a finished job's kept video exported again here, never sent to the service.
Its outputs are staged like downloads, so the engine installs them the same way (and
with the same guards) as a paid job's."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from companion.api.schema import ExportOptions, Selection
from companion.install import sha256_of
from companion.jobs.ask.finishing import Finishing
from companion.media import PixelArt, Spacing, export_spec, export_video

Row = tuple[str, str, str, int, Path, str]


def staged_rows(
    job_id: str, name: str, request: dict[str, Any], clip: Path, staging: Path
) -> tuple[list[Row], dict[str, float] | None]:
    """Export the clip into staging: (asset id, format, file name, bytes, path, sha256)
    for every file written, one row each (a sheet may have several pages); and with loop,
    the span chosen and its seam (see LoopOut)."""
    options = ExportOptions.model_validate(request.get("export") or {})
    selection = Selection.model_validate(request.get("selection") or {})
    local = request.get("local_export") or {}
    key = local.get("key_color")
    finishing = Finishing.kept(local)
    spec = export_spec(
        options,
        selection,
        name=name,
        key_color=(int(key[0]), int(key[1]), int(key[2])) if key else None,
        pixel_art=bool(finishing.pixel_art),
        # The art's grid, palette and place, as its request keeps them.
        pixel=PixelArt.of_json(local["pixel"]) if local.get("pixel") else None,
        spacing=Spacing(int(local.get("padding", 0)), int(local.get("extrude", 0))),
        in_place=bool(finishing.in_place),
        loop=bool(finishing.loop),
        trim=bool(finishing.trim),
    )
    size = local.get("frame_size")  # smaller than the service makes: scaled down here
    if size:
        spec = replace(spec, width=int(size[0]), height=int(size[1]))
    if local.get("max_sheet_side"):  # the command line's page bound; else the spec's own
        spec = replace(spec, max_sheet_side=int(local["max_sheet_side"]))
    result = export_video(clip, staging, spec)
    rows = [
        (f"local-{job_id}-{out.path.name}", out.format, out.path.name, out.path.stat().st_size,
         out.path, sha256_of(out.path))
        for out in result.outputs
    ]  # fmt: skip
    return rows, result.loop_summary()


def resolved_export(request: dict[str, Any]) -> dict[str, Any]:
    """The export as the service would have echoed it, which the install plan reads."""
    options = ExportOptions.model_validate(request.get("export") or {})
    return options.model_dump(mode="json", by_alias=True)
