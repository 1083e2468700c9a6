"""The model listing (GET /models), read tolerantly.

Its fields are "not shown" in the spec (2.13, 4.2): a service may list its models under
`data` or `models`, name them by `id`, `model` or `name`, and give their capabilities
flat or nested (`capabilities.durations`, `transparency.modes` ...). Any JSON object
parses: the models are found where a listing plausibly holds them, what can be read is
kept in one vocabulary (ours, `ModelInfo`), and what cannot is simply unknown (None or
an empty list), which means the service decides, at quote. `shape` says whether the
listing was in the shape this client knows ("known") or read as best it could ("other");
`raw` keeps it as it came (never cached, never served on).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import Field, model_validator

from companion.api.schema.base import ResponseModel

# Where a listing or a model entry may nest what we look for.
MODEL_LISTS = ("data", "models", "items", "results")
NESTS = ("capabilities", "capability", "features", "settings", "options", "supports", "limits")
ID_KEYS = ("id", "model_id", "model", "slug", "name")
# Our member, then the other names it is plausibly given (each looked for flat and nested).
ALIASES: dict[str, tuple[str, ...]] = {
    "supports_last_frame": (
        "supports_last_frame",
        "last_frame",
        "first_last_frame",
        "supports_first_last_frame",
    ),
    "max_reference_images": (
        "max_reference_images",
        "reference_images",
        "max_references",
        "references",
    ),
    "requires_prompt": ("requires_prompt", "prompt_required"),
    "supports_negative_prompt": ("supports_negative_prompt", "negative_prompt"),
    "durations_seconds": ("durations_seconds", "durations", "duration_seconds", "lengths"),
    "resolutions": ("resolutions", "resolution"),
    "ratios": ("ratios", "aspect_ratios", "ratio"),
    "transparency_modes": ("transparency_modes", "transparency"),
    "style_presets": ("style_presets", "styles", "style_preset"),
}
# Inside a capability given as an object: where its values, bound or flag are.
VALUES = ("values", "allowed", "options", "choices", "modes", "supported_values")
BOUNDS = ("max", "maximum", "max_items", "limit")
FLAGS = ("supported", "enabled", "required", "allowed")
FLAG_MEMBERS = frozenset({"supports_last_frame", "requires_prompt", "supports_negative_prompt"})


class ModelInfo(ResponseModel):
    """One model's capabilities in our vocabulary; every member may be unknown."""

    id: str
    name: str | None = None
    supports_last_frame: bool | None = None
    max_reference_images: int | None = None
    requires_prompt: bool | None = None
    supports_negative_prompt: bool | None = None
    durations_seconds: list[float] = Field(default_factory=list)
    resolutions: list[str] = Field(default_factory=list)
    ratios: list[str] = Field(default_factory=list)
    transparency_modes: list[str] = Field(default_factory=list)
    style_presets: list[str] = Field(default_factory=list)
    # Said by the listing itself (`default: true`, or the listing's `default_model`);
    # None: not said, and then no listed model is taken to be the service's default.
    is_default: bool | None = None


class ModelsResponse(ResponseModel):
    """The listing as read here: any JSON object is taken (its fields are not shown in
    the spec), `shape` says whether it was in the shape this client knows."""

    object: str = "list"
    data: list[ModelInfo] = Field(default_factory=list)
    shape: str = "known"  # "other": not the shape we know, read as best we could
    raw: Any = Field(default=None, exclude=True)

    @model_validator(mode="before")
    @classmethod
    def _tolerant(cls, value: Any) -> Any:
        return read_listing(value)

    @property
    def default_model(self) -> ModelInfo | None:
        """The model the service uses when none is named, when the listing says which."""
        return next((m for m in self.data if m.is_default), None)

    def named(self, model: str) -> ModelInfo | None:
        return next((m for m in self.data if m.id == model), None)


def read_listing(value: Any) -> dict[str, Any]:
    """Any JSON value as our listing's shape (see the module's words)."""
    entries, known = _entries(value)
    if isinstance(value, Mapping) and value.get("shape") == "other":
        known = False  # our own dump (the cache) of a listing read as best we could
    default = value.get("default_model") if isinstance(value, Mapping) else None
    data = []
    for entry in entries:
        model = _model(entry, default)
        if model is None:
            known = False
            continue
        data.append(model)
    return {
        "object": str(value.get("object", "list")) if isinstance(value, Mapping) else "list",
        "data": data,
        "shape": "known" if known else "other",
        "raw": value,
    }


