"""A folder whose path no engine string can carry (a quote in its name) is refused by
`companion animate` and `jobs add` before anything is spent: its path is written into the
Godot resources, and the install used to refuse it only after the charge, leaving the job
stuck installing so the same command into a good folder waited on it for ever."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.media.demo_art import draw_character
from tests.conftest import TEST_KEY
from tests.support.calls import Api
from tests.support.cli import companion
from tests.support.paid import creates

pytestmark = pytest.mark.slow

ASK = ["--prompt", "hover", "--seconds", "1", "--resolution", "360p", "--width", "64"]
ASK += ["--height", "64", "--formats", "spritesheet,spritesheet_json,godot_pack"]


def test_a_quote_in_the_folder_is_refused_before_the_charge(make_sandbox, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    sandbox = make_sandbox(journal=True)
    api = Api(sandbox.base_url, key=TEST_KEY)
    home, game = tmp_path / "home", tmp_path / "game"
    game.mkdir()
    (game / "project.godot").write_text("config_version=5\n")
    draw_character(64).save(game / "hero.png")
    installed = companion(sandbox.base_url, home, "plugin", "install", "godot", str(game))
    assert installed.returncode == 0, installed.stderr
    before = api.get("/credits/balance").json["available"]
    bad = game / 'q"x'
    for command, flag in (("animate", "--out"), ("jobs", "--target")):
        words = [command] if command == "animate" else ["jobs", "add"]
        refused = companion(
            sandbox.base_url, home, *words, str(game / "hero.png"), *ASK, flag, str(bad)
        )
        assert refused.returncode == 2, refused.stdout + refused.stderr
        assert "Traceback" not in refused.stderr, refused.stderr
        assert flag in refused.stderr and "'\"'" in refused.stderr, refused.stderr
        assert "nothing was spent" in refused.stderr, refused.stderr
    assert not bad.exists()
    assert creates(sandbox) == []
    assert api.get("/credits/balance").json["available"] == before
    # The same command into a good folder goes ahead at once, nothing in its way.
    good = companion(sandbox.base_url, home, "animate", str(game / "hero.png"), *ASK,
                     "--out", str(game / "hov"), "--timeout", "120")  # fmt: skip
    assert good.returncode == 0, good.stderr
    assert len(creates(sandbox)) == 1 and (game / "hov" / "hero.tres").is_file()
