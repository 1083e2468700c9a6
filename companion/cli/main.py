"""The `companion` command line: thin adapters over the engine, one clear line on error."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from pydantic import ValidationError

from companion import __version__
from companion.api.schema import ExportOptions, Selection
from companion.api.schema.base import first_error
from companion.media import FORMATS, ExportResult, ExportSpec, MediaError, export_video
from companion.media.chroma import parse_hex_colour
from companion.media.export import safe_name
from companion.media.from_schema import export_spec

DEFAULT_KEY_COLOUR = "#00ff00"


class UsageError(Exception):
    """Options that contradict each other or the spec's bounds."""


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


def _first_error(exc: ValidationError) -> str:
    param, message = first_error(exc)
    where = ".".join(p for p in (param or "").split(".") if not p.isdigit())
    where = FLAG_OF_FIELD.get(where, where)
    return f"{where}: {message}" if where else message


def _add_export_options(parser: argparse.ArgumentParser, with_out: bool = True) -> None:
    parser.add_argument(
        "--formats", required=True, help=f"comma-separated, from: {','.join(FORMATS)}"
    )
    if with_out:
        parser.add_argument("--out", required=True, type=Path, help="folder for the outputs")
    sampling = parser.add_mutually_exclusive_group()
    sampling.add_argument("--frame-count", type=int, help="frames spread evenly (default 24)")
    sampling.add_argument("--fps", type=float, help="sample at source speed, this many a second")
    parser.add_argument("--width", type=int, default=512, help="frame width, 64 to 1024")
    parser.add_argument("--height", type=int, default=512, help="frame height, 64 to 1024")
    parser.add_argument("--start", type=float, help="selection start in seconds")
    parser.add_argument("--duration", type=float, help="selection length in seconds")
    parser.add_argument("--transparent", action="store_true", help="key out the key colour")
    parser.add_argument("--key-color", help=f"hex key colour (default {DEFAULT_KEY_COLOUR})")
    parser.add_argument("--pivot", default="bottom_center", help="sprite pivot")
    parser.add_argument("--pixels-per-unit", type=float, default=100.0)
    parser.add_argument(
        "--pixel-art", action="store_true", help="nearest-neighbour scaling and no dithering"
    )
    parser.add_argument("--name", help="base name of the files (default: the video's name)")
    parser.add_argument("--godot-res-dir", help="res:// folder the Godot pack will live in")
    parser.add_argument("--json", action="store_true", help="print one JSON summary")


def export_options_from_args(args: argparse.Namespace) -> tuple[ExportOptions, Selection]:
    """Validate export options with the service's own rules."""
    if args.key_color and not args.transparent:
        raise UsageError("--key-color needs --transparent")
    if args.key_color:
        try:
            parse_hex_colour(args.key_color)
        except MediaError as exc:
            raise UsageError(str(exc)) from exc
    formats = [f.strip() for f in args.formats.split(",") if f.strip()]
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
        raise UsageError(_first_error(exc)) from exc
    return options, selection


def export_spec_from_args(args: argparse.Namespace, default_name: str) -> ExportSpec:
    """Validate with the service's own rules, then describe the job for the engine."""
    options, selection = export_options_from_args(args)
    key = None
    if options.transparent.enabled:
        key = parse_hex_colour(args.key_color or DEFAULT_KEY_COLOUR)
    return export_spec(
        options,
        selection,
        name=args.name or default_name,
        key_color=key,
        pixel_art=args.pixel_art,
        godot_res_dir=args.godot_res_dir,
    )


def _report(result: ExportResult, as_json: bool) -> None:
    for warning in result.warnings:
        print(f"companion: warning: {warning}", file=sys.stderr)
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
    spec = export_spec_from_args(args, safe_name(args.video.stem))
    _report(export_video(args.video, args.out, spec), args.json)
    return 0


def cmd_openapi(args: argparse.Namespace) -> int:
    from companion.api.openapi import render_openapi

    text = render_openapi()
    if args.out is None:
        sys.stdout.write(text)
    else:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)
        print(f"wrote {args.out}")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    """The main job on a fresh machine: draw a character and animate it in one click,
    against the configured service or, with no key, the embedded sandbox."""
    from companion.cli.remote import run_demo
    from companion.media.demo_art import draw_character

    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    image = out / "hero.png"
    draw_character().save(image)
    print(f"drew {image}")
    return run_demo(image, out / "animation")


def cmd_status(args: argparse.Namespace) -> int:
    import json as json_module

    from companion.cli.remote import RemoteError
    from companion.settings.config import ConfigError, load_settings

    try:
        settings = load_settings()
    except ConfigError as exc:
        raise RemoteError(str(exc), 2) from exc
    path = settings.home / "daemon.json"
    if not path.exists():
        raise RemoteError("the daemon is not running; start it with: companion serve")
    info = json_module.loads(path.read_text())
    print(f"daemon {info['version']} (pid {info['pid']}) on http://127.0.0.1:{info['port']}")
    print(
        f"status page (keep this link to yourself): "
        f"http://127.0.0.1:{info['port']}/?token={info['token']}"
    )
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    import logging

    from companion.cli.remote import RemoteError
    from companion.daemon.server import run_forever
    from companion.settings.config import ConfigError, load_settings

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    try:
        settings = load_settings()
    except ConfigError as exc:
        raise RemoteError(str(exc), 2) from exc
    return run_forever(settings, args.port)


