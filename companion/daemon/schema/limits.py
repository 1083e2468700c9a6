"""The request limits the plugins offer, read from the schema models that enforce them,
so no plugin keeps its own copy of a number the daemon would refuse."""

from __future__ import annotations

from typing import Any

from annotated_types import Ge, Gt, Le, Lt
from pydantic import BaseModel

from companion.api.schema import ExportOptions, VideoOptions
from companion.daemon.schema.requests import RecutIn
from companion.jobs import Finishing


def _bounds(model: type[BaseModel], field: str) -> dict[str, float]:
    """{min, max} of a field; an exclusive bound (gt/lt) is given as its limit value."""
    out: dict[str, float] = {}
    for rule in model.model_fields[field].metadata:
        if isinstance(rule, Ge):
            out["min"] = rule.ge  # type: ignore[assignment]
        elif isinstance(rule, Gt):
            out["min"] = rule.gt  # type: ignore[assignment]
        elif isinstance(rule, Le):
            out["max"] = rule.le  # type: ignore[assignment]
        elif isinstance(rule, Lt):
            out["max"] = rule.lt  # type: ignore[assignment]
    return out


def request_limits() -> dict[str, Any]:
    """size: both output sides; frame_count: a one-click export's frames; fps: the
    export rate; seconds: the video's duration (its min is exclusive: above it; no max,
    the spec shows none: the chosen model's listed lengths say); padding: a re-cut's
    transparent pixels between sheet frames."""
    width = _bounds(ExportOptions, "output_width")
    height = _bounds(ExportOptions, "output_height")
    return {
        # From 16 px: below the service's 64 the frames are scaled down here.
        "size": {
            "min": _bounds(Finishing, "frame_width")["min"],
            "max": min(width["max"], height["max"]),
        },
        "frame_count": _bounds(ExportOptions, "frame_count"),
        "fps": {"max": _bounds(ExportOptions, "fps")["max"]},
        "seconds": _bounds(VideoOptions, "duration_seconds"),
        "padding": _bounds(RecutIn, "padding"),  # a re-cut's, between sheet frames
    }
