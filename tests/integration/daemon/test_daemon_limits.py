"""GET /api/v1/status tells the plugins what a request may ask for, and each limit it
gives is the very one the daemon enforces: its edge is accepted, one past it refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from companion.api.schema import ExportOptions
from companion.daemon.schema.requests import RecutIn
from companion.media.demo_art import draw_character
from tests.support.daemon import DaemonThread, call


def quote_body(project: Path, **export: Any) -> dict[str, Any]:
    seconds = export.pop("seconds", 2)
    return {
        "project_root": str(project),
        "image_path": "art/hero.png",
        "prompt": "idle",
        "video": {"duration_seconds": seconds},
        "export": {"frame_count": 12, "output_formats": ["spritesheet"], **export},
    }


def test_status_limits_are_the_ones_the_daemon_enforces(
    daemon: DaemonThread, tmp_path: Path
) -> None:
    project = tmp_path / "game"
    (project / "art").mkdir(parents=True)
    draw_character(64).save(project / "art" / "hero.png")
    assert call(daemon, "POST", "/api/v1/projects", {"root": str(project)}).status == 201
    limits = call(daemon, "GET", "/api/v1/status").json["limits"]
    assert set(limits) == {"size", "frame_count", "fps", "seconds", "padding"}
    assert RecutIn.model_validate({"padding": limits["padding"]["max"]}).padding > 0
    with pytest.raises(ValidationError):
        RecutIn.model_validate({"padding": limits["padding"]["max"] + 1})
    assert set(limits["fps"]) == {"max"}

    def quoted(**export: Any) -> int:
        return call(daemon, "POST", "/api/v1/quote", quote_body(project, **export)).status

    size, frames, seconds = limits["size"], limits["frame_count"], limits["seconds"]
    for side in ("output_width", "output_height"):
        assert quoted(**{side: size["max"]}) == 200
        assert quoted(**{side: size["min"]}) == 200
        assert quoted(**{side: size["max"] + 1}) == 400
        assert quoted(**{side: size["min"] - 1}) == 400
    assert quoted(frame_count=frames["max"]) == 200
    assert quoted(frame_count=frames["max"] + 1) == 400
    assert quoted(frame_count=frames["min"] - 1) == 400
    assert quoted(seconds=seconds["min"]) == 400  # exclusive: a duration is above it
    # No longest length: the spec shows none, so the model's listed lengths (or the
    # service, at quote) say; the daemon keeps no bound of its own to offer.
    assert "max" not in seconds, seconds
    # fps is what an export samples at; a one-click request refuses fps and takes
    # frame_count instead, so the ceiling is checked through the export model.
    assert ExportOptions.model_validate({"fps": limits["fps"]["max"]}).fps == limits["fps"]["max"]
    with pytest.raises(ValidationError):
        ExportOptions.model_validate({"fps": limits["fps"]["max"] + 1})


def test_the_openapi_document_describes_the_limits(daemon: DaemonThread) -> None:
    document = call(daemon, "GET", "/api/v1/openapi.json").json
    status = document["components"]["schemas"]["StatusOut"]
    assert "limits" in status["required"]
    limits = document["components"]["schemas"]["RequestLimits"]
    assert set(limits["properties"]) == {"size", "frame_count", "fps", "seconds", "padding"}
