"""Pay once per generation through the daemon's API, as the dock and the Unity window use
it: after a SpriteFrames edit, another name or other frames, the quote says `spends: 0`,
names the paid generation and what is re-cut, and animate spends nothing (no create, the
balance still) while landing what was asked with the edit kept. A generation under way
is joined (the re-cut follows it); an evicted clip is said in the quote, and paid; only
"again": true pays for a new take."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.sandbox import SandboxThread
from companion.store.clips import ClipStore
from tests.conftest import TEST_KEY, both_faces
from tests.support.calls import Api
from tests.support.daemon import DaemonThread, body, call, godot_project, wait_final
from tests.support.paid import creates

GODOT = ("spritesheet", "spritesheet_json", "godot_pack")

pytestmark = both_faces  # a money test: on both faces of the sandbox


def _frames(body_: dict[str, Any], count: int, *formats: str) -> dict[str, Any]:
    export = {**body_["export"], "frame_count": count}
    if formats:
        export["output_formats"] = list(formats)
    return {**body_, "export": export}


def _press(running: DaemonThread, asked: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The quote, then animate with its id, to the end: (quote, the job as it ended)."""
    quote = call(running, "POST", "/api/v1/quote", asked)
    assert quote.status == 200, quote.body
    pressed = call(
        running, "POST", "/api/v1/animate", {**asked, "quote_id": quote.json["quote_id"]}
    )
    assert pressed.status in (200, 202), pressed.body
    return quote.json, wait_final(running, pressed.json["id"])


def test_the_same_generation_through_the_daemon_spends_nothing(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    sandbox = make_sandbox(task_seconds=1.0, journal=True)
    api = Api(sandbox.base_url, key=TEST_KEY)
    running = DaemonThread(tmp_path / "home", sandbox.base_url, TEST_KEY).start()

    def balance() -> int:
        available: int = api.get("/credits/balance").json["available"]
        return available

    try:
        project = godot_project(running, tmp_path)
        asked = body(project, name="knight_idle", target_folder="anim")
        first = call(running, "POST", "/api/v1/quote", asked).json
        assert first["spends"] == first["credits"] > 0
        assert first["paid_because"]["why"] == "none" and first["recut"] is None
        job_id = call(running, "POST", "/api/v1/animate", asked).json["id"]

        # Under way: other frames join it, the re-cut waits for its clip.
        joining = call(running, "POST", "/api/v1/quote", _frames(asked, 6)).json
        assert joining["spends"] == 0, joining
        assert joining["earlier"] == {"id": job_id, "state": joining["earlier"]["state"],
                                      "why": "recut"}  # fmt: skip
        assert joining["earlier"]["state"] != "done"
        joined = call(running, "POST", "/api/v1/animate", _frames(asked, 6, *GODOT, "gif"))
        assert joined.status == 202 and joined.json["id"] != job_id
        assert wait_final(running, job_id)["state"] == "done"
        assert wait_final(running, joined.json["id"])["state"] == "done", joined.json
        assert (project / "anim" / "knight_idle.gif").is_file()
        assert len(creates(sandbox)) == 1
        paid = balance()

        # The user's edit of the SpriteFrames; the same request again re-cuts, free.
        tres = project / "anim" / "knight_idle.tres"
        tres.write_text(re.sub(r'"speed": [0-9.]+', '"speed": 2.5', tres.read_text()))
        quote, done = _press(running, asked)
        assert quote["spends"] == 0 and quote["earlier"]["why"] == "recut"
        assert quote["earlier"]["id"] == job_id and quote["paid_because"] is None
        assert quote["recut"]["source"] == job_id and quote["recut"]["frames"] == 4
        assert done["state"] == "done" and '"speed": 2.5' in tres.read_text()

        # Another name, and twelve frames: their own files, free.
        quote, done = _press(running, {**asked, "name": "knight_b"})
        assert quote["spends"] == 0 and done["state"] == "done"
        assert (project / "anim" / "knight_b.tres").is_file()
        quote, done = _press(running, _frames(asked, 12))
        assert quote["spends"] == 0 and quote["recut"]["frames"] == 12
        sheet = json.loads((project / "anim" / "knight_idle.json").read_text())
        assert len(sheet["frames"]) == 12 and '"speed": 2.5' in tres.read_text()
        assert len(creates(sandbox)) == 1 and balance() == paid

        # A new take pays, and says why.
        anew = call(running, "POST", "/api/v1/quote", {**asked, "again": True}).json
        assert anew["spends"] == anew["credits"] and anew["paid_because"]["why"] == "again"

        # The clip evicted (a cap of 0 lets every clip go): the quote says so, and pays.
        gone = ClipStore(tmp_path / "home" / "clips", 0).evict()
        assert job_id in gone
        evicted = call(running, "POST", "/api/v1/quote", _frames(asked, 5)).json
        assert evicted["spends"] == evicted["credits"] > 0 and evicted["earlier"] is None
        assert evicted["paid_because"]["why"] == "evicted"
        assert evicted["paid_because"]["job"] == job_id
        assert "evicted" in evicted["paid_because"]["note"]
        assert len(creates(sandbox)) == 1 and balance() == paid
    finally:
        running.stop()
