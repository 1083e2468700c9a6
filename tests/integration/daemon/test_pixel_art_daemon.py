"""Pixel art through the daemon and a watched drop folder, against the sandbox: the quote
says the pixel art found unasked (a 64 px picture at 1x), the sheet's frames are the
art's palette and silhouette with hard alpha, a drop's sidecar names a palette, and the
money is read: the same generation made smooth spends nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from companion.sandbox import SandboxThread
from tests.conftest import TEST_KEY
from tests.support.alpha import body_spread, whole_frames
from tests.support.calls import Api
from tests.support.daemon import call, wait_final
from tests.support.drops import start_daemon, wait_until
from tests.support.pixel_art import (
    BODY,
    assert_pixel_frames,
    draw_pixel_character,
    off_palette,
)

pytestmark = pytest.mark.slow


def _body(project: Path, image: str, name: str, **extra: Any) -> dict[str, Any]:
    return {
        "project_root": str(project), "image_path": image, "prompt": "idle", "name": name,
        "video": {"duration_seconds": 1, "resolution": "360p"},
        "export": {"frame_count": 3,
                   "output_formats": ["spritesheet", "spritesheet_json", "godot_pack"]},
        **extra,
    }  # fmt: skip


def test_the_daemon_and_a_drop_make_pixel_art(make_sandbox: Any, tmp_path: Path) -> None:
    sandbox: SandboxThread = make_sandbox(task_seconds=0.2)
    api = Api(sandbox.base_url, key=TEST_KEY)
    running = start_daemon(sandbox, tmp_path / "home")
    try:
        project = tmp_path / "game"
        (project / "art").mkdir(parents=True)
        (project / "project.godot").write_text("config_version=5\n")
        picture = draw_pixel_character(64)
        picture.save(project / "art" / "px.png")
        reply = call(running, "POST", "/api/v1/projects",
                     {"root": str(project), "engine": "godot", "inbox": "inbox",
                      "defaults": {"prompt": "idle", "video": {"duration_seconds": 1,
                                                               "resolution": "360p"}}})  # fmt: skip
        assert reply.status == 201, reply.body
        sent = _body(project, "art/px.png", "px")
        before = api.get("/credits/balance").json["available"]
        quote = call(running, "POST", "/api/v1/quote", sent).json
        assert quote["pixel_art"]["grid"] == 1 and len(quote["pixel_art"]["palette"]) == 5
        assert "pixel art: 5 colours" in quote["pixel_art"]["note"]
        made = call(running, "POST", "/api/v1/animate", {**sent, "quote_id": quote["quote_id"]})
        assert made.status == 202, made.body
        assert wait_final(running, made.json["id"])["state"] == "done"
        assert before - api.get("/credits/balance").json["available"] == quote["spends"] > 0
        target = project / "animations"
        pixel_frames = whole_frames(target / "px.json")
        assert_pixel_frames(pixel_frames, picture)
        # A Godot pack is held in place: the body keeps its place, within an art pixel
        # (0.8 px here; left to move, 3 px).
        assert body_spread(pixel_frames, BODY) <= 1.0
        # Smooth, asked: the same generation, so a free re-cut of its clip.
        smooth = _body(project, "art/px.png", "smooth", pixel_art=False)
        quote = call(running, "POST", "/api/v1/quote", smooth).json
        assert quote["pixel_art"] is None and quote["spends"] == 0, quote
        before = api.get("/credits/balance").json["available"]
        made = call(running, "POST", "/api/v1/animate", {**smooth, "quote_id": quote["quote_id"]})
        assert wait_final(running, made.json["id"])["state"] == "done"
        assert api.get("/credits/balance").json["available"] == before
        soft = whole_frames(target / "smooth.json")
        assert len(np.unique(soft[0][..., 3])) > 2
        # A drop whose sidecar names a palette: every opaque pixel one of its colours.
        inbox = project / "inbox"
        named = ["#14101c", "#d27d2c", "#854c30", "#deeed6"]
        (inbox / "drop.yaml").write_text(json.dumps({"palette": named}))  # JSON is YAML
        draw_pixel_character(32).save(inbox / "drop.png")
        sheet = target / "drop.json"
        wait_until(lambda: sheet.exists(), running, seconds=60)
        colours = tuple(tuple(int(c[i : i + 2], 16) for i in (1, 3, 5)) for c in named)
        for frame in whole_frames(sheet):
            assert frame.shape == (32, 32, 4)
            assert off_palette(frame, colours) == 0  # type: ignore[arg-type]
            assert set(np.unique(frame[..., 3]).tolist()) <= {0, 255}
    finally:
        running.stop()
