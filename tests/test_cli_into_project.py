"""The command line's results into a Godot or Unity project are installed the engine's
way, as the daemon's are: the pack unpacked into a SpriteFrames (or a clip) updated in
place with the user's edits kept, one set of files per name, never a NAME_godot.zip
beside a resource that still shows the old frames."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from companion.media.demo_art import draw_character
from companion.store import Store
from tests.cli_helpers import companion

SHORT = ["--seconds", "1", "--resolution", "360p", "--width", "64", "--height", "64"]
GODOT = ["--formats", "spritesheet,spritesheet_json,godot_pack"]


def _regions(tres: Path) -> list[str]:
    """The sheet regions the SpriteFrames plays, in order."""
    return re.findall(r"^region = (Rect2\([^)]*\))", tres.read_text(), re.M)


def _job_ids(home: Path) -> list[str]:
    store = Store(home / "companion.db")
    try:
        return [j.id for j in store.jobs()]
    finally:
        store.close()


@pytest.mark.slow
def test_godot_animate_then_recut_update_the_sprite_frames(make_sandbox, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    sandbox = make_sandbox()
    home = tmp_path / "home"
    game = tmp_path / "g3"
    out = game / "animations"
    out.mkdir(parents=True)
    (game / "project.godot").write_text("config_version=5\n")
    draw_character(64).save(game / "hero.png")
    made = companion(
        sandbox.base_url, home, "animate", str(game / "hero.png"), "--prompt", "idle",
        *GODOT, "--frame-count", "4", *SHORT, "--out", str(out),
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    # The engine's layout: the pack unpacked into a SpriteFrames, no archive in the game.
    assert sorted(p.name for p in out.iterdir()) == ["hero.json", "hero.png", "hero.tres"]
    tres = out / "hero.tres"
    assert len(_regions(tres)) == 4 and 'path="res://animations/hero.png"' in tres.read_text()
    # The user slows the animation down in the editor: their speed is kept from now on.
    edited = re.sub(r'"speed": [0-9.]+', '"speed": 9.0', tres.read_text())
    tres.write_text(edited)

    hop = companion(
        sandbox.base_url, home, "animate", str(game / "hero.png"), "--prompt", "hop",
        *GODOT, "--frame-count", "6", *SHORT, "--out", str(out),
    )  # fmt: skip
    assert hop.returncode == 0, hop.stderr
    assert sorted(p.name for p in out.iterdir()) == ["hero.json", "hero.png", "hero.tres"]
    assert len(_regions(tres)) == 6  # the new sheet's frames, not the old 4 regions
    assert '"speed": 9.0' in tres.read_text()

    job = _job_ids(home)[0]  # either kept clip will do
    recut = companion(
        sandbox.base_url, home, "recut", job[:8], *GODOT, "--frame-count", "8",
        "--width", "64", "--height", "64", "--out", str(out),
    )  # fmt: skip
    assert recut.returncode == 0, recut.stderr
    assert sorted(p.name for p in out.iterdir()) == ["hero.json", "hero.png", "hero.tres"]
    assert len(_regions(tres)) == 8
    assert '"speed": 9.0' in tres.read_text()  # merged in place: the user's edit kept
    assert "updat" in recut.stderr and "hero.tres" in recut.stderr
