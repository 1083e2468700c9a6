"""Every check the command line can make before anything is spent or written, each
failure naming the flag and what to do (exit 2)."""

from __future__ import annotations

import argparse
import contextlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from companion.api.schema import (
    AnimationCreate,
    ExportOptions,
    ModelsResponse,
    Selection,
    VideoOptions,
)
from companion.api.schema.base import first_error
from companion.cli.errors import InputFailure, UsageError
from companion.cli.options import ALPHA_ONLY_FORMATS, DEFAULT_KEY_COLOUR, FORMAT_NAMES
from companion.media import DEFAULT_SPACING, MAX_SPACING, NO_SPACING, MediaError, Spacing

MAX_SECONDS = 30  # the spec's bound on a generated video
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


def _where(exc: ValidationError, flags: dict[str, str]) -> str:
    param, message = first_error(exc)
    where = ".".join(p for p in (param or "").split(".") if not p.isdigit())
    where = flags.get(where, where)
    if where:
        return f"{where}: {message}"
    for start, (flag, hint) in FLAG_OF_RULE.items():
        if message.startswith(start):
            return f"{flag}: {message}" + (f"; {hint}" if hint else "")
    return message


def did_you_mean(given: str, names: tuple[str, ...]) -> str | None:
    """The name (or the few names) meant, when close: the start of a name (godot ->
    godot_pack, unity -> unity_meta or unity_pack), or a near spelling (spritesheat ->
    spritesheet)."""
    import difflib

    text = given.strip().lower().replace("-", "_")
    starting = [n for n in names if n.startswith(text) or text.startswith(n)]
    if 1 <= len(starting) <= 3:
        return " or ".join(starting)
    close = difflib.get_close_matches(text, names, n=1, cutoff=0.75)
    return close[0] if close else None


def formats_from(text: str, transparent: bool) -> list[str]:
    formats = [f.strip() for f in text.split(",") if f.strip()]
    if not formats:
        raise UsageError(f"--formats: give at least one format, from: {', '.join(FORMAT_NAMES)}")
    unknown = [f for f in formats if f not in FORMAT_NAMES]
    if unknown:
        guesses = [g for g in (did_you_mean(u, FORMAT_NAMES) for u in unknown) if g]
        raise UsageError(
            f"--formats: {', '.join(repr(u) for u in unknown)} is not a format"
            + (f"; did you mean {' or '.join(guesses)}?" if guesses else "")
            + f" (formats: {', '.join(FORMAT_NAMES)})"
        )
    alpha_only = [f for f in formats if f in ALPHA_ONLY_FORMATS]
    if alpha_only and not transparent:
        raise UsageError(
            f"--formats {','.join(alpha_only)} exists for transparency: add --transparent "
            "(or choose gif, frames_zip or spritesheet)"
        )
    return formats


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


def godot_res_dir(value: str | None) -> str | None:
    if value is None:
        return None
    if not value.startswith("res://") or ".." in value.split("/"):
        raise UsageError(
            f"--godot-res-dir {value}: give a folder inside the Godot project as "
            "res://path/to/folder"
        )
    return value.rstrip("/") or "res://"


