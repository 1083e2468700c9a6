"""The daemon's free re-cut with the local finishing: in place, loop and trim go into the
job's local export (never to the service), and the job says which loop it chose."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from PIL import Image

from tests.conftest import TEST_KEY
from tests.support.calls import Api
from tests.support.cli import tasks
from tests.support.daemon import DaemonThread, body, call, godot_project, wait_final


@pytest.mark.slow
def test_a_recut_in_place_as_a_loop_with_a_trimmed_sheet(make_sandbox, tmp_path: Path) -> None:
    sandbox = make_sandbox(task_seconds=0.2)
    api = Api(sandbox.base_url, key=TEST_KEY)
    daemon = DaemonThread(tmp_path / "home", sandbox.base_url, TEST_KEY).start()
    try:
        project = godot_project(daemon, tmp_path)
        first = call(daemon, "POST", "/api/v1/animate", body(project, "walk")).json["id"]
        assert wait_final(daemon, first)["state"] == "done"
        assert wait_final(daemon, first).get("loop") is None  # none was asked
        balance, remote = api.get("/credits/balance").json["available"], len(tasks(api))
        recut = call(daemon, "POST", f"/api/v1/generations/{first}/recut", {
            "export": {"frame_count": 8, "output_width": 64, "output_height": 64,
                       "output_formats": ["spritesheet", "spritesheet_json", "godot_pack"]},
            "in_place": True, "loop": True, "trim": True,
        })  # fmt: skip
        assert recut.status == 202, recut.body
        done = wait_final(daemon, recut.json["id"])
        assert done["state"] == "done", done
        loop = done["loop"]
        assert 0 <= loop["start"] < loop["end"] and loop["seam"] >= 0, loop
        made = project / "animations"
        frames = json.loads((made / "hero.json").read_text())["frames"]
        assert len(frames) == 8
        assert all(f["sourceSize"] == {"w": 64, "h": 64} for f in frames.values())
        assert "trimmed" in next(iter(frames.values()))
        # Its preview puts each trimmed frame back at its place: whole frames, one size.
        gif = call(daemon, "GET", f"/api/v1/jobs/{done['id']}/preview.gif")
        assert gif.status == 200, gif.body
        with Image.open(io.BytesIO(gif.body)) as preview:
            assert preview.size == (64, 64) and preview.n_frames >= 2
        listed = call(daemon, "GET", f"/api/v1/generations?project={project}").json["data"]
        local = listed[0]["settings"]["local_export"]
        assert local["in_place"] and local["loop"] and local["trim"], local
        # Nothing of it reached the service, and nothing was spent.
        assert api.get("/credits/balance").json["available"] == balance
        assert len(tasks(api)) == remote
        bad = call(daemon, "POST", f"/api/v1/generations/{first}/recut",
                   {"export": {"frame_count": 2}, "in_place": "very"})  # fmt: skip
        assert bad.status == 400 and "in_place" in bad.error["message"], bad.body
    finally:
        daemon.stop()
