"""Issue 19, daemon side: quotes bound to their settings, job errors never null, and a
project's generations listed newest first across daemon restarts."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from companion.media.demo_art import draw_character
from tests.conftest import TEST_KEY
from tests.daemon_helpers import DaemonThread
from tests.http_helpers import Api
from tests.test_daemon import call


def godot_project(daemon: DaemonThread, tmp_path: Path) -> Path:
    project = tmp_path / "game"
    (project / "art").mkdir(parents=True)
    (project / "project.godot").write_text("config_version=5\n")
    draw_character(64).save(project / "art" / "hero.png")
    reply = call(daemon, "POST", "/api/v1/projects", {"root": str(project), "engine": "godot"})
    assert reply.status == 201, reply.body
    return project


def body(project: Path, prompt: str = "idle", **extra: Any) -> dict[str, Any]:
    return {
        "project_root": str(project),
        "image_path": "art/hero.png",
        "prompt": prompt,
        "video": {"duration_seconds": 1, "resolution": "360p"},
        "export": {
            "frame_count": 4,
            "output_width": 64,
            "output_height": 64,
            "output_formats": ["spritesheet", "spritesheet_json", "godot_pack"],
        },
        **extra,
    }


def wait_final(daemon: DaemonThread, job_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        job: dict[str, Any] = call(daemon, "GET", f"/api/v1/jobs/{job_id}").json
        if job["state"] in ("done", "failed", "cancelled"):
            return job
        time.sleep(0.1)
    raise AssertionError(f"job {job_id} did not finish")


def test_a_stale_quote_is_refused_and_nothing_is_spent(make_sandbox, tmp_path: Path) -> None:
    sandbox = make_sandbox(task_seconds=0.3)
    api = Api(sandbox.base_url, key=TEST_KEY)
    daemon = DaemonThread(tmp_path / "home", sandbox.base_url, TEST_KEY).start()
    try:
        project = godot_project(daemon, tmp_path)
        quote = call(daemon, "POST", "/api/v1/quote", body(project)).json
        assert quote["credits"] > 0 and quote["quote_id"]
        # The same body quotes the same id; any change (prompt, image bytes) another one.
        assert (
            call(daemon, "POST", "/api/v1/quote", body(project)).json["quote_id"]
            == (quote["quote_id"])
        )
        before = api.get("/credits/balance").json["available"]
        stale = call(
            daemon, "POST", "/api/v1/animate", body(project, "run", quote_id=quote["quote_id"])
        )
        assert stale.status == 409 and stale.error["code"] == "STALE_QUOTE", stale.body
        draw_character(48).resize((64, 64)).save(project / "art" / "hero.png")
        stale = call(daemon, "POST", "/api/v1/animate", body(project, quote_id=quote["quote_id"]))
        assert stale.status == 409 and stale.error["code"] == "STALE_QUOTE"
        assert call(daemon, "GET", "/api/v1/jobs").json["data"] == []
        assert api.get("/credits/balance").json["available"] == before
        fresh = call(daemon, "POST", "/api/v1/quote", body(project)).json["quote_id"]
        assert fresh != quote["quote_id"]
        accepted = call(daemon, "POST", "/api/v1/animate", body(project, quote_id=fresh))
        assert accepted.status == 202, accepted.body
        assert accepted.json["error"] == ""  # never null: the dock printed "<null>"
        cancelled = call(daemon, "POST", f"/api/v1/jobs/{accepted.json['id']}/cancel").json
        assert isinstance(cancelled["error"], str)
    finally:
        daemon.stop()


def test_generations_newest_first_across_a_restart(make_sandbox, tmp_path: Path) -> None:
    sandbox = make_sandbox(task_seconds=0.2)
    home = tmp_path / "home"
    daemon = DaemonThread(home, sandbox.base_url, TEST_KEY).start()
    try:
        project = godot_project(daemon, tmp_path)
        ids = []
        for prompt, seed in (("idle", 11), ("walk", 12)):
            sent = body(project, prompt, name=prompt)
            sent["video"]["seed"] = seed
            ids.append(call(daemon, "POST", "/api/v1/animate", sent).json["id"])
            assert wait_final(daemon, ids[-1])["state"] == "done"
    finally:
        daemon.stop()
    daemon = DaemonThread(home, sandbox.base_url, TEST_KEY).start()
    try:
        listed = call(daemon, "GET", f"/api/v1/generations?project={project}").json
        assert [g["id"] for g in listed["data"]] == ids[::-1] and listed["next"] is None
        walk = listed["data"][0]
        assert walk["kind"] == "animate" and walk["parent"] is None and walk["error"] == ""
        assert (walk["prompt"], walk["seed"], walk["state"]) == ("walk", 12, "done")
        assert walk["cost_credits"] > 0 and walk["finished_at"]
        assert walk["resource"] == "res://animations/walk.tres"
        assert walk["settings"]["export"]["frame_count"] == 4
        assert walk["preview_gif"] == f"/api/v1/jobs/{walk['id']}/preview.gif"
        # The paid video is kept for free re-cuts, though the project did not ask for it.
        clip = walk["clip"]
        assert clip["kept"] and clip["bytes"] == (home / "clips" / f"{ids[1]}.mp4").stat().st_size
        assert clip["duration_seconds"] > 0 and clip["width"] > 0
        first = call(daemon, "GET", f"/api/v1/generations?project={project}&limit=1").json
        assert [g["id"] for g in first["data"]] == [ids[1]] and first["next"] == ids[1]
        rest = call(
            daemon, "GET", f"/api/v1/generations?project={project}&limit=1&before={ids[1]}"
        ).json
        assert [g["id"] for g in rest["data"]] == [ids[0]] and rest["next"] is None
        other = call(daemon, "GET", f"/api/v1/generations?project={tmp_path}")
        assert other.status == 400 and "project" in other.error["message"]
    finally:
        daemon.stop()
