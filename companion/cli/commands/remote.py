"""Commands that ask the service (or, with no key, the embedded sandbox) and change
nothing locally: credits, account, models, quote, assets, preview."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from pydantic import BaseModel, ValidationError

from companion.api.client import Client
from companion.api.schema import PreviewRequest, VideoGenerationQuote
from companion.api.schema.base import first_error
from companion.cli.errors import UsageError, say
from companion.cli.session import with_service
from companion.settings.config import Settings
from companion.settings.endpoint import Endpoint


def _print_model(model: BaseModel) -> None:
    print(model.model_dump_json(indent=2))


def cmd_credits(args: argparse.Namespace) -> int:
    from companion.cli.books import books, disagreement, follow_books

    async def job(client: Client, endpoint: Endpoint, settings: Settings) -> int:
        await follow_books(client, endpoint, settings)
        balance = (await client.get_credit_balance()).available
        spend = books(settings, balance)
        if args.json:
            print(json.dumps({"available": balance, "service": endpoint.label, **spend}))
            return 0
        print(f"available: {balance} credits on {endpoint.label}")
        print(
            f"spent today: {spend['spent_today']}, this month: {spend['spent_month']}; "
            f"held by running jobs: {spend['held']}; released or refunded today: "
            f"{spend['released_today']}, this month: {spend['released_month']}"
        )
        warning = disagreement(spend.get("drift"), spend.get("drift_since"))
        if warning:
            print(warning)
        for row in spend["jobs"]:
            moved = f"spent {row['spent']}"
            if row["held"]:
                moved += f", held {row['held']}"
            if row["released"] or row["refunded"]:
                moved += f", released {row['released'] + row['refunded']}"
            print(f"  {row['job'][:8]}  {row['state']:<18} {moved:<28} {row['name']}")
        return 0

    return with_service(job)


def cmd_account(args: argparse.Namespace) -> int:
    async def job(client: Client, endpoint: Endpoint, settings: Settings) -> int:
        _print_model(await client.get_account())
        return 0

    return with_service(job)


def cmd_models(args: argparse.Namespace) -> int:
    """The listing as read (our vocabulary: what could not be read is left out, and the
    service decides it at quote); --raw: as the service sent it."""

    async def job(client: Client, endpoint: Endpoint, settings: Settings) -> int:
        models = await client.list_models()
        if args.raw:
            print(json.dumps(models.raw, indent=2))
            return 0
        _print_model(models)
        if models.shape != "known":
            say(
                f"companion: the service lists its models in a shape this companion does not "
                f"know; shown is what it could read ({len(models.data)} models), and what it "
                "could not the service decides at quote (see: companion models --raw)"
            )
        return 0

    return with_service(job)


def cmd_quote(args: argparse.Namespace) -> int:
    try:
        body = VideoGenerationQuote.model_validate(
            {
                "has_last_frame": args.last_frame,
                "reference_image_count": args.refs,
                "video": {
                    "duration_seconds": args.seconds,
                    "model": args.model,
                    "resolution": args.resolution,
                    "transparency": {"mode": "alpha_key"} if args.transparent else None,
                },
            }
        )
    except ValidationError as exc:
        param, message = first_error(exc)
        flag = {"video.duration_seconds": "--seconds", "reference_image_count": "--refs"}
        raise UsageError(f"{flag.get(param or '', param)}: {message}") from exc

    async def job(client: Client, endpoint: Endpoint, settings: Settings) -> int:
        _print_model(await client.quote_video_generation(body))
        return 0

    return with_service(job)


def cmd_asset_get(args: argparse.Namespace) -> int:
    async def job(client: Client, endpoint: Endpoint, settings: Settings) -> int:
        asset = await client.get_asset(args.asset_id)
        # The signed URL is a secret: show that there is one, not what it is.
        shown = asset.model_dump(mode="json")
        shown["download_url"] = "(signed; use: companion assets download)"
        print(json.dumps(shown, indent=2))
        return 0

    return with_service(job)


def _writable_file(path: Path, flag: str) -> None:
    if path.is_dir():
        raise UsageError(f"{flag} {path}: is a folder; give a file name to write")
    if path.exists():
        say(f"companion: will replace {path}")


def cmd_asset_download(args: argparse.Namespace) -> int:
    _writable_file(args.out, "--out")

    from companion.cli.progress import reporter

    async def job(client: Client, endpoint: Endpoint, settings: Settings) -> int:
        asset = await client.get_asset(args.asset_id)
        shown = reporter()
        client.downloader.on_bytes = lambda name, done, total: shown.update(
            f"downloading {name}", done / total if total else 1.0, done, total
        )
        try:
            path = await client.download_asset(asset, args.out)
        finally:
            shown.close()
        print(f"{path} ({path.stat().st_size:,} bytes)")
        return 0

    return with_service(job)


def cmd_preview(args: argparse.Namespace) -> int:
    try:
        body = PreviewRequest(timestamps_seconds=args.at, max_frame_size=args.max_frame_size)
    except ValidationError as exc:
        param, message = first_error(exc)
        flag = {"timestamps_seconds": "--at", "max_frame_size": "--max-frame-size"}
        raise UsageError(f"{flag.get(param or '', param)}: {message}") from exc
    if args.out is not None:
        _writable_file(args.out, "--out")

    async def job(client: Client, endpoint: Endpoint, settings: Settings) -> int:
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

    return with_service(job)
