"""The generation flags against what the live models offer, checked before any quote,
each refusal naming the flag and the choices the model has.

Only what the listing says is held against: a capability it does not give (its fields
are not shown, spec 2.13) is the service's to judge at quote, and with no model named
none is checked unless the listing says which is the default (the first listed is not
taken to be it)."""

from __future__ import annotations

from companion.api.schema import ModelsResponse, VideoOptions
from companion.cli.errors import UsageError
from companion.jobs import chosen_model, unmade_length


def _listed(values: list[float] | list[str]) -> str:
    return ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in values)


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
    if video.model is not None and models.named(video.model) is None:
        if models.shape != "known":
            return  # a listing read as best we could may have missed it: the service says
        raise UsageError(
            f"--model {video.model}: no such model; choose from "
            f"{', '.join(m.id for m in models.data)} (see: companion models)"
        )
    model = chosen_model(models, video.model)
    if model is None:
        return  # the service's default model, unnamed and unknown here: it decides
    named = f"model {model.id}"
    seconds = video.duration_seconds
    if seconds is not None and unmade_length(models, video.model, seconds):
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
