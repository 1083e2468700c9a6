"""The command line held as hard as the daemon (issue 26): a cloned repository whose
plugin.cfg is a link to /dev/zero, and numbers that are not numbers, each answered in one
line and at once, never a traceback, a hang or a stuck job."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.support.no_key import companion, one_error


def godot_game(tmp_path: Path) -> Path:
    game = tmp_path / "game"
    game.mkdir()
    (game / "project.godot").write_text("config_version=5\n")
    return game


@pytest.mark.parametrize("odd", ["dev_zero", "fifo", "folder"])
def test_plugin_commands_never_read_what_is_not_a_plain_file(tmp_path: Path, odd: str) -> None:
    """Was: plugin.cfg read whole even when it is a link to /dev/zero."""
    home, game = tmp_path / "home", godot_game(tmp_path)
    addon = game / "addons" / "companion"
    addon.mkdir(parents=True)
    cfg = addon / "plugin.cfg"
    if odd == "dev_zero":
        cfg.symlink_to("/dev/zero")
    elif odd == "fifo":
        os.mkfifo(cfg)
    else:
        cfg.mkdir()
        (cfg / "notes.txt").write_text("the user's\n")
    status = companion(home, "plugin", "status", "godot", str(game), "--json")
    assert "Traceback" not in status.stderr, status.stderr
    assert status.returncode in (0, 1), status.stderr
    assert json.loads(status.stdout)["installed"] is None
    for command in ("install", "uninstall"):
        result = companion(home, "plugin", command, "godot", str(game))
        assert "Traceback" not in result.stderr, result.stderr
        if result.returncode != 0:
            one_error(result)
    assert cfg.is_symlink() or cfg.exists()  # never replaced: it is not the companion's


@pytest.mark.parametrize(
    "flags",
    [
        ("--start", "nan"),
        ("--start", "inf"),
        ("--duration", "-inf"),
        ("--duration", "1e-300"),
        ("--fps", "nan"),
    ],
)
def test_numbers_that_are_not_numbers_are_one_line(tmp_path: Path, flags: tuple[str, ...]) -> None:
    """Was: a traceback (and, for a re-cut into a project, a job that never ended)."""
    clip = tmp_path / "clip.mp4"
    clip.write_bytes(b"not read: the flags are refused first")
    out = ("--out", str(tmp_path / "o"), "--formats", "gif")
    result = companion(tmp_path / "home", "export", str(clip), *out, *flags)
    assert result.returncode == 2, result.stdout + result.stderr
    message = one_error(result)
    assert flags[0] in message, message
    assert not (tmp_path / "o").exists()


def test_a_godot_res_dir_never_plants_text_in_the_tres(tmp_path: Path) -> None:
    """The flag is written into the pack's .tres as a path: a quote and a newline there
    would start a section of their own."""
    clip = tmp_path / "clip.mp4"
    clip.write_bytes(b"not read: the flag is refused first")
    planted = 'res://a"\n[sub_resource type="GDScript" id="e"]'
    result = companion(
        tmp_path / "home", "export", str(clip), "--formats", "godot_pack",
        "--godot-res-dir", planted, "--out", str(tmp_path / "o"),
    )  # fmt: skip
    assert result.returncode == 2, result.stdout + result.stderr
    assert "--godot-res-dir" in one_error(result)
    assert not (tmp_path / "o").exists()


def test_a_timeout_that_is_not_a_number_is_one_line(tmp_path: Path) -> None:
    """Was: --timeout nan accepted, then a wait that never ends."""
    picture = tmp_path / "hero.png"
    picture.write_bytes(b"not read: the flag is refused first")
    result = companion(
        tmp_path / "home", "animate", str(picture), "--prompt", "walk",
        "--out", str(tmp_path / "o"), "--timeout", "nan",
    )  # fmt: skip
    assert result.returncode == 2, result.stdout + result.stderr
    assert "--timeout" in one_error(result)
    assert not (tmp_path / "o").exists()
