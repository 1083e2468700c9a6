"""Into a Godot project one name is one set: `companion animate` writing hero again as a
GIF alone says, before anything is spent, that it will remove the earlier hero's sheet
and its resource, then does exactly that; the GIF lands beside nothing stale."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from companion.media import draw_character
from tests.support.cli import companion

QUICK = ["--frame-count", "4", "--seconds", "1", "--resolution", "360p", "--name", "hero"]


def test_a_new_set_of_a_name_says_what_it_removes(make_sandbox: Any, tmp_path: Path) -> None:
    sandbox = make_sandbox()
    home, game = tmp_path / "home", tmp_path / "game"
    (game / "art").mkdir(parents=True)
    (game / "project.godot").write_text("config_version=5\n")
    picture = game / "art" / "knight.png"
    draw_character(64).save(picture)
    out = game / "animations"

    def animate(prompt: str, formats: str) -> str:
        made = companion(
            sandbox.base_url, home, "animate", str(picture), "--prompt", prompt, *QUICK,
            "--formats", formats, "--out", str(out),
        )  # fmt: skip
        assert made.returncode == 0, made.stderr
        return made.stderr

    animate("idle", "godot_pack")
    earlier = sorted(p.name for p in out.iterdir() if p.is_file())
    assert {"hero.png", "hero.tres"} <= set(earlier), earlier
    said = animate("walk", "gif")
    removed = sorted(
        Path(line.split("will remove ", 1)[1].split(" (", 1)[0]).name
        for line in said.splitlines()
        if line.startswith("companion: will remove ")
    )
    assert removed == sorted(set(earlier) - {"hero.gif"}), said
    assert sorted(p.name for p in out.iterdir() if p.is_file()) == ["hero.gif"]
