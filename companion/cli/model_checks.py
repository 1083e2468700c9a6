"""The generation flags against what the live models offer, checked before any quote,
each refusal naming the flag and the choices the model has."""

from __future__ import annotations

from companion.api.schema import ModelsResponse, VideoOptions
from companion.cli.errors import UsageError
from companion.jobs import chosen_model, unmade_length

MAX_SECONDS = 30  # the spec's bound on a generated video


def _listed(values: list[float] | list[str]) -> str:
    return ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in values)


def too_long(seconds: float, video: VideoOptions, models: ModelsResponse) -> UsageError:
    """--seconds past the spec's bound, said with the lengths the chosen model offers."""
    model = chosen_model(models, video.model)
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
