"""`companion animate` pays once per generation: after the first command into a Godot
project, an edit of the SpriteFrames, another --name, other frames and formats, and a
`companion recut` between them each spend nothing (no create, the balance still) and land
exactly what their local part asked, installed the engine's way with the edit kept;
--again and a new prompt still pay. The sequences of issue 27, as a new user runs them."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from companion.media.demo_art import draw_character
from tests.conftest import TEST_KEY, both_faces
from tests.support.calls import Api
from tests.support.cli import companion
from tests.support.paid import creates

pytestmark = [pytest.mark.slow, both_faces]  # a money test: on both faces

ASK = ["--prompt", "walk", "--seconds", "1", "--resolution", "360p"]
ASK += ["--formats", "spritesheet,spritesheet_json,godot_pack", "--frame-count", "8"]
ASK += ["--width", "64", "--height", "64", "--json"]


def _summary(run: Any) -> dict[str, Any]:
    assert run.returncode == 0, run.stderr
    line = run.stdout.strip().splitlines()[-1]
    summary: dict[str, Any] = json.loads(line)
    return summary


def test_four_sequences_spend_nothing_and_land_their_local_part(
    make_sandbox, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    sandbox = make_sandbox(journal=True)
    api = Api(sandbox.base_url, key=TEST_KEY)
    home, game = tmp_path / "home", tmp_path / "game"
    out = game / "animations"
    dest = str(out)
    out.mkdir(parents=True)
    (game / "project.godot").write_text("config_version=5\n")
    draw_character(64).save(game / "hero.png")
    image = str(game / "hero.png")

    def animate(*more: str) -> dict[str, Any]:
        return _summary(companion(sandbox.base_url, home, "animate", image, *ASK, *more,
                                  "--out", dest))  # fmt: skip

    def balance() -> int:
        available: int = api.get("/credits/balance").json["available"]
        return available

    start = balance()
    first = animate()
    assert first["spent_now"] > 0 and len(creates(sandbox)) == 1
    paid = balance()
    assert start - paid == first["spent_now"]

    # 1. The user slows the animation in the editor; the same command again.
    tres = out / "hero.tres"
    tres.write_text(re.sub(r'"speed": [0-9.]+', '"speed": 3.5', tres.read_text()))
    edited = animate()
    assert edited["spent_now"] == 0 and edited["recut_of"] == first["job"]
    assert '"speed": 3.5' in tres.read_text()  # the edit survives the install

    # 2. Another name: its own files, free.
    named = animate("--name", "hero_b")
    assert named["spent_now"] == 0 and named["recut_of"] == first["job"]
    assert (out / "hero_b.tres").is_file() and (out / "hero_b.png").is_file()

    # 3. Twelve frames and a GIF: a sheet of 12, the GIF there too.
    more = ["--formats", "spritesheet,spritesheet_json,godot_pack,gif", "--frame-count", "12"]
    twelve = animate(*more)
    assert twelve["spent_now"] == 0 and twelve["recut_of"] == first["job"]
    frames = json.loads((out / "hero.json").read_text())["frames"]
    assert len(frames) == 12
    assert (out / "hero.gif").is_file() and '"speed": 3.5' in tres.read_text()

    # 4. A recut, then the first command again.
    recut = companion(sandbox.base_url, home, "recut", first["job"][:8], "--formats",
                      "spritesheet,spritesheet_json,godot_pack", "--frame-count", "6",
                      "--width", "64", "--height", "64", "--out", str(out))  # fmt: skip
    assert recut.returncode == 0, recut.stderr
    back = animate()
    assert back["spent_now"] == 0 and back["recut_of"] == first["job"]
    assert len(json.loads((out / "hero.json").read_text())["frames"]) == 8
    assert len(creates(sandbox)) == 1 and balance() == paid  # four sequences, nothing spent

    # Only an explicit new take, or another generation, pays.
    again = animate("--again")
    assert again["spent_now"] > 0 and again["recut_of"] is None
    other = [a if a != "walk" else "run" for a in ASK]
    prompt = _summary(companion(sandbox.base_url, home, "animate", image, *other, "--out", dest))
    assert prompt["spent_now"] > 0
    assert len(creates(sandbox)) == 3
    assert balance() == paid - again["spent_now"] - prompt["spent_now"]

    # The kept clips: one per paid generation, with the re-cuts each answered free.
    listed = companion(sandbox.base_url, home, "clips", "--json")
    assert listed.returncode == 0, listed.stderr
    kept = json.loads(listed.stdout)
    assert [c["job"] for c in kept["clips"]] == [first["job"], again["job"], prompt["job"]]
    assert all(c["bytes"] > 0 for c in kept["clips"]) and kept["cap_mb"] is None
    assert kept["bytes"] == sum(c["bytes"] for c in kept["clips"])
    answered = {r["job"] for r in kept["clips"][0]["answered"]}
    assert {edited["job"], named["job"], twelve["job"], back["job"]} <= answered
    assert kept["evicted"] == []
