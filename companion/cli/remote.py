"""Commands that talk to the service (or, with no key, to the embedded sandbox)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError
from rich.console import Console
from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn

from companion.api.client import Client
from companion.api.errors import ApiStatusError, CompanionApiError, WaitTimeoutError
from companion.api.schema import (
    AnimationCreate,
    PreviewRequest,
    Selection,
    Task,
    VideoGenerationQuote,
    VideoOptions,
)
from companion.api.schema.base import first_error
from companion.jobs.animate import AnimateRequest, InputError, animate
from companion.settings.config import ConfigError, load_settings
from companion.settings.endpoint import Endpoint, open_endpoint

stderr = Console(stderr=True, highlight=False)


class RemoteError(Exception):
    """A failure to show the user as one line; the exit code rides along."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


Job = Callable[[Client, Endpoint, argparse.Namespace], Awaitable[int]]


def run(job: Job, args: argparse.Namespace) -> int:
    try:
        settings = load_settings()
    except ConfigError as exc:
        raise RemoteError(str(exc), 2) from exc

    async def main() -> int:
        async with open_endpoint(settings) as endpoint:
            if endpoint.sandbox:
                stderr.print(
                    "companion: no API key configured; using the embedded sandbox "
                    "(set COMPANION_API_KEY and COMPANION_BASE_URL for the service)"
                )
            async with Client(endpoint.base_url, endpoint.api_key) as client:
                return await job(client, endpoint, args)

    try:
        return asyncio.run(main())
    except ConfigError as exc:
        raise RemoteError(str(exc), 2) from exc
    except ApiStatusError as exc:
        hint = {
            401: "check COMPANION_API_KEY",
            402: "add credits to the account",
            429: "the account's limits were reached; try again later",
        }.get(exc.status, "")
        raise RemoteError(f"{exc}" + (f"; {hint}" if hint else "")) from exc
    except CompanionApiError as exc:
        raise RemoteError(str(exc)) from exc


def _print_model(model: BaseModel) -> None:
    print(model.model_dump_json(indent=2))


# -- animate ---------------------------------------------------------------------------------


def add_animate(
    commands: Any, add_export_options: Callable[[argparse.ArgumentParser], None]
) -> None:
    parser = commands.add_parser("animate", help="animate an image end to end (one click)")
    parser.add_argument("image", type=Path)
    parser.add_argument("--prompt", required=True)
    parser.add_argument("--last-frame", type=Path)
    parser.add_argument(
        "--ref", type=Path, action="append", default=[], help="a reference image (up to 8)"
    )
    parser.add_argument("--seconds", type=float, help="video length")
    parser.add_argument("--resolution", help="e.g. 480p, 720p")
    parser.add_argument("--seed", type=int)
    parser.add_argument("--model")
    parser.add_argument("--timeout", type=float, help="stop waiting after this many seconds")
    add_export_options(parser)
    parser.set_defaults(handler=lambda args: run(_animate, args))


def _animate_request(args: argparse.Namespace) -> AnimateRequest:
    from companion.cli.main import UsageError, export_options_from_args
    from companion.media.export import safe_name

    options, selection = export_options_from_args(args)
    try:
        transparency = {"mode": "alpha_key"} if options.transparent.enabled else None
        if transparency and args.key_color:
            transparency = {
                "mode": "alpha_key",
                "key_selection": "manual",
                "key_color": args.key_color,
            }
        video = VideoOptions.model_validate(
            {
                "duration_seconds": args.seconds,
                "resolution": args.resolution,
                "seed": args.seed,
                "model": args.model,
                "transparency": transparency,
            }
        )
        AnimationCreate.model_validate(
            {
                "input": {
                    "first_frame": {"type": "base64", "media_type": "image/png", "data": "AAAA"}
                },
                "prompt": args.prompt,
                "export": options.model_dump(),
                "video": video.model_dump(),
            }
        )
    except ValidationError as exc:
        param, message = first_error(exc)
        raise UsageError(f"{param}: {message}" if param else message) from exc
    settings_timeout = args.timeout if args.timeout is not None else 900.0
    return AnimateRequest(
        image=args.image,
        prompt=args.prompt,
        export=options,
        out=args.out,
        name=args.name or safe_name(args.image.stem),
        last_frame=args.last_frame,
        references=args.ref,
        video=video,
        selection=selection or Selection(),
        timeout=settings_timeout,
    )


