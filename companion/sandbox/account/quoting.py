"""What a body costs, checked as a create would be: the video settings against the
model, transparency against the formats asked for, an export's source and selection;
the prices themselves are the table of pricing.py."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from companion.api.schema import (
    ALPHA_REQUIRED_FORMATS,
    AnimationCreate,
    AnimationExportCreate,
    VideoGenerationCreate,
)
from companion.sandbox.account.pricing import Price, export_price, frames_of, video_price
from companion.sandbox.errors import invalid
from companion.sandbox.face import Face
from companion.sandbox.models import check_video
from companion.sandbox.state import Account
from companion.sandbox.views import Views


def quote_json(price: Price) -> web.Response:
    return web.json_response(
        {"object": "quote", "credits": price.total, "breakdown": price.breakdown()}
    )


def generation_price(body: VideoGenerationCreate, face: Face) -> Price:
    check_video(
        body.video,
        prompt=body.prompt,
        negative_prompt=body.negative_prompt,
        has_last_frame=body.input.last_frame is not None,
        reference_images=len(body.input.reference_images),
        face=face,
    )
    return video_price(
        body.video, body.input.last_frame is not None, len(body.input.reference_images)
    )


def check_alpha(export: Any, alpha_key: bool) -> None:
    if alpha_key:
        return
    if export.transparent.enabled:
        raise invalid("transparent export needs an alpha_key source video", "export.transparent")
    needing = [f.value for f in export.formats if f in ALPHA_REQUIRED_FORMATS]
    if needing:
        raise invalid(
            f"{', '.join(needing)} need an alpha_key source video", "export.output_formats"
        )


def animation_price(body: AnimationCreate, face: Face) -> Price:
    price = generation_price(body, face)
    transparency = body.video.transparency
    check_alpha(body.export, transparency is not None and transparency.mode == "alpha_key")
    seconds = body.video.duration_seconds or 3.0
    export = export_price(body.export, frames_of(body.export, seconds))
    return Price(price.video, export.export, price.items + export.items)


def export_price_of(views: Views, account: Account, body: AnimationExportCreate) -> Price:
    """An export's price; its source video must be one of the account's own."""
    source = views.owned_asset(account, str(body.source_video_asset_id), "source_video_asset_id")
    if source.media is None or not source.mime_type.startswith("video/"):
        raise invalid("the source must be a video asset", "source_video_asset_id")
    check_alpha(body.export, source.key_color is not None)
    duration = float(source.media.get("duration_seconds") or 0)
    start = body.selection.start_seconds
    if start >= duration:
        raise invalid(
            f"the selection starts after the video ends ({duration:.3f} s)",
            "selection.start_seconds",
        )
    span = min(duration - start, body.selection.duration_seconds or duration)
    return export_price(body.export, frames_of(body.export, span))
