"""A job the service made and charged for whose files never went in (its target folder
was a file while it ran) is installed from the Generations tab of a real headless Godot
editor, pressed as a user does (harness: tests/support/godot/harness/studio.gd, plan
"paid_install"): the row offers Install (free); pressed while the folder is still a
file it fails again, saying why; once the user fixed the folder it installs the files,
and the service is never asked to make (or charge for) the animation again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from companion.sandbox import SandboxThread
from tests.conftest import TEST_KEY
from tests.support.daemon import DaemonThread, call, wait_final
from tests.support.drops import DEFAULTS, EXPORT
from tests.support.godot import editor, finished, game
from tests.support.paid import creates
from tests.support.real_godot import Godot, real_godot  # noqa: F401  (the fixture)

pytestmark = [pytest.mark.godot, pytest.mark.slow]


def _listed(running: DaemonThread, project: Path) -> dict[str, dict[str, Any]]:
    rows = call(running, "GET", f"/api/v1/generations?project={project}").json["data"]
    return {row["id"]: row for row in rows}


def test_install_free_from_the_generations_tab(
    real_godot: Godot,  # noqa: F811
    make_sandbox: Any,
    tmp_path: Path,
) -> None:
    sandbox: SandboxThread = make_sandbox(task_seconds=1.0, journal=True)
    home = tmp_path / "home"
    (home / "companion").mkdir(parents=True)
    project = game(tmp_path / "game", harness=True)
    daemon = DaemonThread(home / "companion", sandbox.base_url, TEST_KEY).start()
    try:
        registered = {"root": str(project), "engine": "godot"}
        assert call(daemon, "POST", "/api/v1/projects", registered).status == 201
        body: dict[str, Any] = {"project_root": str(project), "image_path": "art/hero.png"}
        body.update(DEFAULTS, name="hero", target_folder="animations")
        formats = [*EXPORT["output_formats"], "godot_pack"]  # as the dock asks by default
        body["export"] = {**EXPORT, "output_formats": formats}
        done = call(daemon, "POST", "/api/v1/animate", body)
        assert done.status == 202, done.body
        assert wait_final(daemon, done.json["id"])["state"] == "done"
        body.update(name="walk", target_folder="anim", prompt="walk cycle")
        made = call(daemon, "POST", "/api/v1/animate", body)
        assert made.status == 202, made.body
        job_id = made.json["id"]
        (project / "anim").write_text("a file where the folder goes")  # while it runs
        failed = wait_final(daemon, job_id)
        assert failed["state"] == "failed" and "without paying again" in failed["error"]
        made_before = creates(sandbox)
        assert len(made_before) == 2
        before = _listed(daemon, project)
        assert before[job_id]["installable"] is True, before[job_id]
        assert before[done.json["id"]]["installable"] is False

        plan = {
            "studio": True,
            "paid_install": job_id,
            "done": done.json["id"],
            "folder": "res://anim",
            "results": str(tmp_path / "results.json"),
        }
        (tmp_path / "plan.json").write_text(json.dumps(plan))
        run = editor(real_godot, project, home, tmp_path / "plan.json", tmp_path / "editor.log")
        seen = finished(run, tmp_path / "editor.log", Path(plan["results"]))
        after = _listed(daemon, project)
        ended = call(daemon, "GET", f"/api/v1/jobs/{job_id}").json
        refused = call(daemon, "POST", f"/api/v1/jobs/{job_id}/retry")
        creates_after = creates(sandbox)
    finally:
        daemon.stop()

    # Only the row of the job paid for and not installed offers it.
    assert not seen["done_row"]["visible"] and seen["done_row"]["cells"][1] == "done", seen
    # Selected as the editor opened the project, it plays once its frames are imported
    # (the editor printed no error loading them before: `finished` reads the log).
    preview = seen["done_row"]["preview"]
    assert preview["frames"] == EXPORT["frame_count"] and preview["shown"] > 1, preview
    assert preview["size"] == [EXPORT["output_width"], EXPORT["output_height"]], preview
    offered = seen["offered"]
    assert offered["visible"] and offered["enabled"], offered
    assert offered["text"] == "Install (free)", offered
    assert "without paying again" in offered["tooltip"], offered
    # Its State says it was paid for, unlike a failure that cost nothing; the tooltip
    # keeps the daemon's whole error.
    assert offered["cells"][1:3] == ["paid · not installed", "walk"], offered
    assert "Install (free)" in offered["state_tooltip"], offered
    assert failed["error"] in offered["state_tooltip"], offered
    # A re-cut or import of it would be refused (NOT_INSTALLED): not offered.
    assert not offered["recut_enabled"] and not offered["import_enabled"], offered

    # Pressed while the folder is still a file: it fails again, saying why, and stays
    # offered on the same row.
    again = seen["failed_again"]
    said = again["said"]
    written = f"cannot write the outputs into {project / 'anim'}: Not a directory"
    assert said.startswith(f"The install failed, nothing spent: {written}"), again
    assert said.endswith(". Fix that, then press Install (free) again."), again
    assert "companion jobs retry" not in said and again["summary"] == said, again
    assert again["selected"] == job_id and again["visible"] and again["enabled"], again
    assert again["row"]["installable"] and again["cells"][1] == "paid · not installed", again
    # That long message wraps in the Summary instead of widening the panel past its
    # buttons (the label keeps a width of its own, not a column of single words).
    short, long = offered["width"], again["width"]
    assert long["autowrap"] == short["autowrap"] == 3, long  # TextServer.AUTOWRAP_WORD_SMART
    assert long["summary_lines"] > short["summary_lines"], (short, long)
    # Its first lines show (the list below keeps its room), all of it in the tooltip.
    assert 1 < long["shown"] <= 4 and long["summary_tooltip"] == said, long
    assert long["summary_width"] == short["summary_width"], (short, long)
    assert long["summary_min"] == short["summary_min"] >= 200, (short, long)
    assert long["panel_min"] == short["panel_min"], (short, long)
    assert long["panel"] == short["panel"], (short, long)

    # The folder fixed, pressed again: installed, nothing spent, no longer offered.
    installed = seen["installed"]
    assert installed["said"] == "Installed, nothing spent: res://anim/walk.tres", installed
    assert installed["selected"] == job_id and not installed["visible"], installed
    assert installed["cells"][1] == "done" and not installed["row"]["installable"], installed
    assert installed["recut_enabled"], installed  # its kept video now re-cuts as any other
    assert ended["state"] == "done" and ended["resource"] == "res://anim/walk.tres", ended
    for name in ("walk.png", "walk.tres", "walk.json"):
        assert (project / "anim" / name).is_file(), name
    assert after[job_id]["installable"] is False and after[job_id]["state"] == "done"
    assert all(o["installed_path"] for o in after[job_id]["outputs"]), after[job_id]
    assert refused.status == 409 and refused.error["code"] == "NOT_RETRYABLE", refused.body
    # Made and charged once: neither press reached the service to create it again.
    assert creates_after == made_before
    assert after[job_id]["cost_credits"] == before[job_id]["cost_credits"] > 0
