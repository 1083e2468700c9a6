"""A video length the chosen model does not make, refused before a job is accepted: the
service would refuse it at the job's own quote, after the daemon had answered 202. Only
what the listing says is held against (a model named, or the one it marks as its
default); the rest is the service's to say at quote."""

from __future__ import annotations

from pathlib import Path

from companion.api.errors import CompanionApiError
from companion.api.schema import ModelsResponse, VideoOptions
from companion.jobs import Engine, cached_models, live_models, unmade_length


async def _listing(
    engine: Engine, cache: Path, service: str, online: bool
) -> ModelsResponse | None:
    """The live listing, or None when it cannot be had now. While the daemon knows the
    service is away only the kept listing is read: asking would hold the request through
    the client's retries (about 20 s) for an answer that is known."""
    if not online:
        return cached_models(cache, service)
    try:
        return await live_models(engine.client, cache, service)
    except CompanionApiError:
        return None


async def length_refusal(
    engine: Engine, cache: Path, service: str, video: VideoOptions, online: bool
) -> str | None:
    """The message naming video.duration_seconds when the live listing gives the model's
    lengths and this is not one of them; None when it fits or nothing can be said."""
    seconds = video.duration_seconds
    if seconds is None:
        return None
    models = await _listing(engine, cache, service, online)
    if models is None:
        return None  # not reachable now: the job's own quote refuses it, nothing spent
    model = unmade_length(models, video.model, seconds)
    if model is None:
        return None
    lengths = ", ".join(f"{s:g}" for s in model.durations_seconds)
    return (
        f"video.duration_seconds: model {model.id} makes videos of {lengths} s; choose one "
        "of those (nothing was spent)"
    )


async def listing_for(
    engine: Engine, cache: Path, service: str, video: VideoOptions, online: bool
) -> ModelsResponse | None:
    """The live listing for the picture's defaults: does the model named make keyed
    videos, or, with none named, which listed model does (defaults.keyed_on)? None when
    it cannot be had now: a named model is then not taken to key, and with none named
    the request goes as given and the service decides at quote."""
    return await _listing(engine, cache, service, online)
