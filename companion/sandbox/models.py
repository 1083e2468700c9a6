"""The sandbox's model listing, and the checks of VideoOptions against it.

The table below is the sandbox's own vocabulary (its checks always read it); the face
decides how it is listed (2.13: the listing's fields are not shown), which model is the
one used when none is named (the first listed), and how long a video may be."""

from __future__ import annotations

from typing import Any

from companion.api.schema import VideoOptions
from companion.sandbox.errors import invalid
from companion.sandbox.face import DEFAULT, Face

DEFAULT_MODEL = "sandbox-motion-1"
RESOLUTIONS = {"360p": 360, "480p": 480, "720p": 720, "1080p": 1080}
RATIOS = {"1:1": (1, 1), "16:9": (16, 9), "9:16": (9, 16), "4:3": (4, 3), "3:4": (3, 4)}
MODELS: list[dict[str, Any]] = [
    {
        "id": DEFAULT_MODEL,
        "name": "Sandbox motion synthesizer",
        "supports_last_frame": True,
        "max_reference_images": 8,
        "requires_prompt": False,
        "supports_negative_prompt": True,
        "durations_seconds": [1, 2, 3, 4, 5, 6, 8, 10],
        "resolutions": list(RESOLUTIONS),
        "ratios": list(RATIOS),
        "transparency_modes": ["standard", "alpha_key"],
        "style_presets": ["none", "pixel_art", "cartoon"],
    },
    {
        "id": "sandbox-motion-lite",
        "name": "Sandbox motion synthesizer, first frame only",
        "supports_last_frame": False,
        "max_reference_images": 2,
        "requires_prompt": True,
        "supports_negative_prompt": False,
        "durations_seconds": [1, 2, 3, 4],
        "resolutions": ["360p", "480p"],
        "ratios": ["1:1"],
        "transparency_modes": ["standard"],
        "style_presets": ["none"],
    },
]
MODELS_BY_ID = {m["id"]: m for m in MODELS}
# Lengths past the table's own, made by the full model up to the face's longest video.
LONGER_SECONDS = (15, 20, 30, 40, 50, 60, 90, 120)


def table(face: Face = DEFAULT) -> list[dict[str, Any]]:
    """The models as this face has them, the one used when none is named first: on a face
    whose default model does not key (default_model_keys False), the lite model."""
    models = [dict(m) for m in MODELS]
    full = models[0]
    full["durations_seconds"] = [
        *full["durations_seconds"],
        *(s for s in LONGER_SECONDS if s <= face.max_video_seconds),
    ]
    return models if face.default_model_keys else models[::-1]


def listing(face: Face = DEFAULT) -> dict[str, Any]:
    """GET /models as this face answers it: the table as it is ("default"), or in
    another vocabulary ("other"), models and their capabilities nested by name."""
    models = table(face)
    if face.models_shape == "default":
        return {"object": "list", "data": models}
    return {
        "object": "list",
        "models": [
            {
                "model": m["id"],
                "title": m["name"],
                "capabilities": {
                    "durations": m["durations_seconds"],
                    "resolutions": {"values": m["resolutions"]},
                    "aspect_ratios": m["ratios"],
                    "transparency": {"modes": m["transparency_modes"]},
                    "last_frame": m["supports_last_frame"],
                    "reference_images": {"max": m["max_reference_images"]},
                    "prompt": {"required": m["requires_prompt"]},
                    "negative_prompt": m["supports_negative_prompt"],
                    "styles": m["style_presets"],
                },
            }
            for m in models
        ],
    }


def size_of(resolution: str | None, ratio: str | None) -> tuple[int, int]:
    short = RESOLUTIONS.get(resolution or "480p", 480)
    wide, tall = RATIOS.get(ratio or "1:1", (1, 1))
    if wide >= tall:
        width, height = round(short * wide / tall), short
    else:
        width, height = short, round(short * tall / wide)
    return width - width % 2, height - height % 2


def check_video(
    video: VideoOptions,
    *,
    prompt: str,
    negative_prompt: str,
    has_last_frame: bool,
    reference_images: int,
    prefix: str = "video",
    face: Face = DEFAULT,
) -> None:
    models = table(face)
    model = next((m for m in models if m["id"] == video.model), None) if video.model else models[0]
    if model is None:
        raise invalid(f"unknown model {video.model!r}; see GET /models", f"{prefix}.model")
    if has_last_frame and not model["supports_last_frame"]:
        raise invalid("this model does not take a last frame", "input.last_frame")
    if reference_images > model["max_reference_images"]:
        raise invalid(
            f"this model takes at most {model['max_reference_images']} reference images",
            "input.reference_images",
        )
    if model["requires_prompt"] and not prompt.strip():
        raise invalid("this model needs a prompt", "prompt")
    if negative_prompt and not model["supports_negative_prompt"]:
        raise invalid("this model takes no negative prompt", "negative_prompt")
    if (
        video.duration_seconds is not None
        and video.duration_seconds not in model["durations_seconds"]
    ):
        raise invalid(
            f"duration_seconds must be one of {model['durations_seconds']} for this model",
            f"{prefix}.duration_seconds",
        )
    if video.resolution is not None and video.resolution not in model["resolutions"]:
        raise invalid(f"resolution must be one of {model['resolutions']}", f"{prefix}.resolution")
    if video.ratio is not None and video.ratio not in model["ratios"]:
        raise invalid(f"ratio must be one of {model['ratios']}", f"{prefix}.ratio")
    if video.style_preset is not None and video.style_preset not in model["style_presets"]:
        raise invalid(
            f"style_preset must be one of {model['style_presets']}", f"{prefix}.style_preset"
        )
    mode = video.transparency.mode if video.transparency else "standard"
    if mode not in model["transparency_modes"]:
        raise invalid(
            f"transparency mode must be one of {model['transparency_modes']}",
            f"{prefix}.transparency.mode",
        )
