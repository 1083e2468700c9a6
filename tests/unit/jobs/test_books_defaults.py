"""A project registered with only its root, engine and inbox pays for what the project
can use: a drop into a Godot project ends as a SpriteFrames, into a Unity project as
sprites and a clip, and a transparent picture stays transparent. Settings the user chose
are kept as given."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image

from companion.api.schema import ExportOptions, VideoOptions
from companion.jobs.ask.defaults import for_picture
from companion.media.demo_art import draw_character
from companion.sandbox import SandboxThread
from tests.support.daemon import call
from tests.support.drops import start_daemon, wait_until

SMALL = "export: {frame_count: 4, output_width: 64, output_height: 64}\n"
SMALL += "video: {duration_seconds: 1, resolution: 360p}\n"


def _project(root: Path, engine: str) -> Path:
    if engine == "godot":
        root.mkdir()
        (root / "project.godot").write_text("config_version=5\n")
        return root / "animations"
    (root / "Assets").mkdir(parents=True)
    (root / "ProjectSettings").mkdir()
    return root / "Assets" / "Animations"


@pytest.mark.slow
@pytest.mark.parametrize(
    "engine,made",
    [
        ("godot", [".json", ".png", ".tres"]),
        ("unity", [".anim", ".anim.meta", ".json", ".json.meta", ".png", ".png.meta"]),
    ],
)
def test_a_drop_into_a_bare_project_makes_what_its_engine_uses(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path, engine: str, made: list[str]
) -> None:
    running = start_daemon(make_sandbox(task_seconds=0.2), tmp_path / "home")
    try:
        project = tmp_path / "game"
        target = _project(project, engine)
        reply = call(
            running,
            "POST",
            "/api/v1/projects",
            {"root": str(project), "engine": engine, "inbox": "inbox"},
        )
        assert reply.status == 201, reply.body
        inbox = project / "inbox"
        (inbox / "knight.yaml").write_text("prompt: idle breathing\n" + SMALL)
        draw_character(64).save(inbox / "knight.png")  # transparent around the figure
        wait_until(lambda: (inbox / "done" / "knight.png").exists(), running, seconds=60)
        [job] = call(running, "GET", "/api/v1/jobs").json["data"]
        assert job["state"] == "done", job
        written = sorted(p.name.removeprefix("knight") for p in target.glob("knight*"))
        assert written == made
        if engine == "godot":
            tres = (target / "knight.tres").read_text()
            assert 'type="SpriteFrames"' in tres and "res://animations/knight.png" in tres
        # The daemon's API fills the same: a quote with no export names the engine's files.
        body = {"project_root": str(project), "image_path": "inbox/done/knight.png"}
        quote = call(running, "POST", "/api/v1/quote", {**body, "prompt": "walk"}).json
        foreseen = {Path(p).name.removeprefix("knight") for p in quote["writes"]}
        assert {".png", ".json", ".tres" if engine == "godot" else ".anim"} <= foreseen
        assert foreseen <= set(made)
        if engine == "unity":
            anim = (target / "knight.anim").read_text()
            assert "AnimationClip" in anim and "m_Name: knight" in anim
        with Image.open(target / "knight.png") as sheet:
            assert sheet.mode == "RGBA" and sheet.getchannel("A").getextrema()[0] == 0
    finally:
        running.stop()


def test_what_the_user_chose_is_kept(tmp_path: Path) -> None:
    clear, opaque = tmp_path / "clear.png", tmp_path / "opaque.png"
    draw_character(64).save(clear)
    draw_character(64).convert("RGB").convert("RGBA").save(opaque)  # alpha, all of it 255
    chosen = ExportOptions.model_validate({"output_formats": ["gif"]})
    export, video = for_picture(clear, chosen, VideoOptions(), engine="godot")
    assert [f.value for f in export.formats] == ["gif"] and export.transparent.enabled
    assert video.transparency is not None and video.transparency.mode == "alpha_key"
    export, video = for_picture(opaque, ExportOptions(), VideoOptions(), engine="unity")
    assert [f.value for f in export.formats] == ["spritesheet", "spritesheet_json", "unity_pack"]
    assert not export.transparent.enabled and video.transparency is None
    standard = VideoOptions.model_validate({"transparency": {"mode": "standard"}})
    export, video = for_picture(clear, ExportOptions(), standard, engine="other")
    assert [f.value for f in export.formats] == ["spritesheet"]
    assert not export.transparent.enabled and video == standard
    named = VideoOptions.model_validate({"model": "sandbox-motion-lite"})
    assert for_picture(clear, ExportOptions(), named, engine="other")[1] == named