def cmd_sandbox(args: argparse.Namespace) -> int:
    import asyncio

    from companion.sandbox import Limits, Sandbox, SandboxConfig, serve_forever
    from companion.sandbox.faults import Faults

    try:
        Faults(args.faults)
    except ValueError as exc:
        raise UsageError(str(exc)) from exc
    limits = None
    if args.limits:
        try:
            limits = Limits(*(int(v) for v in args.limits.split(",")))
        except (TypeError, ValueError) as exc:
            raise UsageError(
                "--limits takes CONCURRENCY,QUEUE,CREATES,OTHERS (per minute)"
            ) from exc
    config = SandboxConfig(
        api_keys=args.api_key or ["sk-sandbox"],
        read_only_keys=args.read_only_key or [],
        paused_keys=args.paused_key or [],
        ineligible_keys=args.ineligible_key or [],
        disabled_keys=args.disabled_key or [],
        credits=args.credits,
        task_seconds=args.task_seconds,
        tier=args.tier,
        faults=args.faults,
        state=args.state,
        url_seconds=args.url_seconds,
        limits=limits,
    )
    asyncio.run(serve_forever(Sandbox(config, args.host, args.port, args.storage_port)))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="companion", description=__doc__)
    parser.add_argument("--version", action="version", version=f"companion {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    export = commands.add_parser("export", help="convert a video into engine-ready formats")
    export.add_argument("video", type=Path)
    _add_export_options(export)
    export.set_defaults(handler=cmd_export)

    from companion.cli.remote import add_animate, add_small_commands

    add_animate(commands, _add_export_options)
    add_small_commands(commands)
    from companion.cli.jobs import add_jobs_commands

    add_jobs_commands(commands, lambda p: _add_export_options(p, with_out=False))
    from companion.cli.team import add_team_commands

    add_team_commands(commands)

    status = commands.add_parser("status", help="the running daemon, and its status page link")
    status.set_defaults(handler=cmd_status)

    serve = commands.add_parser("serve", help="run the daemon for editor plugins")
    serve.add_argument("--port", type=int, default=8791, help="localhost port (0: any free)")
    serve.set_defaults(handler=cmd_serve)

    openapi = commands.add_parser("openapi", help="print the remote API's OpenAPI document")
    openapi.add_argument("--out", type=Path)
    openapi.set_defaults(handler=cmd_openapi)

    sandbox = commands.add_parser(
        "sandbox",
        help="run the local emulator of the remote service",
        description="Serves all operations under /v1 and prints the base URL once it "
        "accepts connections. Keys may name an account as ACCOUNT:KEY.",
    )
    sandbox.add_argument("--host", default="127.0.0.1")
    sandbox.add_argument("--port", type=int, default=8790)
    sandbox.add_argument(
        "--storage-port",
        type=int,
        default=0,
        help="port of the download origin (default: any free port)",
    )
    sandbox.add_argument("--api-key", action="append", help="a key with read and write scopes")
    sandbox.add_argument("--read-only-key", action="append", help="a key with the read scope")
    sandbox.add_argument("--paused-key", action="append", help="a key whose account is paused")
    sandbox.add_argument(
        "--ineligible-key", action="append", help="a key whose account is not eligible"
    )
    sandbox.add_argument(
        "--disabled-key", action="append", help="a key whose account has API access disabled"
    )
    sandbox.add_argument("--credits", type=int, default=1000, help="starting credits per account")
    sandbox.add_argument("--task-seconds", type=float, default=2.0, help="least time a task takes")
    sandbox.add_argument(
        "--tier", default="registered", choices=["registered", "basic", "expert", "ultra"]
    )
    sandbox.add_argument("--limits", help="override the tier: CONCURRENCY,QUEUE,CREATES,OTHERS")
    sandbox.add_argument("--faults", default="none", help="PROFILE[:SEED], see README")
    sandbox.add_argument("--state", type=Path, help="keep state across restarts in this file")
    sandbox.add_argument(
        "--url-seconds", type=int, default=300, help="lifetime of signed download URLs"
    )
    sandbox.set_defaults(handler=cmd_sandbox)

    demo = commands.add_parser("demo", help="synthesize a sample animation and export it")
    demo.add_argument("--out", type=Path, default=Path("out/demo"))
    demo.set_defaults(handler=cmd_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from companion.cli.remote import RemoteError, fail

    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args))
    except UsageError as exc:
        print(f"companion: error: {exc}", file=sys.stderr)
        return 2
    except MediaError as exc:
        print(f"companion: error: {exc}", file=sys.stderr)
        return 1
    except RemoteError as exc:
        return fail(exc)
    except KeyboardInterrupt:
        return 130
