"""Pay once per generation from the other doors: a picture dropped into a watched inbox,
and `companion jobs add`, of a generation already paid for (its clip kept) are free
re-cuts of that clip, each landing under its own name: no create, the balance still."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from companion.sandbox import SandboxThread
from companion.store import Store
from tests.conftest import TEST_KEY, both_faces
from tests.support.calls import Api
from tests.support.cli import companion
from tests.support.daemon import call, wait_final
from tests.support.drops import DEFAULTS, png_bytes, start_daemon, wait_until
from tests.support.paid import creates

pytestmark = both_faces  # a money test: on both faces of the sandbox


def test_a_drop_of_a_paid_generation_is_a_free_recut(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    sandbox = make_sandbox(task_seconds=0.2, journal=True)
    api = Api(sandbox.base_url, key=TEST_KEY)
    running = start_daemon(sandbox, tmp_path / "home")
    try:
        project = tmp_path / "game"
        project.mkdir()
        (project / "hero.png").write_bytes(png_bytes(4))
        given = {"root": str(project), "inbox": "inbox", "defaults": DEFAULTS}
        assert call(running, "POST", "/api/v1/projects", given).status == 201
        body = {"project_root": str(project), "image_path": "hero.png", **DEFAULTS}
        first = call(running, "POST", "/api/v1/animate", body)
        assert first.status == 202, first.body
        assert wait_final(running, first.json["id"])["state"] == "done"
        paid = api.get("/credits/balance").json["available"]

        inbox = project / "inbox"
        (inbox / "knight.png").write_bytes(png_bytes(4))  # the same picture, dropped
        wait_until(lambda: (inbox / "done" / "knight.png").exists(), running, 60)
        jobs = call(running, "GET", "/api/v1/jobs").json["data"]
        knight = next(j for j in jobs if j["name"] == "knight")
        assert knight["state"] == "done" and knight["remote_id"] is None
        assert {o["format"] for o in knight["outputs"]} == {"spritesheet", "spritesheet_json"}
        assert len(creates(sandbox)) == 1 and api.get("/credits/balance").json["available"] == paid
    finally:
        running.stop()


@pytest.mark.slow
def test_jobs_add_of_a_paid_generation_is_a_free_recut(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    sandbox = make_sandbox(journal=True)
    api = Api(sandbox.base_url, key=TEST_KEY)
    home = tmp_path / "home"
    (tmp_path / "hero.png").write_bytes(png_bytes(5))
    video = ["--prompt", "idle", "--seconds", "1", "--resolution", "360p"]
    export = ["--frame-count", "4", "--width", "64", "--height", "64"]
    made = companion(sandbox.base_url, home, "animate", str(tmp_path / "hero.png"), *video,
                     "--formats", "gif", *export, "--out", str(tmp_path / "a"))  # fmt: skip
    assert made.returncode == 0, made.stderr
    paid = api.get("/credits/balance").json["available"]

    other = ["--formats", "spritesheet,spritesheet_json", "--frame-count", "6"]
    other += ["--width", "64", "--height", "64", "--target", str(tmp_path / "b")]
    added = companion(sandbox.base_url, home, "jobs", "add", str(tmp_path / "hero.png"),
                      *video, *other)  # fmt: skip
    assert added.returncode == 0, added.stderr
    assert "free re-cut" in added.stderr
    ran = companion(sandbox.base_url, home, "jobs", "run")
    assert ran.returncode == 0, ran.stderr + ran.stdout
    assert len(json.loads((tmp_path / "b" / "hero.json").read_text())["frames"]) == 6
    store = Store(home / "companion.db")
    try:
        [recut] = [j for j in store.jobs() if j.kind == "recut"]
        assert recut.state == "done" and store.charged(recut.id) == 0
    finally:
        store.close()
    assert len(creates(sandbox)) == 1 and api.get("/credits/balance").json["available"] == paid
