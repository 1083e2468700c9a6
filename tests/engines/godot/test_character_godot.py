"""`companion character` into a Godot project, held to the money and to a real Godot: the
three moves pay exactly the quoted total (the sandbox's balance and its journal of
creates), the same command again spends nothing, a fourth move pays only for itself;
then one real Godot run loads hero.tres with exactly the moves (and the animation the
user added in between) and plays hero.tscn: idle first, frames advancing, clear where
the picture was clear."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from companion.media.demo_art import draw_character
from companion.sandbox import SandboxThread
from tests.conftest import TEST_KEY
from tests.support.calls import Api
from tests.support.cli import companion
from tests.support.godot import game
from tests.support.paid import creates
from tests.support.paths import SUPPORT
from tests.support.real_godot import Godot, real_godot  # noqa: F401  (the fixture)

pytestmark = [pytest.mark.godot, pytest.mark.slow]

SCRIPT = SUPPORT / "godot" / "character.gd"
MOVES = [
    "--move",
    "idle=idle breathing",
    "--move",
    "walk=walk cycle",
    "--move",
    "attack=sword slash",
]
SHORT = ["--seconds", "1", "--resolution", "360p", "--frame-count", "4"]
# What a user adds in the editor: an animation of their own showing one of idle's frames,
# and a slower attack.
WAVE = (
    '{\n"frames": [{\n"duration": 1.0,\n"texture": SubResource("idle_AtlasTexture_0")\n}],'
    '\n"loop": false,\n"name": &"wave",\n"speed": 2.0\n}, '
)


def _names(tres: Path) -> list[str]:
    return re.findall(r'"name": &"([^"]+)"', tres.read_text())


def test_a_character_is_paid_once_and_plays_in_a_real_godot(
    make_sandbox: Callable[..., SandboxThread],
    tmp_path: Path,
    real_godot: Godot,  # noqa: F811
) -> None:
    sandbox = make_sandbox(task_seconds=0.3, journal=True)
    api = Api(sandbox.base_url, key=TEST_KEY)
    home = tmp_path / "home"
    project = game(tmp_path / "game", harness=False)
    draw_character(64).save(project / "hero.png")
    out = project / "animations"

    def character(*moves: str) -> dict[str, Any]:
        before = api.get("/credits/balance").json["available"]
        ran = companion(
            sandbox.base_url, home, "character", str(project / "hero.png"), *moves, *SHORT,
            "--out", str(out), "--json",
        )  # fmt: skip
        assert ran.returncode == 0, ran.stderr
        said: dict[str, Any] = json.loads(ran.stdout)
        spent = before - api.get("/credits/balance").json["available"]
        assert said["spent_now"] == said["quoted"] == spent, (said, spent)
        return said

    made = character(*MOVES)
    assert made["quoted"] > 0 and len(creates(sandbox)) == 3
    assert [(m["move"], m["loop"]) for m in made["moves"]] == [
        ("idle", True), ("walk", True), ("attack", False)
    ]  # fmt: skip
    tres, scene = out / "hero.tres", out / "hero.tscn"
    assert made["frames"] == str(tres) and made["scene"] == str(scene)
    assert sorted(_names(tres)) == ["attack", "idle", "walk"]  # Godot lists them sorted

    again = character(*MOVES)
    assert again["quoted"] == 0 and len(creates(sandbox)) == 3

    # The user adds an animation of their own and slows the attack down, and edits the
    # scene: the next move keeps all of it.
    text = tres.read_text().replace("animations = [", "animations = [" + WAVE, 1)
    text = text.replace('"name": &"attack",\n"speed": 4.0', '"name": &"attack",\n"speed": 9.0')
    tres.write_text(text)
    edited = scene.read_text() + "position = Vector2(40, 30)\n"
    scene.write_text(edited)
    fourth = character(*MOVES, "--move", "jump=jump up")
    one = next(m for m in made["moves"] if m["move"] == "idle")["quoted"]
    assert fourth["quoted"] == one and len(creates(sandbox)) == 4
    assert [m["quoted"] for m in fourth["moves"]] == [0, 0, 0, one]
    assert scene.read_text() == edited

    # The disclosure lists every file the set wrote, each with its move's job, model and
    # prompt, and nothing else: the scene the user edited is theirs now.
    listed = companion(sandbox.base_url, home, "provenance", str(project), "--json")
    assert listed.returncode == 0, listed.stderr
    rows = {row["path"]: row for row in json.loads(listed.stdout)["data"]}
    written = {
        p.relative_to(project).as_posix()
        for p in out.rglob("*")
        if p.is_file() and p.suffix not in {".import", ".uid"}
    }
    assert set(rows) == written - {"animations/hero.tscn"}, (sorted(rows), sorted(written))
    prompts = {"idle breathing", "walk cycle", "sword slash", "jump up"}
    jobs = {m["job"] for m in fourth["moves"]}
    for path, row in rows.items():
        assert row["prompt"] in prompts and row["model"] and row["job"] in jobs, (path, row)

    # One real Godot run: import, then load and play as a game.
    godot_home = tmp_path / "godot-home"
    shutil.copy(SCRIPT, project / "character.gd")
    imported = real_godot.run(godot_home, "--headless", "--import", "--path", str(project))
    assert imported.returncode == 0, imported.stderr[-2000:]
    result = tmp_path / "character.json"
    ran = real_godot.run(
        godot_home, "--headless", "--path", str(project), "-s", "res://character.gd", "--",
        str(result), "res://animations/hero.tres", "res://animations/hero.tscn",
    )  # fmt: skip
    assert ran.returncode == 0 and result.is_file(), ran.stdout[-2000:] + ran.stderr[-2000:]
    assert not [line for line in ran.stderr.splitlines() if "ERROR" in line], ran.stderr
    found = json.loads(result.read_text())
    animations = found["animations"]
    assert set(animations) == {"idle", "walk", "attack", "jump", "wave"}
    assert {n: a["loop"] for n, a in animations.items()} == {
        "idle": True, "walk": True, "attack": False, "jump": False, "wave": False
    }  # fmt: skip
    assert animations["attack"]["speed"] == 9.0 and animations["wave"]["speed"] == 2.0
    assert all(animations[n]["count"] == 4 for n in ("idle", "walk", "attack", "jump"))
    assert animations["wave"]["count"] == 1
    assert found["animation"] == "idle" and found["playing"]
    assert len(found["shown"]) >= 3, f"the sprite did not advance: {found['shown']}"
    # The picture is clear around the character: so is the frame, and the character is not.
    assert found["size"] == [64, 64] and found["sizes"] == ["[64, 64]"], found
    assert found["clear"] > 64 * 64 // 4 and found["opaque"] > 64 * 64 // 20, found