async def _animate(client: Client, endpoint: Endpoint, args: argparse.Namespace) -> int:
    return await _run_animate(client, endpoint, _animate_request(args), as_json=args.json)


async def _run_animate(
    client: Client, endpoint: Endpoint, request: AnimateRequest, as_json: bool
) -> int:
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TaskProgressColumn(),
        TimeElapsedColumn(),
        console=stderr,
        transient=as_json,
    )
    bar = progress.add_task("submitting", total=1.0)

    def on_progress(task: Task) -> None:
        progress.update(bar, completed=task.progress, description=f"{task.status} {task.stage}")

    def on_quote(credits: int) -> None:
        stderr.print(f"quote: {credits} credits on {endpoint.label}")

    try:
        with progress:
            result = await animate(client, request, on_progress, on_quote)
    except InputError as exc:
        raise RemoteError(str(exc), 2) from exc
    except WaitTimeoutError as exc:
        task = exc.task
        raise RemoteError(
            f"{exc}; see it later with: companion assets get, or re-run "
            f"(task {getattr(task, 'id', '?')})"
        ) from exc
    task = result.task
    if as_json:
        print(json.dumps(result.summary()))
    else:
        stderr.print(f"task {task.id}: {task.status}; charged {task.credits.charged} credits")
        for output in result.outputs:
            print(f"  {output.format:<20} {output.path}  ({output.bytes:,} bytes)")
    if task.error is not None:
        stderr.print(f"companion: task failed: {task.error.code}: {task.error.message}")
    for reason in result.refused:
        stderr.print(f"companion: {reason}", markup=False, highlight=False)
    return 0 if task.status == "succeeded" and not result.refused else 1


# -- small commands --------------------------------------------------------------------------


def add_small_commands(commands: Any) -> None:
    credits = commands.add_parser("credits", help="available credits")
    credits.set_defaults(handler=lambda args: run(_credits, args))
    account = commands.add_parser("account", help="account, tier, key identity and limits")
    account.set_defaults(handler=lambda args: run(_account, args))
    models = commands.add_parser("models", help="live model capabilities")
    models.set_defaults(handler=lambda args: run(_models, args))

    quote = commands.add_parser("quote", help="price of a video generation")
    quote.add_argument("--seconds", type=float)
    quote.add_argument("--resolution")
    quote.add_argument("--last-frame", action="store_true")
    quote.add_argument("--refs", type=int, default=0)
    quote.add_argument("--transparent", action="store_true")
    quote.set_defaults(handler=lambda args: run(_quote, args))

    assets = commands.add_parser("assets", help="look up or download an asset")
    verbs = assets.add_subparsers(dest="verb", required=True)
    get = verbs.add_parser("get")
    get.add_argument("asset_id")
    get.set_defaults(handler=lambda args: run(_asset_get, args))
    download = verbs.add_parser("download")
    download.add_argument("asset_id")
    download.add_argument("--out", type=Path, required=True, help="file to write")
    download.set_defaults(handler=lambda args: run(_asset_download, args))

    preview = commands.add_parser("preview", help="labelled contact sheet of a video asset")
    preview.add_argument("asset_id")
    preview.add_argument(
        "--at",
        type=float,
        action="append",
        required=True,
        help="a timestamp in seconds (1 to 12 of them)",
    )
    preview.add_argument("--max-frame-size", type=int, default=256)
    preview.add_argument("--out", type=Path, help="also download the sheet here")
    preview.set_defaults(handler=lambda args: run(_preview, args))