def export_options(args: argparse.Namespace) -> tuple[ExportOptions, Selection]:
    """The export flags, checked with the service's own rules."""
    key_colour(args)
    godot_res_dir(getattr(args, "godot_res_dir", None))
    formats = formats_from(args.formats, args.transparent)
    for flag, value in (("--start", args.start), ("--duration", args.duration)):
        if value is not None and value < 0:
            raise UsageError(f"{flag} {value:g}: give seconds from 0")
    try:
        options = ExportOptions(
            fps=args.fps,
            frame_count=args.frame_count,
            output_formats=formats,
            output_width=args.width,
            output_height=args.height,
            transparent=args.transparent,
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
    too_long: float | None = None  # --seconds past the spec's bound, left to the models


def one_click_args(args: argparse.Namespace, *, lengths_later: bool = False) -> OneClickArgs:
    """Every check of a one-click animation that needs no service, in the order a user
    fixes them; `animate` and `jobs add` share them. With lengths_later, a --seconds past
    the spec's bound is returned as too_long, for the caller to refuse naming the lengths
    the live model offers (and video then has no length: it must not be sent)."""
    frame_count_only(args)
    options, selection = export_options(args)
    too_long = args.seconds if lengths_later and (args.seconds or 0) > MAX_SECONDS else None
    video = video_options(args, None if too_long is not None else args.seconds)
    one_click(options, video, args.prompt)
    image = input_file(args.image, "image")
    last = input_file(args.last_frame, "--last-frame") if args.last_frame else None
    refs = [input_file(p, "--ref") for p in args.ref]
    if args.seconds is not None and (args.start is not None or args.duration is not None):
        selection_fits(args, args.seconds, "the video (--seconds)")
    return OneClickArgs(options, selection, video, image, last, refs, too_long)


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


def video_options(args: argparse.Namespace, seconds: float | None = None) -> VideoOptions:
    """The generation flags, checked with the spec's bounds (the live models come later);
    seconds is --seconds, or None where the length is left out."""
    if seconds is not None and not 0 < seconds <= MAX_SECONDS:
        raise UsageError(
            f"--seconds {seconds:g}: a video is longer than 0 and at most "
            f"{MAX_SECONDS} s, and the model decides which lengths it offers "
            "(see: companion models)"
        )
    if not args.prompt.strip():
        raise UsageError("--prompt: say what should move, e.g. --prompt 'idle breathing'")
    transparency = None
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


def one_click(options: ExportOptions, video: VideoOptions, prompt: str) -> None:
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
        raise UsageError(_where(exc, {"prompt": "--prompt", **FLAG_OF_FIELD})) from exc


def input_file(path: Path, flag: str, kind: str = "an image file (PNG, JPEG, WebP)") -> Path:
    """An input named on the command line: a readable file (exit 1 if not)."""
    if path.is_dir():
        raise InputFailure(f"{flag} {path}: is a folder; give {kind}")
    if not path.exists():
        raise InputFailure(f"{flag} {path}: no such file")
    if not os.access(path, os.R_OK):
        raise InputFailure(f"{flag} {path}: cannot be read; check its permissions")
    return path.resolve()


def output_folder(out: Path, flag: str = "--out") -> Path:
    """A folder the outputs can go into: one that exists and takes a file, or one that
    can be made. Missing folders are made to prove it, then removed again, so a refusal
    later in the checks leaves nothing behind."""
    if out.exists() and not out.is_dir():
        raise UsageError(f"{flag} {out}: is a file; give a folder for the outputs")
    folder = out.resolve()
    missing: list[Path] = []
    probe = folder
    while not probe.exists():
        missing.append(probe)
        probe = probe.parent
    if not probe.is_dir():
        raise UsageError(f"{flag} {out}: {probe} is a file; give a folder for the outputs")
    made: list[Path] = []
    try:
        for step in reversed(missing):
            step.mkdir()
            made.append(step)
        with tempfile.TemporaryFile(dir=folder, prefix=".companion-probe-"):
            pass
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise UsageError(
            f"{flag} {out}: cannot write there ({reason}); choose a folder you can write to"
        ) from exc
    finally:
        for step in reversed(made):
            with contextlib.suppress(OSError):
                step.rmdir()
    return folder


def never_over_a_source(outputs: list[Path], sources: list[Path]) -> None:
    """No output may land on a file the command reads."""
    resolved = {s.resolve(): s for s in sources}
    for path in outputs:
        source = resolved.get(path.resolve())
        if source is not None:
            raise UsageError(
                f"--out/--name: the output {path.name} would replace the input {source}; "
                "choose another --name or --out"
            )


def existing_outputs(outputs: list[Path]) -> list[Path]:
    """Files the outputs will replace; folders in their way are refused."""
    for path in outputs:
        if path.is_dir():
            raise UsageError(
                f"--out/--name: {path} is a folder where an output file goes; "
                "choose another --name or --out"
            )
    return [p for p in outputs if p.exists()]


def base_name(name: str | None, source: Path) -> str:
    from companion.media import clean_name, is_clean_name

    if name is None:
        return clean_name(source.stem)
    if not is_clean_name(name):
        raise UsageError(
            f"--name {name!r} holds characters a file system or engine refuses "
            f"(or is too long); use {clean_name(name)!r}"
        )
    return name


def output_paths(out: Path, name: str, formats: list[str]) -> list[Path]:
    from companion.media import FILE_SUFFIX

    return [out / f"{name}{FILE_SUFFIX[f]}" for f in formats]


def _listed(values: list[float] | list[str]) -> str:
    return ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in values)


def too_long(seconds: float, video: VideoOptions, models: ModelsResponse) -> UsageError:
    """--seconds past the spec's bound, said with the lengths the chosen model offers."""
    by_id = {m.id: m for m in models.data}
    model = by_id.get(video.model or "") or (models.data[0] if models.data else None)
    if model is None or not model.durations_seconds:
        return UsageError(
            f"--seconds {seconds:g}: a video is at most {MAX_SECONDS} s (see: companion models)"
        )
    return UsageError(
        f"--seconds {seconds:g}: model {model.id} makes videos of "
        f"{_listed(model.durations_seconds)} s; choose one of those"
    )


def against_models(
    video: VideoOptions,
    models: ModelsResponse,
    *,
    has_last_frame: bool,
    references: int,
    prompt: str,
) -> None:
    """The generation flags against what the live models offer (before any quote)."""
    if not models.data:
        return
    by_id = {m.id: m for m in models.data}
    if video.model is not None and video.model not in by_id:
        raise UsageError(
            f"--model {video.model}: no such model; choose from {', '.join(by_id)} "
            "(see: companion models)"
        )
    model = by_id[video.model] if video.model else models.data[0]
    named = f"model {model.id}"
    seconds = video.duration_seconds
    if seconds is not None and model.durations_seconds and seconds > max(model.durations_seconds):
        raise UsageError(
            f"--seconds {seconds:g}: {named} makes videos of "
            f"{_listed(model.durations_seconds)} s; choose one of those"
        )
    if model.resolutions and video.resolution not in (None, *model.resolutions):
        raise UsageError(
            f"--resolution {video.resolution}: {named} offers "
            f"{_listed(model.resolutions)}; choose one of those"
        )
    if has_last_frame and model.supports_last_frame is False:
        raise UsageError(f"--last-frame: {named} takes no last frame; leave it out")
    if model.max_reference_images is not None and references > model.max_reference_images:
        raise UsageError(
            f"--ref: {named} takes at most {model.max_reference_images} reference images"
        )
    if model.requires_prompt and not prompt.strip():
        raise UsageError(f"--prompt: {named} needs a prompt")
    mode = video.transparency.mode if video.transparency else "standard"
    if model.transparency_modes and mode not in model.transparency_modes:
        raise UsageError(f"--transparent: {named} cannot make a video with a key colour")
