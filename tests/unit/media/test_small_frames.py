"""16 and 32 px frames, what pixel-art games use. The service makes 64 to 1024 px: a
smaller size (asked, or a 16 px picture's own) is made by asking the service for the
size scaled up to its bound and scaling the kept clip down here after the download. The
quote is that of the size really asked; what lands is the small size, transparent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from companion.media import draw_character
from tests.conftest import TEST_KEY
from tests.support.alpha import corners, frame_sizes
from tests.support.calls import Api
from tests.support.cli import companion, tasks
from tests.support.daemon import body, call, godot_project, wait_final
from tests.support.drops import start_daemon, wait_until
from tests.support.paid import creates

pytestmark = pytest.mark.slow

QUICK = ["--prompt", "idle", "--frame-count", "4", "--seconds", "1", "--resolution", "360p"]
SHEET = ["--formats", "spritesheet,spritesheet_json"]


def asked_sizes(api: Api) -> list[tuple[int, int] | None]:
    """The frame size each task asked the service for, newest first (None: a video
    generation, which asks for no frames: they are made here from its video)."""
    return [
        (
            (
                t["normalized_input"]["export"]["output_width"],
                t["normalized_input"]["export"]["output_height"],
            )
            if "export" in t["normalized_input"]
            else None
        )
        for t in tasks(api)
    ]


def test_a_16_px_picture_gives_16_px_frames_and_a_smaller_size_asked_too(
    make_sandbox: Any, tmp_path: Path
) -> None:
    sandbox = make_sandbox(journal=True)
    api = Api(sandbox.base_url, key=TEST_KEY)
    home, out = tmp_path / "home", tmp_path / "out"
    tiny = tmp_path / "imp.png"
    draw_character(16).save(tiny)
    before = api.get("/credits/balance").json["available"]
    made = companion(sandbox.base_url, home, "animate", str(tiny), *QUICK, *SHEET,
                     "--out", str(out), "--json")  # fmt: skip
    assert made.returncode == 0, made.stderr
    assert frame_sizes(out / "imp.json") == {(16, 16)}
    assert corners(out / "imp.png") == [0, 0, 0, 0]
    assert asked_sizes(api) == [None]  # the video alone bought: the frames are made here
    assert (
        before - api.get("/credits/balance").json["available"]
        == json.loads(made.stdout)["spent_now"]
    )

    knight = tmp_path / "knight.png"
    draw_character(64).save(knight)
    made = companion(sandbox.base_url, home, "animate", str(knight), *QUICK, *SHEET,
                     "--width", "32", "--height", "32", "--out", str(out))  # fmt: skip
    assert made.returncode == 0, made.stderr
    assert frame_sizes(out / "knight.json") == {(32, 32)}
    assert asked_sizes(api) == [None, None]
    refused = companion(sandbox.base_url, home, "animate", str(knight), *QUICK, *SHEET,
                        "--width", "8", "--out", str(out))  # fmt: skip
    assert refused.returncode == 2 and "--width" in refused.stderr and "16" in refused.stderr
    assert len(creates(sandbox)) == 2


def test_the_daemon_takes_16_px_and_says_so_in_its_limits(
    make_sandbox: Any, tmp_path: Path
) -> None:
    sandbox = make_sandbox(task_seconds=0.2, journal=True)
    api = Api(sandbox.base_url, key=TEST_KEY)
    running = start_daemon(sandbox, tmp_path / "home")
    try:
        assert call(running, "GET", "/api/v1/status").json["limits"]["size"]["min"] == 16
        project = godot_project(running, tmp_path)
        small = body(project, "walk")
        small["export"] = {**small["export"], "output_width": 16, "output_height": 16}
        big = body(project, "walk")  # 64 px: what the service is asked for either way
        priced = call(running, "POST", "/api/v1/quote", small).json
        assert priced["credits"] == call(running, "POST", "/api/v1/quote", big).json["credits"]
        job = call(running, "POST", "/api/v1/animate", small)
        assert job.status == 202, job.body
        assert wait_final(running, job.json["id"])["state"] == "done"
        assert frame_sizes(project / "animations" / "hero.json") == {(16, 16)}
        assert asked_sizes(api) == [None]
        tiny = body(project, "walk")
        tiny["export"] = {**tiny["export"], "output_width": 15}
        refused = call(running, "POST", "/api/v1/quote", tiny)
        assert refused.status == 400 and "output_width" in refused.error["message"]
    finally:
        running.stop()


def test_a_dropped_32_px_picture_lands_32_px_transparent_frames(
    make_sandbox: Any, tmp_path: Path
) -> None:
    sandbox = make_sandbox(task_seconds=0.2, journal=True)
    api = Api(sandbox.base_url, key=TEST_KEY)
    running = start_daemon(sandbox, tmp_path / "home")
    try:
        project = tmp_path / "game"
        project.mkdir()
        defaults = {  # no size and no finishing: the picture decides
            "prompt": "idle breathing",
            "video": {"duration_seconds": 1, "resolution": "360p"},
            "export": {"frame_count": 4, "output_formats": ["spritesheet", "spritesheet_json"]},
        }
        given = {"root": str(project), "inbox": "inbox", "defaults": defaults}
        assert call(running, "POST", "/api/v1/projects", given).status == 201
        inbox = project / "inbox"
        draw_character(32).save(inbox / "bat.png")
        wait_until(lambda: (inbox / "done" / "bat.png").exists(), running, 60)
        [bat] = [j for j in call(running, "GET", "/api/v1/jobs").json["data"] if j["name"] == "bat"]
        assert bat["state"] == "done", bat
        [sheet] = [
            Path(o["installed_path"]) for o in bat["outputs"] if o["format"] == "spritesheet"
        ]
        assert frame_sizes(sheet.with_suffix(".json")) == {(32, 32)}
        assert corners(sheet) == [0, 0, 0, 0]
        assert asked_sizes(api) == [None] and len(creates(sandbox)) == 1
    finally:
        running.stop()
