"""Which assets a task's `outputs` hold, and in what order, as the face in force answers
the spec's open details about them (2.1 no order, 2.4 formats "values seen", 2.8 and 2.9
what a one-click returns)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from companion.sandbox.face import Face
from companion.sandbox.state import AssetRecord, State, TaskRecord

CLIP = "clip_video"


def generated(face: Face, task: TaskRecord, asset: AssetRecord) -> AssetRecord:
    """A one-click's generated video as its outputs name it: `clip_video` on the default
    face, the face's own name for it otherwise (a client must know it by its media)."""
    if task.object != "animation" or face.generated_video_format == CLIP:
        return asset
    return dataclasses.replace(asset, format=face.generated_video_format)


def after_export(face: Face, task: TaskRecord, state: State, made: list[AssetRecord]) -> None:
    """A one-click's outputs once its export is made: the generated video stays beside
    the export's formats, or is left out (an asked clip_video replacing it on the default
    face; only what was asked on a face that returns no unasked video)."""
    if task.object != "animation":
        return
    source = task.inputs.get("generated_asset")
    replaced = face.clip_is_generated_video and any(a.format == CLIP for a in made)
    if replaced:
        # The export's clip of the selection replaces the generated clip.
        task.output_ids = [i for i in task.output_ids if state.assets[i].format != CLIP]
    elif not face.unasked_video:
        task.output_ids = [i for i in task.output_ids if i != source]


def shown_order(face: Face, ids: list[str]) -> list[str]:
    """The order `outputs` are listed in: as made, or reversed (2.1: no order)."""
    return list(ids) if face.outputs_in_order else list(reversed(ids))


def add_extra(
    face: Face,
    task: TaskRecord,
    state: State,
    new_asset: Callable[[TaskRecord, str, str], AssetRecord],
) -> None:
    """An ended task with outputs gets one more small asset, of a format no client knows
    (2.4: formats are "values seen"), when the face says so."""
    fmt = face.extra_output_format
    if fmt is None or not task.output_ids:
        return
    if any(state.assets[i].format == fmt for i in task.output_ids):
        return
    asset = new_asset(task, fmt, "image/webp")
    state.assets[asset.id] = asset
    task.output_ids.append(asset.id)


def thumbnail(path: str) -> None:
    """A real small picture (a WebP thumbnail) at path."""
    from PIL import Image  # at the first thumbnail, not when the sandbox starts

    Image.new("RGBA", (32, 32), (40, 120, 200, 255)).save(path, "WEBP")
