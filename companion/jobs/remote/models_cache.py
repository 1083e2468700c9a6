"""The live model listing (GET /models), kept for a few minutes per service so that
checking options before a quote costs no round trip on every command."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING

from companion.api.schema import ModelInfo, ModelsResponse, VideoOptions

if TYPE_CHECKING:  # a type only: reading the kept listing needs no HTTP client
    from companion.api.client import Client

TTL_SECONDS = 300.0
ALPHA_KEY = "alpha_key"  # the transparency mode that makes a keyed video (spec 2.10)


def cached_models(cache_dir: Path, service: str) -> ModelsResponse | None:
    """The listing kept for service while it is fresh; None when there is none."""
    try:
        cached = json.loads((cache_dir / "models.json").read_text())
        if cached["service"] == service and time.time() - cached["at"] < TTL_SECONDS:
            return ModelsResponse.model_validate(cached["models"])
    except (OSError, ValueError, KeyError, TypeError):
        pass  # no cache, or one from an older shape: ask again
    return None


async def live_models(client: Client, cache_dir: Path, service: str) -> ModelsResponse:
    """The listing, from the cache while it is fresh and from the same service. service
    is the endpoint's label, which the CLI and the daemon both pass, so they share it."""
    path = cache_dir / "models.json"
    kept = cached_models(cache_dir, service)
    if kept is not None:
        return kept
    models = await client.list_models()
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        fresh = {"service": service, "at": time.time(), "models": models.model_dump(mode="json")}
        temporary = path.with_suffix(".tmp")
        temporary.write_text(json.dumps(fresh))
        temporary.replace(path)
    except OSError:
        pass  # a cache that cannot be written only costs a round trip next time
    return models


def chosen_model(models: ModelsResponse, name: str | None) -> ModelInfo | None:
    """The model a job runs on, as far as the listing says: the one named, or with none
    named the one the listing marks as its default; None when it cannot say (the spec
    gives no order to the listing: its first is not taken to be the default)."""
    return models.named(name) if name is not None else models.default_model


def keying_model(models: ModelsResponse, video: VideoOptions) -> ModelInfo | None:
    """A listed model that makes keyed videos (`alpha_key`), for a picture that wants
    keying with no model named: the listing's default when it says it keys, else the
    first that keys and makes what else was asked (its length, resolution, ratio, style,
    as far as it lists them); None when none does or the listing cannot say."""
    default = models.default_model
    if default is not None and ALPHA_KEY in default.transparency_modes:
        return default
    for model in models.data:
        if ALPHA_KEY in model.transparency_modes and _makes(model, video):
            return model
    return None


def _makes(model: ModelInfo, video: VideoOptions) -> bool:
    asked: list[tuple[object, list[float] | list[str]]] = [
        (video.duration_seconds, model.durations_seconds),
        (video.resolution, model.resolutions),
        (video.ratio, model.ratios),
        (video.style_preset, model.style_presets),
    ]
    return all(value is None or not listed or value in listed for value, listed in asked)


def unmade_length(models: ModelsResponse, name: str | None, seconds: float) -> ModelInfo | None:
    """The chosen model when it lists the lengths it makes and seconds is not one of them
    (7 s between 6 and 8 is not one); None when it fits or nothing can be said."""
    model = chosen_model(models, name)
    if model is None or not model.durations_seconds or seconds in model.durations_seconds:
        return None
    return model