def _entries(value: Any) -> tuple[list[Any], bool]:
    """The model entries of a listing, and whether it is in our shape (`data` of objects
    each with an `id`)."""
    if isinstance(value, list):
        return value, False
    if not isinstance(value, Mapping):
        return [], False
    for key in MODEL_LISTS:
        found = value.get(key)
        if isinstance(found, list):
            ours = key == "data" and all(
                isinstance(e, Mapping) and isinstance(e.get("id"), str) for e in found
            )
            return found, ours
        if (
            isinstance(found, Mapping)
            and found
            and all(isinstance(e, Mapping) for e in found.values())
        ):
            # models keyed by their id
            return [{"id": k, **e} for k, e in found.items()], False
    return [], not value or set(value) <= {"object"}


def _model(entry: Any, default: Any) -> dict[str, Any] | None:
    if isinstance(entry, str):
        return {"id": entry}
    if not isinstance(entry, Mapping):
        return None
    ident = next((entry[k] for k in ID_KEYS if isinstance(entry.get(k), str)), None)
    if ident is None:
        return None
    if ident == entry.get("id"):  # our shape: kept as it is, extra members too
        model = {k: v for k, v in entry.items() if k not in ALIASES}
    else:
        model = {"id": ident}
    title = next((entry[k] for k in ("name", "title", "display_name") if k in entry), None)
    if isinstance(title, str) and title != ident:
        model["name"] = title
    elif "name" in model and not isinstance(model["name"], str):
        model.pop("name")
    for member, names in ALIASES.items():
        found = _find(entry, names)
        if member == "requires_prompt" and found is None:
            # `prompt: {"required": true}`; a bare `prompt: true` says only that one is taken
            prompt = _find(entry, ("prompt",))
            found = prompt.get("required") if isinstance(prompt, Mapping) else None
        read = _read(member, found)
        if read is not None:
            model[member] = read
    marked = entry.get("default", entry.get("is_default"))
    if isinstance(marked, bool):
        model["is_default"] = marked
    elif isinstance(default, str):
        model["is_default"] = ident == default
    else:
        model.pop("is_default", None)
    return model


def _find(entry: Mapping[str, Any], names: Iterable[str]) -> Any:
    """The first of names found flat in entry, then in its nested capability objects."""
    places = [entry, *(entry[n] for n in NESTS if isinstance(entry.get(n), Mapping))]
    for place in places:
        for name in names:
            if name in place and place[name] is not None:
                return place[name]
    return None


def _read(member: str, found: Any) -> Any:
    """found as our member's type; None when it cannot be read (unknown)."""
    if found is None:
        return None
    if member in FLAG_MEMBERS:
        return _flag(found)
    if member == "max_reference_images":
        return _bound(found)
    values = _values(found)
    if values is None:
        return None
    if member == "durations_seconds":
        numbers = [n for n in (_number(v) for v in values) if n is not None]
        return numbers if len(numbers) == len(values) else None
    texts = [v for v in (_text(v) for v in values) if v is not None]
    return texts if len(texts) == len(values) else None


def _flag(found: Any) -> bool | None:
    if isinstance(found, bool):
        return found
    if isinstance(found, Mapping):
        return next((found[k] for k in FLAGS if isinstance(found.get(k), bool)), None)
    return None


def _bound(found: Any) -> int | None:
    if isinstance(found, bool):
        return None
    if isinstance(found, int):
        return found
    if isinstance(found, Mapping):
        bound = next((found[k] for k in BOUNDS if isinstance(found.get(k), int)), None)
        return None if isinstance(bound, bool) else bound
    return None


def _values(found: Any) -> list[Any] | None:
    if isinstance(found, list):
        return found
    if isinstance(found, Mapping):
        return next((found[k] for k in VALUES if isinstance(found.get(k), list)), None)
    return None


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip().removesuffix("s"))
        except ValueError:
            return None
    if isinstance(value, Mapping):
        return _number(next((value[k] for k in ("seconds", "value", "id") if k in value), None))
    return None


def _text(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        inner = next((value[k] for k in ("id", "value", "name", "mode") if k in value), None)
        return inner if isinstance(inner, str) else None
    return None
