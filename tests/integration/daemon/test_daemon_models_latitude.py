"""The daemon's doors with a model listing in another vocabulary, whose model used when
none is named cannot key (issue 38, items 7 and 8): the plugins' listing is served in
the daemon's own words, and a transparent picture quoted and animated with no model
named is keyed by a listed model that can, named in what the service is sent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from tests.conftest import TEST_KEY, both_faces
from tests.support.calls import Api
from tests.support.daemon import DaemonThread, call, godot_project, wait_final
from tests.support.sandbox import listed as listed_tasks


@both_faces
def test_the_daemon_quotes_and_keys_with_no_model_named(
    make_sandbox: Any, face: str, tmp_path: Path
) -> None:
    sandbox = make_sandbox(task_seconds=0.2)
    api = Api(sandbox.base_url, key=TEST_KEY)
    daemon = DaemonThread(tmp_path / "home", sandbox.base_url, TEST_KEY).start()
    try:
        listed = call(daemon, "GET", "/api/v1/models")
        assert listed.status == 200, listed.body
        by_id = {m["id"]: m for m in listed.json["data"]}
        assert "alpha_key" in by_id["sandbox-motion-1"]["transparency_modes"], listed.json
        assert by_id["sandbox-motion-lite"]["durations_seconds"] == [1, 2, 3, 4], listed.json
        project = godot_project(daemon, tmp_path)  # art/hero.png: transparent around
        sent = {
            "project_root": str(project),
            "image_path": "art/hero.png",
            "prompt": "idle",
            "name": "hero",
            "video": {"duration_seconds": 1, "resolution": "360p"},  # no model named
            "export": {"frame_count": 4, "output_formats": ["spritesheet", "spritesheet_json"]},
        }
        before = api.get("/credits/balance").json["available"]
        quote = call(daemon, "POST", "/api/v1/quote", sent)
        assert quote.status == 200, quote.body
        assert quote.json["credits"] > 0
        made = call(daemon, "POST", "/api/v1/animate", {**sent, "quote_id": quote.json["quote_id"]})
        assert made.status == 202, made.body
        done = wait_final(daemon, made.json["id"])
        assert done["state"] == "done", done
        tasks = listed_tasks(api, "animations")
        videos = [t["normalized_input"]["video"] for t in tasks]
        if not videos:  # a video generation bought instead of a one-click task
            tasks = listed_tasks(api, "video-generations")
            videos = [t["normalized_input"]["video"] for t in tasks]
        assert [(v["model"], v["transparency"]["mode"]) for v in videos] == [
            ("sandbox-motion-1", "alpha_key")
        ], videos
        assert api.get("/credits/balance").json["available"] < before
        with Image.open(project / "animations" / "hero.png") as opened:
            sheet = np.asarray(opened.convert("RGBA"))
        border = np.concatenate([sheet[0], sheet[-1], sheet[:, 0], sheet[:, -1]])
        assert int(border[:, 3].max()) == 0, "the sheet's border is not transparent"
    finally:
        daemon.stop()