async def _credits(client: Client, endpoint: Endpoint, args: argparse.Namespace) -> int:
    from companion.cli.jobs import books

    balance = (await client.get_credit_balance()).available
    spend = books(load_settings())
    print(f"available: {balance} credits on {endpoint.label}")
    print(f"spent today: {spend['today']}, this month: {spend['month']}")
    for row in spend["jobs"]:
        print(f"  {row['job'][:8]}  {row['state']:<18} {row['credits']:>6}  {row['name']}")
    return 0


async def _account(client: Client, endpoint: Endpoint, args: argparse.Namespace) -> int:
    _print_model(await client.get_account())
    return 0


async def _models(client: Client, endpoint: Endpoint, args: argparse.Namespace) -> int:
    _print_model(await client.list_models())
    return 0


async def _quote(client: Client, endpoint: Endpoint, args: argparse.Namespace) -> int:
    try:
        body = VideoGenerationQuote.model_validate(
            {
                "has_last_frame": args.last_frame,
                "reference_image_count": args.refs,
                "video": {
                    "duration_seconds": args.seconds,
                    "resolution": args.resolution,
                    "transparency": {"mode": "alpha_key"} if args.transparent else None,
                },
            }
        )
    except ValidationError as exc:
        param, message = first_error(exc)
        raise RemoteError(f"{param}: {message}", 2) from exc
    _print_model(await client.quote_video_generation(body))
    return 0


async def _asset_get(client: Client, endpoint: Endpoint, args: argparse.Namespace) -> int:
    asset = await client.get_asset(args.asset_id)
    # The signed URL is a secret: show that there is one, not what it is.
    shown = asset.model_dump(mode="json")
    shown["download_url"] = "(signed; use: companion assets download)"
    print(json.dumps(shown, indent=2))
    return 0


async def _asset_download(client: Client, endpoint: Endpoint, args: argparse.Namespace) -> int:
    asset = await client.get_asset(args.asset_id)
    path = await client.download_asset(asset, args.out)
    print(f"{path} ({path.stat().st_size:,} bytes)")
    return 0


async def _preview(client: Client, endpoint: Endpoint, args: argparse.Namespace) -> int:
    try:
        body = PreviewRequest(timestamps_seconds=args.at, max_frame_size=args.max_frame_size)
    except ValidationError as exc:
        param, message = first_error(exc)
        raise RemoteError(f"{param}: {message}", 2) from exc
    preview = await client.preview_asset(args.asset_id, body)
    for cell in preview.cells:
        print(
            f"#{cell.index} asked {cell.requested_time_seconds:.3f} s, shows "
            f"{cell.source_time_seconds:.3f} s at {cell.rect.x},{cell.rect.y}"
        )
    if args.out is not None:
        await client.download_asset(preview.image, args.out)
        print(f"{args.out}")
    return 0


def run_demo(image: Path, out: Path) -> int:
    from companion.api.schema import ExportFormat, ExportOptions

    args = argparse.Namespace(json=False, demo_image=image, demo_out=out)

    async def job(client: Client, endpoint: Endpoint, _: argparse.Namespace) -> int:
        request = AnimateRequest(
            image=image,
            prompt="idle breathing",
            name="hero",
            out=out,
            export=ExportOptions.model_validate(
                {
                    "frame_count": 12,
                    "output_width": 256,
                    "output_height": 256,
                    "transparent": True,
                    "output_formats": [f.value for f in ExportFormat],
                }
            ),
            video=VideoOptions.model_validate(
                {"duration_seconds": 2, "resolution": "480p", "transparency": {"mode": "alpha_key"}}
            ),
        )
        return await _run_animate(client, endpoint, request, as_json=False)

    return run(job, args)


def fail(exc: RemoteError) -> int:
    print(f"companion: error: {exc}", file=sys.stderr)
    return exc.code
