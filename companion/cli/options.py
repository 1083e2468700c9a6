"""The flags several commands share, with their help texts, values and defaults.

Imported on every start (help must be quick), so the value lists are plain tuples here or
from plain tables (the formats: companion.api.formats); a test holds them equal to the
schema's enums."""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from companion.api.formats import ALPHA_REQUIRED_FORMATS, FORMAT_NAMES, ExportFormat
from companion.sandbox.faults import PROFILES

ALPHA_ONLY_FORMATS = tuple(f.value for f in ExportFormat if f in ALPHA_REQUIRED_FORMATS)
PIVOTS = (
    "bottom_center",
    "center",
    "top_left",
    "top_center",
    "top_right",
    "left_center",
    "right_center",
    "bottom_left",
    "bottom_right",
)
DEFAULT_KEY_COLOUR = "#00ff00"
FAULT_PROFILES = PROFILES  # the sandbox's, for `companion sandbox --help`


def finite(text: str) -> float:
    """A float option that is a number: nan and inf are refused by argparse in one line
    ("invalid finite value"), before any check, job or spend."""
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(text)
    return value


def add_export_options(
    parser: argparse.ArgumentParser,
    *,
    out_help: str | None,
    local: bool = False,
    size_default: str | None = None,
    formats_default: str | None = None,
    seam_search: str = "--loop",
) -> None:
    """Export flags; `out_help` None leaves --out to the command; `local` adds the flags
    only the local exporter honours (the service takes no such options);
    formats_default: what leaving --formats out means (None: it must be given);
    seam_search: the loop search's flag (see _add_finishing_options)."""
    parser.add_argument(
        "--formats",
        required=formats_default is None,
        metavar="LIST",
        help="comma-separated output formats, from: "
        + ", ".join(FORMAT_NAMES)
        + f" ({' and '.join(ALPHA_ONLY_FORMATS)} need a transparent result: --transparent,"
        " or a picture with transparent pixels)"
        + (f"; default: {formats_default}" if formats_default else ""),
    )
    if out_help is not None:
        parser.add_argument("--out", required=True, type=Path, metavar="FOLDER", help=out_help)
    sampling = parser.add_mutually_exclusive_group()
    sampling.add_argument(
        "--frame-count", type=int, metavar="N", help="frames spread evenly, 1 to 240 (default 24)"
    )
    sampling.add_argument(
        "--fps",
        type=finite,
        # The service samples a one-click animation by frame count only.
        help="sample at source speed, this many frames a second (needs spritesheet_json)"
        if local
        else argparse.SUPPRESS,
    )
    if size_default is None:
        size_default = "512" if local else "the picture's, within the bounds"
    parser.add_argument(
        "--width",
        type=int,
        metavar="PX",
        help=f"frame width, 16 to 1024; under 64 scaled down here from the service's 64 "
        f"(default {size_default})",
    )
    parser.add_argument(
        "--height",
        type=int,
        metavar="PX",
        help=f"frame height, 16 to 1024, as --width (default {size_default})",
    )
    parser.add_argument(
        "--start", type=finite, metavar="S", help="selection start in seconds (default 0)"
    )
    parser.add_argument(
        "--duration",
        type=finite,
        metavar="S",
        help="selection length in seconds (default: to the end of the video)",
    )
    alpha = parser.add_mutually_exclusive_group()
    alpha.add_argument(
        "--transparent",
        action="store_true",
        help="key out the background colour (alpha)"
        + ("" if local else "; the default for a picture with transparent pixels"),
    )
    alpha.add_argument(
        "--opaque",
        action="store_true",
        help="keep the background colour"
        + (
            " (a re-cut of a clip made on a key colour keys it out unless told this)"
            if local
            else ", even for a picture with transparent pixels"
        ),
    )
    parser.add_argument(
        "--key-color",
        metavar="HEX",
        help=f"background colour to key out, as #rrggbb; needs --transparent "
        f"(default {DEFAULT_KEY_COLOUR})",
    )
    parser.add_argument(
        "--pivot",
        default="bottom_center",
        choices=PIVOTS,
        metavar="PIVOT",
        help="sprite pivot for engine packs: " + ", ".join(PIVOTS) + " (default bottom_center)",
    )
    parser.add_argument(
        "--pixels-per-unit",
        type=finite,
        default=100.0,
        metavar="N",
        help="sprite pixels per world unit for Unity packs (default 100)",
    )
    if local:
        _add_sheet_layout_options(parser)
    else:
        parser.add_argument(
            "--service-export",
            action="store_true",
            help="buy the service's own export of these formats and install it (a "
            "one-click animation), rather than the video alone exported here (default)",
        )
    _add_finishing_options(parser, seam_search)
    parser.add_argument(
        "--name",
        help=(
            "base name of the output files (default: the input's name): letters and digits "
            'of any script, spaces and symbols; not <>:"/\\|?*#%%[]{} or a leading or '
            "trailing dot, space, - or _"
        ),
    )
    if local:
        parser.add_argument(
            "--godot-res-dir",
            metavar="RES_PATH",
            help="res:// folder the Godot pack will live in (default res://animations/NAME)",
        )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print one JSON summary on stdout and nothing else there",
    )


