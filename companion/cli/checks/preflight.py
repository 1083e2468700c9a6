"""Every check the command line can make before anything is spent or written, each
failure naming the flag and what to do (exit 2): the options here, the files in
path_checks, the flags against the live models in model_checks (all reached from here)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ValidationError

from companion.api.schema import (
    AnimationCreate,
    ExportOptions,
    Selection,
    VideoOptions,
)
from companion.api.schema.base import first_error
from companion.api.schema.export import LOCAL_MIN_SIDE, MAX_OUTPUT_SIDE, MIN_OUTPUT_SIDE
from companion.cli.checks.formats import formats_from
from companion.cli.checks.formats import request_has_alpha as request_has_alpha
from companion.cli.checks.models import against_models as against_models
from companion.cli.checks.paths import base_name as base_name
from companion.cli.checks.paths import existing_outputs as existing_outputs
from companion.cli.checks.paths import input_file as input_file
from companion.cli.checks.paths import never_over_a_source as never_over_a_source
from companion.cli.checks.paths import output_folder as output_folder
from companion.cli.checks.paths import output_paths as output_paths
from companion.cli.errors import UsageError
from companion.cli.options import DEFAULT_KEY_COLOUR
from companion.jobs import Finishing
from companion.media import (
    DEFAULT_SPACING,
    MAX_SPACING,
    MIN_SELECTION_SECONDS,
    NO_SPACING,
    MediaError,
    Spacing,
    folder_text_refusal,
)

if TYPE_CHECKING:
    from companion.install import Placement
    from companion.jobs import AnimationAsk, Picture

# Checks the rest of a one-click body before the real images are read.
STAND_IN_IMAGE = {"type": "base64", "media_type": "image/png", "data": "AAAA"}

# Schema fields as the user typed them on the command line.
FLAG_OF_FIELD = {
    "fps": "--fps",
    "frame_count": "--frame-count",
    "output_formats": "--formats",
    "output_width": "--width",
    "output_height": "--height",
    "unity.pivot": "--pivot",
    "unity.pixels_per_unit": "--pixels-per-unit",
    "start_seconds": "--start",
    "duration_seconds": "--duration",
}
FLAG_OF_VIDEO_FIELD = {
    "duration_seconds": "--seconds",
    "resolution": "--resolution",
    "seed": "--seed",
    "model": "--model",
    "transparency.key_color": "--key-color",
}


# Rules over several export fields, as the schema words them: the flag to name, and
# what to do.
FLAG_OF_RULE = {
    "output format ": ("--formats", "add it to --formats"),
    "fps sampling needs": ("--fps", "add them to --formats, or give --frame-count instead"),
    "fps and frame_count": ("--fps/--frame-count", ""),
}


# Pydantic's wording of a bound ("Input should be less than or equal to 1024") said as a
# person would, with the value given.
PLAIN_BOUNDS = {
    "less_than_equal": "at most {le}",
    "greater_than_equal": "at least {ge}",
    "less_than": "less than {lt}",
    "greater_than": "more than {gt}",
    "int_parsing": "a whole number",
    "int_from_float": "a whole number",
    "float_parsing": "a number",
}


def _plain(exc: ValidationError, message: str) -> str:
    error = exc.errors()[0]
    wording = PLAIN_BOUNDS.get(str(error.get("type")))
    if wording is None:
        return message
    given = error.get("input")
    got = f" (got {given})" if isinstance(given, int | float | str) else ""
    return f"must be {wording.format(**(error.get('ctx') or {}))}{got}"


def _where(exc: ValidationError, flags: dict[str, str]) -> str:
    param, message = first_error(exc)
    message = _plain(exc, message)
    where = ".".join(p for p in (param or "").split(".") if not p.isdigit())
    where = flags.get(where, where)
    if where:
        return f"{where}: {message}"
    for start, (flag, hint) in FLAG_OF_RULE.items():
        if message.startswith(start):
            return f"{flag}: {message}" + (f"; {hint}" if hint else "")
    return message


def key_colour(args: argparse.Namespace) -> tuple[int, int, int] | None:
    if args.key_color and not args.transparent:
        raise UsageError("--key-color needs --transparent")
    if not args.transparent:
        return None
    from companion.media import ChromaKeyer, parse_hex_colour

    text = args.key_color or DEFAULT_KEY_COLOUR
    try:
        colour = parse_hex_colour(text)
        ChromaKeyer(colour)  # refuses greys, which cannot be told from the subject
    except MediaError as exc:
        raise UsageError(f"--key-color {text}: {exc}") from exc
    return colour


def _opaque(args: argparse.Namespace) -> bool | None:
    """False when --opaque was given (an opaque result asked for), else None (not said)."""
    return False if getattr(args, "opaque", False) else None


def _given(**values: object) -> dict[str, object]:
    """The values given, leaving out those not (None), so the defaults can tell them."""
    return {k: v for k, v in values.items() if v is not None}


def godot_res_dir(value: str | None) -> str | None:
    if value is None:
        return None
    if not value.startswith("res://") or ".." in value.split("/"):
        raise UsageError(
            f"--godot-res-dir {value}: give a folder inside the Godot project as "
            "res://path/to/folder"
        )
    unusable = folder_text_refusal(value[len("res://") :])  # it is written into the .tres
    if unusable is not None:
        raise UsageError(f"--godot-res-dir {value!r}: {unusable}")
    return value.rstrip("/") or "res://"


def small_sides(args: argparse.Namespace) -> tuple[int | None, int | None] | None:
    """--width and --height when one is under the service's 64 px (16 to 63: frames
    scaled down here); None when the service makes the size asked."""
    sides = (args.width, args.height)
    if not any(s is not None and s < MIN_OUTPUT_SIDE for s in sides):
        return None
    for flag, value in (("--width", args.width), ("--height", args.height)):
        if value is not None and not LOCAL_MIN_SIDE <= value <= MAX_OUTPUT_SIDE:
            raise UsageError(
                f"{flag} {value}: frames are {LOCAL_MIN_SIDE} to {MAX_OUTPUT_SIDE} px "
                f"(under {MIN_OUTPUT_SIDE} they are scaled down here from the service's "
                f"{MIN_OUTPUT_SIDE})"
            )
    return args.width, args.height


def export_options(
    args: argparse.Namespace, decided_later: bool = False
) -> tuple[ExportOptions, Selection]:
    """The export flags, checked with the service's own rules (sides under its 64 px
    are left out: see small_sides). decided_later: unless said, a picture or a kept clip
    decides transparency (the caller checks the request: request_has_alpha)."""
    key_colour(args)
    godot_res_dir(getattr(args, "godot_res_dir", None))
    said = True if args.transparent else _opaque(args)
    # Left out where that is allowed (a character): the project's engine decides them.
    formats = (
        None
        if args.formats is None
        else formats_from(args.formats, said if decided_later else bool(args.transparent))
    )
    for flag, value in (("--start", args.start), ("--duration", args.duration)):
        if value is not None and value < 0:
            raise UsageError(f"{flag} {value:g}: give seconds from 0")
    if args.duration is not None and args.duration < MIN_SELECTION_SECONDS:
        raise UsageError(f"--duration {args.duration:g}: give at least {MIN_SELECTION_SECONDS} s")
    try:
        options = ExportOptions(
            fps=args.fps,
            frame_count=args.frame_count,
            output_formats=formats,
            **(
                {}
                if small_sides(args)
                else _given(output_width=args.width, output_height=args.height)
            ),
            # Said only when asked: left out, the picture decides (companion.jobs.ask.defaults).
            **_given(transparent=said),
            unity={"pivot": args.pivot, "pixels_per_unit": args.pixels_per_unit},
        )
        ranged = args.start is not None or args.duration is not None
        selection = Selection(
            mode="range" if ranged else "full",
            start_seconds=args.start or 0.0,
            duration_seconds=args.duration,
        )
    except ValidationError as exc:
        raise UsageError(_where(exc, FLAG_OF_FIELD)) from exc
    return options, selection


@dataclass(frozen=True)
class OneClickArgs:
    options: ExportOptions
    selection: Selection
    video: VideoOptions
    image: Path
    last_frame: Path | None
    references: list[Path]

    @property
    def picture(self) -> Picture:
        from companion.jobs import Picture

        return Picture(image=self.image, last_frame=self.last_frame, references=self.references)


def one_click_args(
    args: argparse.Namespace,
    *,
    prompts: dict[str, str] | None = None,
) -> OneClickArgs:
    """Every check of a one-click animation that needs no service, in the order a user
    fixes them; `animate`, `jobs add` and `character` share them. prompts: the flag of
    each prompt to check (default: --prompt's)."""
    frame_count_only(args)
    options, selection = export_options(args, decided_later=True)
    asked = {"--prompt": args.prompt} if prompts is None else prompts
    video = video_options(args, args.seconds, asked)
    for flag, prompt in asked.items():
        one_click(options, video, prompt, flag)
    image = input_file(args.image, "image")
    last_frame = getattr(args, "last_frame", None)
    last = input_file(last_frame, "--last-frame") if last_frame else None
    refs = [input_file(p, "--ref") for p in getattr(args, "ref", [])]
    if args.seconds is not None and (args.start is not None or args.duration is not None):
        selection_fits(args, args.seconds, "the video (--seconds)")
    return OneClickArgs(options, selection, video, image, last, refs)


def spacing(args: argparse.Namespace) -> Spacing:
    """Gaps between sheet frames: on by default, off for pixel art, where nearest
    filtering never reaches a neighbour and the gaps would only waste texture."""
    default = NO_SPACING if args.pixel_art else DEFAULT_SPACING
    padding = default.padding if args.padding is None else args.padding
    extrude = default.extrude if args.extrude is None else args.extrude
    for flag, value in (("--padding", padding), ("--extrude", extrude)):
        if not 0 <= value <= MAX_SPACING:
            raise UsageError(f"{flag}: must be 0 to {MAX_SPACING} pixels, not {value}")
    return Spacing(padding, extrude)


def finishing_said(args: argparse.Namespace) -> Finishing:
    """The local finishing flags as given (None: left to the defaults, see finishing)."""
    if args.in_place and getattr(args, "opaque", False):
        raise UsageError(
            "--in-place: registration reads the character's alpha, and --opaque keeps the "
            "background: leave out one of them"
        )
    return Finishing(
        in_place=args.in_place,
        loop=args.loop == "auto",
        trim=args.trim,
        pixel_art=args.pixel_art,
        palette=palette(args),
    )


def palette(args: argparse.Namespace) -> list[str] | None:
    """--palette FILE read, as #rrggbb colours (None: not given)."""
    path = getattr(args, "palette", None)
    if path is None:
        return None
    if args.pixel_art is False:
        raise UsageError("--palette: it draws pixel art, and --no-pixel-art turns it off")
    from companion.install import NotPlainFile, read_plain
    from companion.media import MediaError, hex_colour, read_palette
    from companion.media.pixel.palette import MAX_PALETTE_BYTES

    try:  # a plain file, bounded: a FIFO or a device named by mistake never blocks
        colours = read_palette(read_plain(Path(path), MAX_PALETTE_BYTES), str(path))
    except (OSError, NotPlainFile) as exc:
        raise UsageError(f"--palette: {path}: cannot read it ({exc})") from exc
    except MediaError as exc:
        raise UsageError(f"--palette: {exc}") from exc
    return [hex_colour(c) for c in colours]


def animation_ask(
    args: argparse.Namespace,
    given: OneClickArgs,
    prompt: str = "",
    *,
    placement: Placement | None = None,
    origin: str | None = None,
) -> AnimationAsk:
    """What the flags ask for (given: their checks, one_click_args), with the local
    finishing and the small sides checked here: what `animate`, `jobs add` and each move
    of `character` build their requests from. prompt: what should move (a character's
    moves each say their own)."""
    from companion.jobs import AnimationAsk, Prompt

    return AnimationAsk(
        picture=given.picture,
        prompt=Prompt(text=prompt),
        video=given.video,
        export=given.options,
        selection=given.selection,
        finishing=finishing_said(args),
        frames=small_sides(args),
        service_export=args.service_export,
        placement=placement,
        origin=origin,
    )


def finishing(args: argparse.Namespace, formats: list[str], transparent: bool) -> Finishing:
    """The local finishing of an export here (companion.jobs.ask.defaults.finishing: an engine
    pack is trimmed and, transparent, held in place unless told --no-trim, --no-in-place).
    --in-place on opaque frames is refused: registering the whole frame would hold the
    background still, not the character."""
    from companion.jobs import finishing as decided

    said = finishing_said(args)
    if said.in_place and not transparent:
        raise UsageError(
            "--in-place: registration reads the character's alpha, and these frames are "
            "opaque: add --transparent (with --key-color HEX when the background is not "
            f"{DEFAULT_KEY_COLOUR}) to key it out, or leave out --in-place"
        )
    return decided(formats, said, transparent)


def selection_fits(args: argparse.Namespace, length: float, what: str) -> None:
    """A selection that would be cut short is refused, not clamped."""
    start = args.start or 0.0
    if start >= length:
        raise UsageError(f"--start {start:g}: {what} is {length:g} s long; start before that")
    if args.duration is not None and start + args.duration > length + 1e-3:
        raise UsageError(
            f"--start {start:g} --duration {args.duration:g} ends at "
            f"{start + args.duration:g} s, after the end of {what} ({length:g} s); "
            f"give --duration {length - start:g} or less"
        )


def video_options(
    args: argparse.Namespace,
    seconds: float | None = None,
    prompts: dict[str, str] | None = None,
) -> VideoOptions:
    """The generation flags, checked with the spec's bounds (the live models come later;
    a length has no bound in the spec: the model's listed lengths, or the service, say);
    seconds is --seconds, or None where the length is left out; prompts: each prompt
    to check by its flag (default: --prompt's)."""
    if seconds is not None and not seconds > 0:
        raise UsageError(
            f"--seconds {seconds:g}: a video is longer than 0 s, and the model decides "
            "which lengths it offers (see: companion models)"
        )
    for flag, prompt in ({"--prompt": args.prompt} if prompts is None else prompts).items():
        if not prompt.strip():
            raise UsageError(f"{flag}: say what should move, e.g. --prompt 'idle breathing'")
    transparency: dict[str, str] | None = {"mode": "standard"} if _opaque(args) else None
    if args.transparent:
        transparency = {"mode": "alpha_key"}
        if args.key_color:
            transparency.update(key_selection="manual", key_color=args.key_color)
    try:
        return VideoOptions.model_validate(
            {
                "duration_seconds": seconds,
                "resolution": args.resolution,
                "seed": args.seed,
                "model": args.model,
                "transparency": transparency,
            }
        )
    except ValidationError as exc:
        prefix = _where(exc, FLAG_OF_VIDEO_FIELD)
        raise UsageError(prefix) from exc


def frame_count_only(args: argparse.Namespace) -> None:
    """A one-click animation samples a frame count; fps is for exports of a video."""
    if args.fps is not None:
        raise UsageError(
            "--fps: a one-click animation samples a frame count; give --frame-count "
            "(--fps is for companion export of a video)"
        )


def one_click(
    options: ExportOptions, video: VideoOptions, prompt: str, prompt_flag: str = "--prompt"
) -> None:
    """What a one-click animation takes beyond each part's own rules."""
    try:
        AnimationCreate.model_validate(
            {
                "input": {
                    "first_frame": {"type": "base64", "media_type": "image/png", "data": "AAAA"}
                },
                "prompt": prompt,
                "export": options.model_dump(mode="json"),
                "video": video.model_dump(mode="json"),
            }
        )
    except ValidationError as exc:
        raise UsageError(_where(exc, {"prompt": prompt_flag, **FLAG_OF_FIELD})) from exc
