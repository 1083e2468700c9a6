"""From the service's export options to the media engine's job description.

The schema (api/) and the engine (media/) know nothing of each other; this is the one
place that translates, for the local `companion export` and for the sandbox alike."""

from __future__ import annotations

from companion.api.schema import ExportOptions, Selection
from companion.media.formats.sheet import NO_SPACING, Spacing
from companion.media.pixel.art import PixelArt
from companion.media.spec import ExportSpec


def export_spec(
    options: ExportOptions,
    selection: Selection,
    *,
    name: str,
    key_color: tuple[int, int, int] | None,
    pixel_art: bool = False,
    pixel: PixelArt | None = None,
    godot_res_dir: str | None = None,
    spacing: Spacing = NO_SPACING,
    in_place: bool = False,
    loop: bool = False,
    trim: bool = False,
) -> ExportSpec:
    """The service's options carry no sheet spacing nor finishing (in place, loop, trim),
    so only the local exports set them; the sandbox lays sheets out as the service does,
    frame against frame. pixel: the art's facts the frames are brought to, with
    pixel_art (None: nearest scaling alone)."""
    return ExportSpec(
        formats=tuple(f.value for f in options.formats),
        frame_count=options.frame_count,
        fps=options.fps,
        width=options.output_width,
        height=options.output_height,
        start=selection.start_seconds,
        duration=selection.duration_seconds,
        key_color=key_color,
        pivot=options.unity.pivot.value,
        pixels_per_unit=options.unity.pixels_per_unit,
        pixel_art=pixel_art,
        pixel=pixel if pixel_art else None,
        name=name,
        godot_res_dir=godot_res_dir,
        padding=spacing.padding,
        extrude=spacing.extrude,
        in_place=in_place,
        loop=loop,
        trim=trim,
    )