# Plain numbers so help needs no media code; a test holds them equal to
# companion.media.formats.sheet's DEFAULT_SPACING, MAX_SPACING and MAX_SHEET_SIDE.
DEFAULT_PADDING, DEFAULT_EXTRUDE, MAX_SPACING, MAX_SHEET_SIDE = 2, 1, 16, 8192


def _add_sheet_layout_options(parser: argparse.ArgumentParser) -> None:
    """Only where the companion lays the sheet out itself: the service's export options
    have no such field."""
    parser.add_argument(
        "--padding",
        type=int,
        metavar="PX",
        help="transparent pixels between spritesheet frames and around the sheet "
        f"(0 to {MAX_SPACING}; default {DEFAULT_PADDING}, 0 with --pixel-art)",
    )
    parser.add_argument(
        "--extrude",
        type=int,
        metavar="PX",
        help="repeat each frame's edge pixels outwards this far, so linear filtering "
        f"never samples a neighbour (0 to {MAX_SPACING}; default {DEFAULT_EXTRUDE}, "
        "0 with --pixel-art)",
    )
    parser.add_argument(
        "--max-sheet-side",
        type=int,
        default=MAX_SHEET_SIDE,
        metavar="PX",
        help="largest spritesheet page side in pixels; more frames go to further pages "
        f"(default {MAX_SHEET_SIDE})",
    )


def _add_finishing_options(parser: argparse.ArgumentParser, seam_search: str) -> None:
    """What the companion does to the frames after the video is made (never sent to the
    service: changing them after a generation is a free re-cut of its kept clip).
    seam_search: "--loop" (off/auto), or "--seamless" where --loop names a character's
    looping moves."""
    parser.add_argument(
        "--in-place",
        action=argparse.BooleanOptionalAction,
        help="hold the character still: take the camera's shake, drift and zoom out by "
        "registering every frame on the character's core (needs a transparent background)",
    )
    if seam_search == "--loop":
        parser.add_argument(
            "--loop",
            choices=("off", "auto"),
            default="off",
            help="auto: export the span of the selection whose last frame flows into its "
            "first (its seam is reported); off: the selection as given (default)",
        )
    else:
        parser.add_argument(  # the same value as --loop auto: one reading of it
            "--seamless",
            action="store_const",
            const="auto",
            default="off",
            dest="loop",
            help="cut each looping move at the span whose last frame flows into its first "
            "(its seam is reported); moves that play once are left whole",
        )
    parser.add_argument(
        "--pixel-art",
        action=argparse.BooleanOptionalAction,
        help="keep pixel art pixel art: frames on the picture's grid (art drawn at 2x and up "
        "keeps its blocks), every opaque pixel a palette colour, alpha 0 or 255 (default: on "
        "for pixel art: hard alpha, few colours, drawn on a grid at 2x and up or at 1x "
        "up to 64 px; off for an opaque video or the service's own export)",
    )
    parser.add_argument(
        "--palette",
        type=Path,
        metavar="FILE",
        help="with --pixel-art: the colours to draw in, each of the art's as the one nearest "
        "it, from a GIMP .gpl, a .hex (one #rrggbb a line) or a PNG swatch (default: the "
        "picture's own)",
    )
    parser.add_argument(
        "--trim",
        action=argparse.BooleanOptionalAction,
        help="cut each spritesheet frame to its visible pixels, its place in the frame "
        "recorded for every engine (nothing moves), and store identical frames once",
    )


def add_generation_options(parser: argparse.ArgumentParser, *, one_prompt: bool = True) -> None:
    """Flags of the video the service generates from the image. Without one_prompt
    (a character: a prompt per move) there is no --prompt, --last-frame or --ref."""
    if one_prompt:
        parser.add_argument(
            "--prompt",
            required=True,
            help="what should move. The sandbox moves the whole picture with one motion "
            "chosen from words in it: idle/breath, walk/run/jump, sway/wave/dance, "
            "float/hover/fly, pulse/glow (see docs/sandbox.md)",
        )
        parser.add_argument(
            "--last-frame", type=Path, metavar="IMAGE", help="an image the video should end on"
        )
        parser.add_argument(
            "--ref",
            type=Path,
            action="append",
            default=[],
            metavar="IMAGE",
            help="a reference image; repeat for more (up to what the model takes, 8 here)",
        )
    parser.add_argument(
        "--seconds",
        type=finite,
        metavar="S",
        help="video length in seconds, one the model offers (default 3; see: companion models)",
    )
    parser.add_argument(
        "--resolution",
        help="video resolution: 360p, 480p, 720p or 1080p, as the model offers "
        "(see: companion models; default: the model's own)",
    )
    parser.add_argument(
        "--seed", type=int, help="0 to 4294967295; the same seed repeats the same motion"
    )
    parser.add_argument(
        "--model", help="model id from `companion models` (default: the service's default)"
    )
